"""The ``canasta`` command: the Typer app, its commands registered from ``cli/`` and
``bench/``, and ``main``.

A command line that names a command is run by an app that registers only that command's
module (``GROUPS``): a command imports, and Typer builds, only what it runs, not the whole
package and every other command's options (a third of a short command's start-up).  Any other
command line (``--help``, ``--version``, no command, a misspelt one) gets the whole app, so
help, listings and suggestions are as before.  ``app`` is the whole app, made when first read.
"""

from __future__ import annotations

import importlib
import signal
import sys
from typing import Annotated

import typer

from . import __version__
from .util.build import engine_build

# Each command module (under canasta_cli/) and the commands it registers, in the order help
# lists them; ``tests/test_cli_lazy.py`` keeps this equal to what the modules register.
GROUPS: dict[str, tuple[str, ...]] = {
    "cli.explore": ("rules", "position"),
    "cli.play": ("play",),
    "cli.demo": ("demo",),
    "cli.match": ("match",),
    "cli.replay": ("replay",),
    "cli.review": ("review",),
    "cli.tournament": ("tournament",),
    "cli.report": ("report",),
    "cli.net": ("serve", "join"),
    "bench": ("bench",),
    "cli.bot": ("bot",),
    "cli.cluster": ("cluster",),
    "cli.kit": ("kit",),
    "cli.ladder": ("ladder",),
    "cli.games": ("games", "stats"),
    "cli.learn": ("learn",),
}
_MODULE_OF = {name: module for module, names in GROUPS.items() for name in names}


def _version(value: bool) -> None:
    if value:
        typer.echo(f"canasta {__version__} (protocol canasta/1; {engine_build()} engine)")
        raise typer.Exit()


def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")]
        = False) -> None:
    """Canasta: an exact rules engine, a referee and bots."""


def make_app(modules: tuple[str, ...] = tuple(GROUPS)) -> typer.Typer:
    """The app with the commands of ``modules`` (keys of ``GROUPS``; default: all)."""
    # Plain help (rich_markup_mode=None): the rich layout labels every flag "<bool>".
    made = typer.Typer(help="Canasta: an exact rules engine, a referee and bots.",
                       no_args_is_help=True, rich_markup_mode=None, add_completion=False)
    made.callback()(_root)
    for module in modules:
        importlib.import_module(f"{__package__}.{module}").register(made)
    return made


def app_for(argv: list[str]) -> typer.Typer:
    """The app that runs ``argv`` (the arguments after ``canasta``): only the named command's
    module when the first argument names one, else the whole app."""
    module = _MODULE_OF.get(argv[0]) if argv else None
    return make_app((module,)) if module is not None else _whole()


_WHOLE: list[typer.Typer] = []


def _whole() -> typer.Typer:
    if not _WHOLE:
        _WHOLE.append(make_app())
    return _WHOLE[0]


app: typer.Typer  # the whole app: made on first read (module ``__getattr__``)


def __getattr__(name: str) -> typer.Typer:
    if name == "app":
        return _whole()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: the command stops as on Ctrl-C, closing records and ending bots."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated(signum)


def main() -> None:
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _terminate)
    app_for(sys.argv[1:])()


if __name__ == "__main__":
    main()
