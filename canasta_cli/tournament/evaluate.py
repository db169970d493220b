"""Evaluation in one call: a player against an opponent on duplicate deals, in-process, as
``canasta tournament`` schedules, seats, plays and counts them (``evaluate``).

The deals, their seeds and seatings are the tournament's (``schedule``), each game is seated
as ``runner.play_task`` seats one (built-ins seeded from the deal's seed and the seat, a bot
command a fresh boxed process per game) and played by the referee, and the numbers are the
tournament's (``runner.outcome``, ``stats.standings``): with the same two names, deals, seed
and rules, ``canasta tournament`` prints the same.  A trained policy plays through
``canasta_cli.env.as_player`` (this room may not import the environment's, so the caller
wraps it: ``evaluate(lambda: as_player(policy), ...)``); docs/ML.md shows it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core import Ruleset, preset
from ..hosting.referee import Referee, TimeControl
from ..protocol.statuses import FAILURES
from ..seats import PolicySeat, SubprocessSeat, builtin_seat
from ..seats.base import Seat
from ..seats.box import DEFAULT_POLICY, BoxPolicy
from ..util.seat_names import split_name
from .runner import outcome, play_seated, task_row
from .schedule import Task, schedule
from .stats import paired_diffs, standings

Player = Callable[[dict[str, Any]], dict[str, Any] | None]
# A seat for (seat index, the deal's seed): how one of the two plays in a game.
_SeatMaker = Callable[[int, int], Seat]
HOW = ("a seat spec ('builtin:NAME' or a bot's command line, either as NAME=SPEC) or a"
       " function of no arguments that makes a protocol player (for a policy: lambda:"
       " canasta_cli.env.as_player(policy))")


@dataclass(frozen=True)
class EvalOptions:
    """``evaluate``'s less common settings.  ``names``: the two bots' names, which the deals'
    seeds derive from as in a tournament (default: the NAME= of a spec, else "player" and
    "opponent"); ``whole_games``: play each deal as a whole game (default: one hand,
    ``max_hands=1``); the clock and the box of a tournament."""

    names: tuple[str, str] | None = None
    whole_games: bool = False
    time_control: TimeControl = TimeControl()
    box: BoxPolicy = DEFAULT_POLICY


@dataclass(frozen=True)
class Evaluation:
    """The player's results, as ``canasta tournament``'s standings give them for it: the
    mean score difference per duplicate deal (its side less the opponent's, each deal's
    seatings averaged) with the half-width of its 95% interval, the games won, lost and
    drawn, the performance Elo with its 95% interval, and the player's seat failures."""

    names: tuple[str, str]
    rules: Ruleset
    seed: int
    games: int
    diffs: tuple[float, ...]  # the score difference of each duplicate deal, in deal order
    mean_diff: float
    ci95: float
    wins: int
    losses: int
    draws: int
    elo: float
    elo_low: float
    elo_high: float
    failures: dict[str, int]
    rows: tuple[dict[str, Any], ...]  # the games, as the tournament's games.jsonl rows


def evaluate(player: Any, opponents: Any = "builtin:greedy", *, deals: int = 100,
             seed: int = 0, rules: Ruleset | str = "classic",
             options: EvalOptions | None = None) -> Evaluation:
    """``player`` against ``opponents`` (each: ``HOW``) on ``deals`` duplicate deals, each
    played in every seating, from the master ``seed`` under ``rules`` (a preset name or a
    Ruleset), one hand a deal unless ``options.whole_games``.  The same as
    ``canasta tournament --bot A=... --bot B=... --games DEALS --seed SEED --rules R --set
    max_hands=1`` (A and B: ``names``)."""
    opts = options or EvalOptions()
    ruleset = preset(rules) if isinstance(rules, str) else rules
    if not opts.whole_games:
        ruleset = ruleset.with_options(max_hands=1)
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise ValueError(f"deals must be a positive whole number, not {deals!r}")
    names = opts.names or (_name(player, "player"), _name(opponents, "opponent"))
    if names[0] == names[1]:
        raise ValueError(f"the two need different names, not both {names[0]!r}")
    makers = {names[0]: _maker(player, names[0], opts.box),
              names[1]: _maker(opponents, names[1], opts.box)}
    tasks = schedule(list(names), "round-robin", deals, ruleset, seed)
    rows = tuple(_play(task, makers, ruleset, opts.time_control) for task in tasks)
    outcomes = [outcome(row, ruleset) for row in rows]
    mine = standings(outcomes, list(names))[0]
    failures = {str(status): 0 for status in FAILURES}
    for row in rows:
        for seat, counts in enumerate(row["failures"]):
            if row["seating"][seat] == names[0]:
                for status, k in counts.items():
                    failures[str(status)] = failures.get(str(status), 0) + k
    return Evaluation(names, ruleset, seed, len(rows),
                      tuple(paired_diffs(outcomes).get(names, [])), mine["mean_diff"],
                      mine["ci95"], mine["wins"], mine["losses"], mine["draws"], mine["elo"],
                      mine["elo_low"], mine["elo_high"], failures, rows)


def _name(spec: Any, default: str) -> str:
    return (split_name(spec.strip())[0] or default) if isinstance(spec, str) else default


def _maker(spec: Any, name: str, box: BoxPolicy) -> _SeatMaker:
    """How ``spec`` is seated in a game, as ``runner.play_task`` seats a tournament's bot."""
    if isinstance(spec, str) and spec.strip():
        command = split_name(spec.strip())[1]
        if command.startswith("builtin:"):
            builtin_seat(command)  # an unknown name is refused before any game

            def builtin(i: int, seed: int) -> Seat:
                seat = builtin_seat(command, seed + 7919 * i)
                seat.name = name
                return seat
            return builtin
        return lambda i, seed: SubprocessSeat(command, name=name, spin_us=0, box=box)
    if callable(spec) and _no_arguments(spec):
        return lambda i, seed: PolicySeat(name, spec())
    raise ValueError(f"evaluate takes {HOW}, not {spec!r:.60}")


def _no_arguments(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True  # a builtin without a signature: let the call say
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in params)


def _play(task: Task, makers: dict[str, _SeatMaker], rules: Ruleset,
          time_control: TimeControl) -> dict[str, Any]:
    """One scheduled game, as ``runner.play_task`` plays it, as its row."""
    seats = [makers[name](i, task.seed) for i, name in enumerate(task.seating)]
    fresh = [s for s in seats if isinstance(s, SubprocessSeat)]
    return task_row(task, play_seated(task, Referee(seats, rules, time_control), fresh))
