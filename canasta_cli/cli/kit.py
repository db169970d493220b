"""``canasta kit``: where the files for bot authors are (kits, example bots, schemas), and
starter bots that pass ``bot check`` as written (``kit init``)."""

from __future__ import annotations

import shlex
import sys
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from ..util import package_data
from ..util.private_files import os_message, write_private
from ..util.safetext import visible
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


LANGS = {"python": ("bot.py", "{python} bot.py", ""),
         "js": ("bot.js", "node bot.js", ""),
         "c": ("bot.c", "./bot", "cc -O2 -o bot bot.c")}


def _starter(name: str) -> Path:
    return Path(str(resources.files("canasta_cli.botdev.starters").joinpath(name)))


@kit_app.command("init")
def kit_init(directory: Annotated[Path, typer.Argument(help="A new or empty folder.")],
             lang: Annotated[str, typer.Option(help="python, js or c.")] = "python") -> None:
    """Write a starter bot (and a README of the commands to build, check and play it) that
    passes ``canasta bot check`` as written.  Python: on the installed kit (``import
    canasta_kit``); JavaScript: with a copy of the kit beside it; C: standard library only,
    with a small bounded JSON reader of its own."""
    if lang not in LANGS:
        raise fail("--lang takes python, js or c")
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise fail(f"{directory} exists and is not an empty folder")
    source, run_cmd, build = LANGS[lang]
    run_cmd = run_cmd.format(python=shlex.quote(sys.executable))
    files = {source: _starter(source).read_bytes()}
    if lang == "js":
        files["canasta_kit.js"] = (package_data.bots_dir() / "canasta_kit.js").read_bytes()
    steps = [f"cd {shlex.quote(str(directory.resolve()))}"]
    if build:
        steps.append(build + "                     # build (cc alone, no library)")
    steps += [f"canasta bot check {shlex.quote(run_cmd)} --games 10    # check",
              f"canasta tournament --bot mine={shlex.quote(run_cmd)} --bot normal=builtin:normal"
              " --games 20 --out results    # play"]
    readme = (f"# A Canasta bot ({lang})\n\n"
              f"`{source}` is a complete bot: it answers every request with a listed move."
              " Change its choice and run:\n\n```sh\n" + "\n".join(steps) + "\n```\n\n"
              "Debug output goes to stderr; stdout carries the protocol only (the protocol is"
              " in `canasta kit path protocol`).  When a game fails, the tournament keeps the"
              " bot's stderr and a replay command in `results/failures/`.\n")
    files["README.md"] = readme.encode()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():  # never through a link put there meanwhile;
            write_private(directory / name, data, mode=0o666)  # the umask sets the mode
    except OSError as exc:
        raise fail(f"cannot write {visible(os_message(exc))}") from None
    typer.echo(f"wrote {directory / source} and {directory / 'README.md'}; next:")
    for step in steps:
        typer.echo(f"  {step}")
