"""``canasta bot``: tools for bot authors (the conformance check, built-in players as bots)."""

from __future__ import annotations

import shlex
import sys
from typing import Annotated

import typer

from .. import package_data
from ..botcheck import run_checks
from ..players import PLAYERS
from ..players.stdio import run
from . import bounds
from .options import (
    BotDiskOpt,
    BotMemoryOpt,
    BotProcsOpt,
    SandboxOpt,
    UnboxedOpt,
    fail,
    setup_box,
)

bot_app = typer.Typer(help="Tools for bot authors.", no_args_is_help=True, rich_markup_mode=None)


def register(app: typer.Typer) -> None:
    app.add_typer(bot_app, name="bot")



@bot_app.command("check")
def bot_check(command: Annotated[str | None, typer.Argument(
                  help="The bot's command line (default: the example bot, random_bot.py, with"
                  " this Python).")] = None,
              timeout_ms: Annotated[int, typer.Option(help="Time allowed per answer.")] = 5000,
              sandbox: SandboxOpt = False, unboxed: UnboxedOpt = False,
              bot_memory: BotMemoryOpt = 1024, bot_procs: BotProcsOpt = 64,
              bot_disk: BotDiskOpt = 64) -> None:
    """Conformance check: the handshake, every request type and the rule edges."""
    if command is None:
        example = package_data.bots_dir() / "random_bot.py"
        if not example.is_file():
            raise fail(f"the example bot {example} is not there: give the bot's command line")
        command = shlex.join([sys.executable, str(example)])
        typer.echo(f"checking the example bot: {command}")
    bounds.enforce(bounds.check_command, command)
    bounds.enforce(bounds.check_ms, "--timeout-ms", timeout_ms)
    setup_box([command], sandbox, unboxed, False, bot_memory, bot_procs, bot_disk, None)
    checks = run_checks(command, timeout_ms / 1000)
    for c in checks:
        typer.echo(f"{'PASS' if c.passed else 'FAIL'}  {c.name} ({c.ms:.0f} ms): {c.detail}")
    failed = sum(1 for c in checks if not c.passed)
    typer.echo(f"{len(checks) - failed} passed, {failed} failed")
    if failed:
        raise typer.Exit(1)


@bot_app.command("run")
def bot_run(
    name: Annotated[str, typer.Argument(
        help="A built-in player: search, greedy, random, or a level: easy, normal, hard.")],
    level: Annotated[str | None, typer.Option(
        help="With 'search': easy, normal or hard (hard: the search player).")] = None,
    ms: Annotated[int | None, typer.Option(
        help="search/hard: milliseconds per decision (default 900 for search, 400 for hard).",
        min=1, max=600000)] = None,
    seed: int = 0,
) -> None:
    """Run a built-in player as a protocol bot on stdin/stdout, to play against it from any
    tooling: e.g. canasta match --seat "canasta bot run search --ms 200" ..."""
    kind = level if (name == "search" and level) else name
    if level is not None and name != "search":
        raise fail("--level goes with 'search' (or name the level itself: easy, normal, hard)")
    if kind not in PLAYERS:
        raise fail(f"unknown built-in player {kind!r}: choose one of {', '.join(PLAYERS)}")
    if ms is not None and kind not in ("search", "hard"):
        raise fail("--ms is for search and hard")
    player = PLAYERS[kind](seed, str(ms) if ms is not None else "")
    run(player, f"canasta bot run {kind}")


from . import botpolicy  # noqa: E402 - canasta bot policy (docs/ML.md)

botpolicy.register(bot_app)
