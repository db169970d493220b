"""The bot the protocol and tournament benches time when no --bot is given."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..cli.options import fail
from ..util import package_data

BotOpt = Annotated[str, typer.Option(help="Bot command (default: bots/random_bot.py with this"
                                        " Python).")]


def bots_dir() -> Path:
    return package_data.bots_dir()


def bench_bot(bot: str) -> list[str]:
    """``--bot`` as an argument list: a built-in spec, the given command, or the example bot."""
    if bot.startswith("builtin:"):
        return [bot]
    if bot:
        return shlex.split(bot)
    default = bots_dir() / "random_bot.py"
    if not default.is_file():
        # Timing a bot that cannot start would only time the referee's default moves.
        raise fail(f"the example bot {default} is not there (an install without the package's"
                   " data?): pass --bot 'COMMAND', e.g. --bot 'python3 path/to/bots/random_bot.py'")
    return [sys.executable, str(default)]
