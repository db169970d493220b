"""``canasta match``: games between bots, and a results table."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from ..hosting.match import MatchPlan, run, summary_lines
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


def match(  # noqa: PLR0913 - Typer options
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
    policy = box.setup(seat)
    plan = MatchPlan(
        tuple(seat), r, games, seed, record,
        TimeControl(startup_ms=startup_ms, decision_ms=decision_ms, bank_ms=bank_ms),
        "forfeit" if on_failure == "forfeit" else "default", transcript, spin_us, policy,
        tuple(start) if start is not None else None, hand, as_game)
    bounds.enforce(bounds.check_match, plan)
    hide(*(d for d in (record, transcript) if d is not None))
    try:
        result = run(plan)
    except ValueError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:  # a full disk under --record: the lines written so far are kept
        raise fail(f"cannot write {visible(os_message(exc))}") from None
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
    else:
        for line in summary_lines(plan, result):
            typer.echo(line)
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
