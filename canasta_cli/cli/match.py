"""``canasta match``: games between bots, and a results table."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from ..hosting.match import run_match
from ..hosting.referee import GameResult, TimeControl
from ..protocol.statuses import SeatStatus
from ..seats.contain import hide
from ..util.private_files import os_message
from ..util.safetext import visible
from . import bounds
from .exitcodes import seat_failed
from .options import (
    BANK_MS,
    DECISION_MS,
    DEFAULT_BOX,
    SPIN_US,
    STARTUP_MS,
    BankMsOpt,
    BoxOptions,
    DecisionMsOpt,
    HandOpt,
    RulesOpt,
    ScoresOpt,
    SetOpt,
    SpinUsOpt,
    StartupMsOpt,
    box_options,
    fail,
    load_rules,
    load_scores,
)


def register(app: typer.Typer) -> None:
    app.command()(box_options()(match))


def match(
    seat: Annotated[list[str], typer.Option(
        "--seat", "-s", help="A bot command line, or a built-in player: builtin:random,"
        " greedy, easy, normal, hard, search (NAME=... names the seat). One per player, seat 0"
        " first.")],
    games: Annotated[int, typer.Option(help="Games to play.", min=1)] = 1,
    seed: Annotated[int | None, typer.Option(
        help="Seed of game 1; game g uses seed + g - 1 (default: a fresh random seed per game,"
        " revealed in each record when the game is over).")] = None,
    rules: RulesOpt = "classic",
    set_: SetOpt = None,
    record: Annotated[Path | None, typer.Option(
        help="Directory for one JSON Lines record per game and the bots' stderr logs.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
    transcript: Annotated[Path | None, typer.Option(
        help="Directory for every seat's conversation with the referee (seatN.jsonl).")] = None,
    decision_ms: DecisionMsOpt = DECISION_MS,
    bank_ms: BankMsOpt = BANK_MS,
    startup_ms: StartupMsOpt = STARTUP_MS,
    on_failure: Annotated[str, typer.Option(
        help="After a bot fails: 'default' (the referee plays a default move) or 'forfeit'.")]
    = "default",
    spin_us: SpinUsOpt = SPIN_US,
    box: BoxOptions = DEFAULT_BOX,
    scores: ScoresOpt = None,
    hand: HandOpt = 1,
    as_game: Annotated[int | None, typer.Option(
        "--as-game", help="Play as game N of a tournament: games numbered from N, seats named"
        " by their NAME= alone, built-in players seeded as the tournament seeds them; with"
        " --seed (the deal's seed) the tournament's game plays again exactly (canasta report"
        " prints such commands).", min=1, max=10_000_000)] = None,
) -> None:
    """Play games between bots and print a results table.

    Bot stderr: --record DIR keeps seatN.stderr.log there; without it, the summary shows the
    end of each failing bot's stderr.  Exit codes: 0 every game finished and no seat failed, 3 a seat got
    a status (the count on stderr), 2 usage errors."""
    r = load_rules(rules, set_)
    if len(seat) != r.players:
        raise fail(f"{r.name} needs {r.players} seats (--seat ... once per player), got "
                    f"{len(seat)}")
    if on_failure not in ("default", "forfeit"):
        raise fail("--on-failure takes 'default' or 'forfeit'")
    start = load_scores(scores, r)
    box.setup(seat)
    bounds.enforce(bounds.check_match, seat, games, startup_ms, decision_ms, bank_ms, spin_us,
                   record, transcript)
    tc = TimeControl(startup_ms=startup_ms, decision_ms=decision_ms, bank_ms=bank_ms)
    hide(*(d for d in (record, transcript) if d is not None))
    try:
        result = run_match(seat, r, games, seed, record, tc,
                           "forfeit" if on_failure == "forfeit" else "default", transcript,
                           spin_us, box.sandbox, start, hand, as_game)
    except ValueError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:  # a full disk under --record: the lines written so far are kept
        raise fail(f"cannot write {visible(os_message(exc))}") from None
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
        _exit_on_failure(result.games)
        return
    label = "side" if r.partnerships else "player"
    seeds = (f"seeds {seed}..{seed + games - 1}" if seed is not None else
             "random seeds (each record reveals its game's when it is over)")
    typer.echo(f"{games} game{'' if games == 1 else 's'} of {r.name}, {seeds}")
    typer.echo(f"{label:<6}{'wins':>6}{'points':>10}{'per hand':>10}  seats")
    for row in result.side_table():
        typer.echo(f"{row['side']:<6}{row['wins']:>6}{row['points']:>10}"
                   f"{row['mean_per_hand']:>10.1f}  {visible(', '.join(row['seats']))}")
    draws = sum(1 for g in result.games if g.winner is None)
    if draws:
        typer.echo(f"draws: {draws}")
    for i, rep in enumerate(result.seat_summary()):
        if rep["status"] != SeatStatus.OK or rep["failures"]:
            typer.echo(f"seat {i} ({visible(rep['name'])}): {rep['status']} "
                       + ", ".join(f"{k} x{v}" for k, v in rep["failures"].items()))
            for err in rep["errors"][:3]:
                typer.echo(f"    {visible(err)}")
            tail = (result.stderr_tails or [""] * len(result.seats))[i].rstrip("\n")
            if tail and not record:
                typer.echo("    its stderr ended with:")
                for line in tail.splitlines()[-5:]:
                    typer.echo(f"      {visible(line)}")
    typer.echo(f"records and bot stderr logs in {record}" if record else
               "bot stderr is not kept: --record DIR keeps it with each game's record")
    _exit_on_failure(result.games)


def _exit_on_failure(games: list[GameResult]) -> None:
    """Exit code 3 when a seat got a status in some game (exitcodes.py)."""
    statuses: Counter[str] = Counter()
    bad = 0
    for g in games:
        got = [s["status"] for s in g.seats if s["status"] != SeatStatus.OK]
        statuses.update(got)
        bad += bool(got)
    if bad:
        raise seat_failed(bad, statuses)
