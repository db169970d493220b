"""``canasta bench levels``: time per decision of each built-in level, and deals per decision."""

from __future__ import annotations

import os
import statistics
import time
from typing import Annotated, Any

import typer

from ..cli.options import RulesOpt, fail, load_rules
from ..hosting.referee import Referee
from ..players import LEVELS, PLAYERS
from ..seats import builtin_seat
from ..seats.base import Message, Seat
from ..seats.policy import Policy, PolicySeat


def register(bench_app: typer.Typer) -> None:
    bench_app.command("levels")(bench_levels_cmd)


def _timed(player: Policy, times: list[float], cpu: list[float], deals: list[int],
           search_cpu: list[float]) -> Policy:
    """``player``, with the wall and CPU time of each of its decisions (act requests) and its
    deals (a search player's) appended to the lists, and the CPU time of each decision that
    dealt (for deals per CPU second: on a loaded machine a wall-clock budget buys a varying
    share of a core)."""
    def timed(msg: Message) -> Message | None:
        if msg.get("type") != "act":
            return player(msg)
        t0, c0 = time.perf_counter(), time.process_time()
        reply = player(msg)
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        evidence: Any = getattr(player, "evidence", None)
        if evidence is not None:
            deals.append(int(evidence.deals))
            search_cpu.append(cpu[-1])
        return reply
    return timed


def _p99(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.99 * len(xs)))]


def bench_levels_cmd(
    rules: RulesOpt = "two-player",
    games: Annotated[int, typer.Option(help="One-hand games per level.", min=1)] = 4,
    seed: int = 0,
    level: Annotated[list[str] | None, typer.Option(
        help="A level or builtin name to time, e.g. hard, search:100, search:deals=30"
        " (repeatable; default: every level and search).")] = None,
) -> None:
    """Time per decision of each built-in level (mean and 99th percentile of the wall clock,
    mean CPU, and for a time budget how far the 99th percentile ran past it), with deals per
    decision and per CPU second, each playing one-hand games against builtin:greedy, with the
    load average."""
    r = load_rules(rules, ["max_hands=1"])
    typer.echo(f"{'level':<18}{'decisions':>10}{'mean ms':>9}{'p99 ms':>9}{'max ms':>9}"
               f"{'cpu ms':>8}{'deals':>7}{'p99 over':>10}{'deals/cpu-s':>13}")
    for name in level or [*LEVELS, "search"]:
        kind, _, arg = name.removeprefix("builtin:").partition(":")
        try:
            builtin_seat(f"builtin:{name.removeprefix('builtin:')}")
        except ValueError as exc:
            raise fail(f"--level {name!r}: {exc}") from None
        times: list[float] = []
        cpu: list[float] = []
        deals: list[int] = []
        search_cpu: list[float] = []
        player = PLAYERS[kind](seed, arg)
        seats: list[Seat] = [PolicySeat(name, _timed(player, times, cpu, deals, search_cpu))]
        seats += [builtin_seat("builtin:greedy", i) for i in range(1, r.players)]
        ref = Referee(seats, r)
        for g in range(games):
            ref.play(g + 1, seed=seed + g)
        budget = getattr(player, "budget_ms", None)
        timed_budget = budget is not None and getattr(player, "simulations", 0) is None
        over = f"{_p99(times) - min(float(budget or 0), 800.0):+.1f}" if timed_budget else "-"
        mean_deals = f"{statistics.mean(deals):.0f}" if deals else "-"
        rate = f"{1000 * sum(deals) / sum(search_cpu):.0f}" if deals and sum(search_cpu) else "-"
        typer.echo(f"{name:<18}{len(times):>10}{statistics.mean(times):>9.1f}{_p99(times):>9.1f}"
                   f"{max(times):>9.1f}{statistics.mean(cpu):>8.1f}{mean_deals:>7}{over:>10}"
                   f"{rate:>13}")
    typer.echo(f"load average: {os.getloadavg()[0]:.2f}")
