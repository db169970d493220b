"""``canasta bench levels``: time per decision of each built-in level."""

from __future__ import annotations

import os
import statistics
import time
from typing import Annotated

import typer

from ..commands.options import RulesOpt, load_rules
from ..players import LEVELS, PLAYERS
from ..referee import Referee
from ..seats import builtin_seat
from ..seats.base import Message, Seat
from ..seats.policy import Policy, PolicySeat


def register(bench_app: typer.Typer) -> None:
    bench_app.command("levels")(bench_levels_cmd)


def _timed(player: Policy, times: list[float]) -> Policy:
    """``player``, with the time of each of its decisions (act requests) appended to ``times``."""
    def timed(msg: Message) -> Message | None:
        if msg.get("type") != "act":
            return player(msg)
        t0 = time.perf_counter()
        reply = player(msg)
        times.append((time.perf_counter() - t0) * 1000)
        return reply
    return timed


def bench_levels_cmd(
    rules: RulesOpt = "two-player",
    games: Annotated[int, typer.Option(help="One-hand games per level.", min=1)] = 4,
    seed: int = 0,
) -> None:
    """Time per decision of each built-in level (mean and 99th percentile), each playing
    one-hand games against builtin:greedy, with the load average."""
    r = load_rules(rules, ["max_hands=1"])
    typer.echo(f"{'level':<8}{'decisions':>10}{'mean ms':>10}{'p99 ms':>10}{'max ms':>10}")
    for level in (*LEVELS, "search"):
        times: list[float] = []
        seats: list[Seat] = [PolicySeat(level, _timed(PLAYERS[level](seed, ""), times))]
        seats += [builtin_seat("builtin:greedy", i) for i in range(1, r.players)]
        ref = Referee(seats, r)
        for g in range(games):
            ref.play(g + 1, seed=seed + g)
        times.sort()
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        typer.echo(f"{level:<8}{len(times):>10}{statistics.mean(times):>10.1f}{p99:>10.1f}"
                   f"{times[-1]:>10.1f}")
    typer.echo(f"load average: {os.getloadavg()[0]:.2f}")
