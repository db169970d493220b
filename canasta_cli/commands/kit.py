"""``canasta kit``: where the files for bot authors are (kits, example bots, schemas)."""

from __future__ import annotations

from typing import Annotated

import typer

from .. import package_data
from .options import fail

kit_app = typer.Typer(help="The bot kits, example bots and protocol schemas that come with"
                      " canasta.", no_args_is_help=True, rich_markup_mode=None)

PLACES = {
    "bots": ("the bot kits (canasta_kit.py, canasta_kit.js) and example bots",
             package_data.bots_dir),
    "protocol": ("the protocol specification (README.md), examples and transcripts",
                 package_data.protocol_dir),
    "schemas": ("the JSON Schemas of the protocol messages", package_data.schema_dir),
}


def register(app: typer.Typer) -> None:
    app.add_typer(kit_app, name="kit")


@kit_app.command("path")
def kit_path(what: Annotated[str | None, typer.Argument(
        help="bots, protocol or schemas: print only that folder (for scripts, e.g."
        " cp \"$(canasta kit path bots)/canasta_kit.py\" .).")] = None) -> None:
    """Print where the bot kits, the example bots and the protocol schemas are."""
    if what is not None:
        if what not in PLACES:
            raise fail(f"kit path takes {', '.join(PLACES)}, not {what!r}")
        typer.echo(str(PLACES[what][1]()))
        return
    for name, (text, where) in PLACES.items():
        typer.echo(f"{name + ':':<10} {where()}  ({text})")
