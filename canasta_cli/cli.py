"""The ``canasta`` command: the Typer app, its commands registered from ``commands/`` and
``bench/``, and ``main``."""

from __future__ import annotations

import signal
from typing import Annotated

import typer

from . import __version__, bench
from .build import engine_build
from .commands import (
    bot,
    cluster,
    demo,
    explore,
    games,
    kit,
    ladder,
    learn,
    match,
    net,
    play,
    replay,
    report,
    tournament,
)

# Plain help (rich_markup_mode=None): the rich layout labels every flag "<bool>".
app = typer.Typer(help="Canasta: an exact rules engine, a referee and bots.", no_args_is_help=True,
                  rich_markup_mode=None,
                  add_completion=False)
for _group in (explore, play, demo, match, replay, tournament, report, net, bench, bot,
               cluster, kit, ladder, games, learn):
    _group.register(app)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"canasta {__version__} (protocol canasta/1; {engine_build()} engine)")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")]
        = False) -> None:
    """Canasta: an exact rules engine, a referee and bots."""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: the command stops as on Ctrl-C, closing records and ending bots."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated(signum)


def main() -> None:
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _terminate)
    app()


if __name__ == "__main__":
    main()
