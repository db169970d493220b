"""``canasta bench engine``: random legal play, timed.  Lives outside the core because it reads
the clock."""

from __future__ import annotations

import os
import random
import resource
import time
from dataclasses import dataclass
from typing import Annotated

import typer

from ..cli.options import fail, load_rules
from ..core import PRESETS, Ruleset, apply, legal_moves, new_game
from ..util.build import engine_build
from .compare import CompareError, compare, summary


@dataclass(frozen=True)
class EngineBench:
    rules: str
    players: int
    hands: int
    decisions: int
    seconds: float
    mean_moves: float
    max_moves: int

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds else 0.0

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0


def bench_engine(rules: Ruleset, hands: int, seed: int = 0) -> EngineBench:
    """Play at least ``hands`` hands of uniformly random legal moves (whole games, new seeds)."""
    rng = random.Random(seed)
    played = decisions = total_moves = max_moves = 0
    game = 0
    start = time.perf_counter()
    while played < hands:
        state = new_game(rules, seed=seed * 100_003 + game)
        game += 1
        while not state.is_over and played + len(state.results) < hands:
            moves = legal_moves(state)
            n = len(moves)
            decisions += 1
            total_moves += n
            if n > max_moves:
                max_moves = n
            state = apply(state, moves[rng.randrange(n)])
        played += len(state.results)
    seconds = time.perf_counter() - start
    return EngineBench(rules.name, rules.players, played, decisions, seconds,
                       total_moves / decisions if decisions else 0.0, max_moves)


def register(bench_app: typer.Typer) -> None:
    bench_app.command("engine")(bench_engine_cmd)


def bench_engine_cmd(
    hands: Annotated[int, typer.Option(help="Hands to play per preset.")] = 2000,
    seed: int = 0,
    rules: Annotated[list[str] | None, typer.Option(
        "--rules", "-r", help="Presets to measure (default: all).")] = None,
    compare_: Annotated[str | None, typer.Option(
        "--compare",
        help="A git revision to compare with (e.g. 3ce4f47): fresh processes, interleaved this,"
        " REV, this, REV...; prints the hands/s ratio per round, its median and spread, the load"
        " average, and whether both played the same games.")] = None,
    rounds: Annotated[int, typer.Option(help="Rounds with --compare.", min=1)] = 3,
) -> None:
    """Random legal play: hands/s, decisions/s, mean and max legal moves per decision."""
    names = rules or list(PRESETS)
    if compare_ is not None:
        typer.echo(f"load average at start: {os.getloadavg()[0]:.2f}; {hands} hands per run")
        try:
            done = compare(compare_, names, hands, rounds, typer.echo)
        except CompareError as exc:
            raise fail(str(exc)) from None
        for line in summary(done, compare_):
            typer.echo(line)
        typer.echo(f"load average at end: {os.getloadavg()[0]:.2f}")
        return
    typer.echo(f"{'preset':<14}{'players':>8}{'hands':>8}{'hands/s':>10}{'decisions/s':>13}"
               f"{'mean moves':>12}{'max moves':>11}")
    for name in names:
        r = load_rules(name, None)
        b = bench_engine(r, hands, seed)
        typer.echo(f"{name:<14}{r.players:>8}{b.hands:>8}{b.hands_per_second:>10.0f}"
                   f"{b.decisions_per_second:>13.0f}{b.mean_moves:>12.1f}{b.max_moves:>11}")
    typer.echo(f"{engine_build()} engine; peak memory {peak_memory_mb():.1f} MB;"
               f" load average {os.getloadavg()[0]:.2f}")


def peak_memory_mb() -> float:
    """This process's peak resident memory (Linux reports it in kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
