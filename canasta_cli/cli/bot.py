"""``canasta bot``: tools for bot authors (the conformance check, built-in players as bots)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..botdev.ask import stderr_block
from ..botdev.check import Check, coverage_line, run_checks
from ..core import RulesError
from ..players import PLAYERS
from ..players.stdio import run
from ..seats.box import BoxPolicy
from ..seats.box import describe as describe_box
from ..util import package_data
from ..util.safetext import visible
from ..util.words import plural
from . import bounds
from .exitcodes import SEAT_FAILED
from .options import DEFAULT_BOX, BoxOptions, box_options, fail

bot_app = typer.Typer(help="Tools for bot authors.", no_args_is_help=True, rich_markup_mode=None)


def register(app: typer.Typer) -> None:
    app.add_typer(bot_app, name="bot")



@bot_app.command("check")
@box_options(ponder=False, writable=False)
def bot_check(command: Annotated[str | None, typer.Argument(
                  help="The bot's command line (default: the example bot, random_bot.py, with"
                  " this Python).")] = None,
              timeout_ms: Annotated[int, typer.Option(help="Time allowed per answer.")] = 5000,
              box: BoxOptions = DEFAULT_BOX,
              games: Annotated[int, typer.Option(
                  help="Also play this many one-hand games per ruleset against built-in"
                  " players, the bot in every seat in turn; the first failure is shown with"
                  " its stderr and a replay command.", min=0, max=100_000)] = 0,
              rules: Annotated[str, typer.Option(
                  "--rules", "-r", help="With --games: a preset, or 'all'.")] = "classic"
              ) -> None:
    """Conformance check: the handshake, every kind of request and the rule edges.

    Each check sets up a decision on a stacked deal, then plays the hand out with the bot in
    that seat (built-in greedy players in the others); the line "covered:" names the kinds of
    request the bot was asked and answered legally (draw, pile, pile opening, meld, add,
    discard, go-out question, go-out answer, forced take, stock end), and a check fails
    unless every kind was.  A failing check shows the end of the bot's stderr.  Exit codes:
    0 every check passed, 3 a check failed (the count on stderr), 2 usage errors."""
    if command is None:
        example = package_data.bots_dir() / "random_bot.py"
        if not example.is_file():
            raise fail(f"the example bot {example} is not there: give the bot's command line")
        command = shlex.join([sys.executable, str(example)])
        typer.echo(f"checking the example bot: {command}")
    bounds.enforce(bounds.check_command, command)
    bounds.enforce(bounds.check_ms, "--timeout-ms", timeout_ms)
    policy = box.setup([command], ponder=False)
    typer.echo(describe_box(policy))
    from ..botdev.games import presets
    try:
        presets(rules)
    except RulesError as exc:
        raise fail(str(exc)) from None
    tail: list[str] = []
    covered: list[str] = []
    played: list[str] = []
    checks = run_checks(command, timeout_ms / 1000, policy, stderr=tail, covered=covered,
                        played=played)
    for c in checks:
        typer.echo(f"{'PASS' if c.passed else 'FAIL'}  {c.name} ({c.ms:.0f} ms): {c.detail}")
    typer.echo(coverage_line(covered, played))
    failed = sum(1 for c in checks if not c.passed)
    if failed and tail and tail[0].strip():
        typer.echo("the end of the bot's stderr:")
        typer.echo(stderr_block(tail[0]))
    if games and not failed:
        failed += _games(command, games, rules, timeout_ms, policy)
        checks.append(Check("real games", not failed, "", 0))
    typer.echo(f"{len(checks) - failed} passed, {failed} failed")
    if failed:
        typer.echo(f"failed: {plural(failed, 'check')} of {len(checks)}", err=True)
        raise typer.Exit(SEAT_FAILED)


def _games(command: str, games: int, rules: str, timeout_ms: int, policy: BoxPolicy) -> int:
    """The real games of ``--games``: 0 when the bot never failed, else 1 (reported)."""
    from ..botdev.games import play_games
    played, failure = play_games(command, games, rules, timeout_ms, box=policy)
    if failure is None:
        typer.echo(f"PASS  real games: {plural(played, 'game')} without a failure")
        return 0
    typer.echo(f"FAIL  real games: game {failure.game} of {failure.rules} (seat {failure.seat}):"
               f" {visible(failure.reason)}")
    if failure.stderr.strip():
        typer.echo("the end of the bot's stderr:")
        typer.echo(stderr_block(failure.stderr))
    typer.echo("put that decision to the bot again (the game's record is kept there):"
               if failure.asks else
               "replay that game (its record and the bot's stderr log go to the --record"
               " folder):")
    typer.echo(failure.replay)
    return 1


@bot_app.command("ask")
@box_options(ponder=False, writable=False)
def bot_ask(command: Annotated[str, typer.Argument(help="The bot's command line.")],  # noqa: PLR0913 - Typer options
            record: Annotated[Path, typer.Argument(help="A finished game's record (match"
                                                   " --record, tournament OUT/records/), or"
                                                   " a seat's transcript (match --transcript"
                                                   " DIR: DIR/seatN.jsonl).")],
            decision: Annotated[int, typer.Option(
                help="The game's K-th move (from 1), or with --seat that seat's K-th"
                " decision; from a transcript, the seat's K-th decision of --game.",
                min=1, max=10_000_000)],
            seat: Annotated[int | None, typer.Option(help="The seat whose decision it is.",
                                                     min=0, max=5)] = None,
            game: Annotated[int | None, typer.Option(
                help="From a transcript: the game of the match (default: its first).",
                min=1, max=10_000_000)] = None,
            alone: Annotated[bool, typer.Option(
                "--alone", help="From a record: put the game to the bot as the first of its"
                " match, without playing it the earlier games' records beside it.")] = False,
            as_json: Annotated[bool, typer.Option("--json", help="Print the request, the"
                                                  " answer, the time and the stderr as"
                                                  " JSON.")] = False,
            box: BoxOptions = DEFAULT_BOX) -> None:
    """Put one recorded decision to a bot again, exactly as in the game (handshake, the
    match's earlier games, this game's events and earlier requests, then that request), and
    show its answer, its time and its stderr.  From a record, the earlier games of its match
    are the records game-NNNN.jsonl beside it (see --alone).  Exit codes: 0 the bot answered,
    3 it failed, 2 usage errors."""
    import json

    from ..botdev.ask import AskError, ask, match_before
    from ..botdev.asktranscript import ask_transcript, is_transcript, load_transcript
    from ..hosting.records import RecordError, load_record
    bounds.enforce(bounds.check_command, command)
    policy = box.setup([command], ponder=False)
    try:
        if is_transcript(record):
            if alone:
                raise AskError("--alone is for a record: a transcript holds the whole match")
            got = ask_transcript(command, load_transcript(record), decision, game, seat,
                                 box=policy)
        else:
            if game is not None:
                raise AskError("--game is for a transcript: a record holds one game")
            before = [] if alone else [list(load_record(p)) for p in match_before(record)]
            got = ask(command, list(load_record(record)), decision, seat, before=before,
                      box=policy)
    except (RecordError, AskError) as exc:
        raise fail(visible(str(exc))) from None
    typer.echo(json.dumps(got.to_json(), indent=2) if as_json else "\n".join(got.lines()))
    if got.failure is not None:
        typer.echo("failed: the bot did not answer", err=True)
        raise typer.Exit(SEAT_FAILED)


@bot_app.command("run")
def bot_run(
    name: Annotated[str, typer.Argument(
        help="A built-in player: search, greedy, random, or a level: easy, normal, hard.")],
    level: Annotated[str | None, typer.Option(
        help="With 'search': easy, normal or hard (hard: the search player).")] = None,
    ms: Annotated[int | None, typer.Option(
        help="search/hard: milliseconds per decision (default 900 for search, 400 for hard).",
        min=1, max=600000)] = None,
    deals: Annotated[int | None, typer.Option(
        help="search/hard: a fixed number of deals per decision instead of a time budget"
        " (reproducible given the seed, whatever the load).", min=1, max=100000)] = None,
    seed: int = 0,
) -> None:
    """Run a built-in player as a protocol bot on stdin/stdout, to play against it from any
    tooling: e.g. canasta match --seat "canasta bot run search --ms 200" ..."""
    kind = level if (name == "search" and level) else name
    if level is not None and name != "search":
        raise fail("--level goes with 'search' (or name the level itself: easy, normal, hard)")
    if kind not in PLAYERS:
        raise fail(f"unknown built-in player {kind!r}: choose one of {', '.join(PLAYERS)}")
    if (ms is not None or deals is not None) and kind not in ("search", "hard"):
        raise fail("--ms and --deals are for search and hard")
    budget = [f"ms={ms}"] * (ms is not None) + [f"deals={deals}"] * (deals is not None)
    player = PLAYERS[kind](seed, ",".join(budget))
    run(player, f"canasta bot run {kind}")


from . import botpolicy  # noqa: E402 - canasta bot policy (docs/ML.md)

botpolicy.register(bot_app)
