"""Matches: several games between the same seats, and their summary table."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core import Ruleset
from ..protocol.statuses import SeatStatus
from ..seats import Seat, builtin_seat, make_seat
from ..seats.transcript import TranscriptSeat
from ..util.seat_names import split_name
from ..util.seeds import fresh_seed
from .referee import FailurePolicy, GameResult, Referee, TimeControl


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


def run_match(specs: list[str], rules: Ruleset, games: int, seed: int | None,
              record_dir: Path | None, time_control: TimeControl,
              on_failure: FailurePolicy = "default",
              transcript_dir: Path | None = None, spin_us: int = 300,
              sandbox: bool = False, scores: list[int] | None = None,
              hand_no: int = 1, as_game: int | None = None) -> MatchResult:
    """Bots stay alive across games; see ``game_seeds`` for the seeds.  The bots' stderr is
    logged beside the records; without records no file is left, and the end of each bot's
    stderr is kept in memory for the summary.  ``as_game``: number the first game so and set
    the seats up as a tournament does for its game of that number (seats named by their NAME=
    alone, built-in players seeded from the deal's seed), so that a tournament's game plays
    again exactly."""
    seeds = game_seeds(games, seed)
    log_dir = record_dir
    seats: list[Seat] = [make_seat(spec, i, seeds[0], log_dir, spin_us, sandbox)
                         for i, spec in enumerate(specs)]
    first = 1
    if as_game is not None:
        first = as_game
        for i, spec in enumerate(specs):
            name, command = split_name(spec.strip())
            if command.startswith("builtin:"):
                seats[i] = builtin_seat(command, seeds[0] + 7919 * i)
            seats[i].name = name or command
    if transcript_dir is not None:
        seats = [TranscriptSeat(s, transcript_dir / f"seat{i}.jsonl") for i, s in enumerate(seats)]
    referee = Referee(seats, rules, time_control, on_failure, record_dir)
    results = []
    try:
        for g in range(1, games + 1):
            results.append(referee.play(first + g - 1, seed=seeds[g - 1], scores=scores,
                                        hand_no=hand_no))
        referee.end_match(results)
    finally:
        referee.close()
    tails = [seat_stderr_tail(s) for s in seats]
    return MatchResult(rules, specs, results, log_dir, tails)


def seat_stderr_tail(seat: Seat, limit: int = 2048) -> str:
    """The end of a bot's stderr ("" for a seat that is no bot process)."""
    inner = getattr(seat, "inner", seat)  # a transcript seat wraps the bot
    tail = getattr(inner, "stderr_tail", None)
    return tail(limit) if callable(tail) else ""
