"""Matches: several games between the same seats, and their summary table."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core import Ruleset
from ..protocol.statuses import SeatStatus
from ..seats import Seat, builtin_seat, make_seat
from ..seats.box import DEFAULT_POLICY, BoxPolicy
from ..seats.transcript import TranscriptSeat
from ..util.safetext import visible
from ..util.seat_names import split_name
from ..util.seeds import fresh_seed
from .referee import FailurePolicy, GameResult, GameStart, Referee, TimeControl


@dataclass
class MatchResult:
    rules: Ruleset
    seats: list[str]
    games: list[GameResult]
    log_dir: Path | None  # where the bots' stderr logs are (--record); else none are kept
    stderr_tails: list[str] | None = None  # per seat: the end of its stderr ("" for none)

    def side_table(self) -> list[dict[str, Any]]:
        rows = []
        for side in range(self.rules.sides):
            hands = sum(g.hands for g in self.games)
            points = sum(g.scores[side] for g in self.games)
            rows.append({
                "side": side,
                "seats": [self.seats[s] for s in self.rules.seats_of(side)],
                "wins": sum(1 for g in self.games if g.winner == side),
                "points": points,
                "mean_per_hand": round(points / hands, 1) if hands else 0.0,
            })
        return rows

    def seat_summary(self) -> list[dict[str, Any]]:
        """Per seat over the whole match: the worst status and every failure counted."""
        out = []
        for i, name in enumerate(self.seats):
            failures: dict[str, int] = {}
            status, errors = SeatStatus.OK, list[str]()
            for g in self.games:
                rep = g.seats[i]
                for k, v in rep["failures"].items():
                    failures[k] = failures.get(k, 0) + v
                if rep["status"] != SeatStatus.OK and status == SeatStatus.OK:
                    status = rep["status"]
                errors += [e for e in rep["errors"] if e not in errors][:3 - len(errors)]
            out.append({"name": name, "status": status, "failures": failures,
                        "errors": errors})
        return out

    def to_json(self) -> dict[str, Any]:
        return {"rules": self.rules.to_dict(), "seats": self.seats,
                "games": [g.to_json() for g in self.games], "sides": self.side_table(),
                "draws": sum(1 for g in self.games if g.winner is None),
                "seat_status": self.seat_summary(),
                "logs": str(self.log_dir) if self.log_dir else None}


def game_seeds(games: int, seed: int | None) -> list[int]:
    """Game g is played from seed ``seed + g - 1``; with no seed, each game gets a fresh
    random one (revealed in its record when it is over), so that no game's deal follows from
    another's."""
    if seed is not None:
        return [seed + g for g in range(games)]
    return [fresh_seed() for _ in range(games)]


@dataclass(frozen=True)
class MatchPlan:
    """One ``canasta match``, as its options give it: who sits where, what is played, where
    the records go and the box the bots run in.  ``as_game``: number the first game so and set
    the seats up as a tournament does for its game of that number (seats named by their NAME=
    alone, built-in players seeded from the deal's seed), so that a tournament's game plays
    again exactly."""

    seats: tuple[str, ...]
    rules: Ruleset
    games: int = 1
    seed: int | None = None  # see ``game_seeds``
    record_dir: Path | None = None
    time_control: TimeControl = TimeControl()
    on_failure: FailurePolicy = "default"
    transcript_dir: Path | None = None
    spin_us: int = 300
    box: BoxPolicy = DEFAULT_POLICY
    scores: tuple[int, ...] | None = None  # the game's scores before its first hand
    hand_no: int = 1
    as_game: int | None = None


def run(plan: MatchPlan) -> MatchResult:
    """Play the plan's games.  Bots stay alive across games; see ``game_seeds`` for the seeds.
    The bots' stderr is logged beside the records; without records no file is left, and the
    end of each bot's stderr is kept in memory for the summary."""
    seeds = game_seeds(plan.games, plan.seed)
    seats = _seats(plan, seeds[0])
    referee = Referee(seats, plan.rules, plan.time_control, plan.on_failure, plan.record_dir)
    first = plan.as_game or 1
    scores = list(plan.scores) if plan.scores is not None else None
    results = []
    try:
        for g in range(1, plan.games + 1):
            start = GameStart(scores=scores, hand_no=plan.hand_no)
            results.append(referee.play(first + g - 1, seeds[g - 1], start))
        referee.end_match(results)
    finally:
        referee.close()
    tails = [seat_stderr_tail(s) for s in seats]
    return MatchResult(plan.rules, list(plan.seats), results, plan.record_dir, tails)


def _seats(plan: MatchPlan, seed: int) -> list[Seat]:
    seats: list[Seat] = [make_seat(spec, i, seed, plan.record_dir, plan.spin_us, plan.box)
                         for i, spec in enumerate(plan.seats)]
    if plan.as_game is not None:
        for i, spec in enumerate(plan.seats):
            name, command = split_name(spec.strip())
            if command.startswith("builtin:"):
                seats[i] = builtin_seat(command, seed + 7919 * i)
            seats[i].name = name or command
    if plan.transcript_dir is not None:
        folder = plan.transcript_dir
        seats = [TranscriptSeat(s, folder / f"seat{i}.jsonl") for i, s in enumerate(seats)]
    return seats


def summary_lines(plan: MatchPlan, result: MatchResult) -> list[str]:
    """The results table ``canasta match`` prints: sides, draws, each failing seat with its
    errors (and the end of its stderr when no record keeps it), where the logs are."""
    label = "side" if plan.rules.partnerships else "player"
    seed, games = plan.seed, plan.games
    seeds = (f"seeds {seed}..{seed + games - 1}" if seed is not None else
             "random seeds (each record reveals its game's when it is over)")
    lines = [f"{games} game{'' if games == 1 else 's'} of {plan.rules.name}, {seeds}",
             f"{label:<6}{'wins':>6}{'points':>10}{'per hand':>10}  seats"]
    for row in result.side_table():
        lines.append(f"{row['side']:<6}{row['wins']:>6}{row['points']:>10}"
                     f"{row['mean_per_hand']:>10.1f}  {visible(', '.join(row['seats']))}")
    draws = sum(1 for g in result.games if g.winner is None)
    if draws:
        lines.append(f"draws: {draws}")
    for i, rep in enumerate(result.seat_summary()):
        if rep["status"] != SeatStatus.OK or rep["failures"]:
            lines += _failing_seat(plan, result, i, rep)
    lines.append(f"records and bot stderr logs in {plan.record_dir}" if plan.record_dir else
                 "bot stderr is not kept: --record DIR keeps it with each game's record")
    return lines


def _failing_seat(plan: MatchPlan, result: MatchResult, i: int, rep: dict[str, Any]) -> list[str]:
    lines = [f"seat {i} ({visible(rep['name'])}): {rep['status']} "
             + ", ".join(f"{k} x{v}" for k, v in rep["failures"].items())]
    lines += [f"    {visible(err)}" for err in rep["errors"][:3]]
    tail = (result.stderr_tails or [""] * len(result.seats))[i].rstrip("\n")
    if tail and not plan.record_dir:
        lines.append("    its stderr ended with:")
        lines += [f"      {visible(line)}" for line in tail.splitlines()[-5:]]
    return lines


def seat_stderr_tail(seat: Seat, limit: int = 2048) -> str:
    """The end of a bot's stderr ("" for a seat that is no bot process)."""
    inner = getattr(seat, "inner", seat)  # a transcript seat wraps the bot
    tail = getattr(inner, "stderr_tail", None)
    return tail(limit) if callable(tail) else ""
