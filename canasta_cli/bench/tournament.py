"""``canasta bench tournament``: games per second at concurrency 1 and 2, interleaved."""

from __future__ import annotations

import os
import resource
import shlex
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from ..core import CLASSIC
from ..protocol.statuses import SeatStatus
from .example_bot import BotOpt, bench_bot


@dataclass(frozen=True)
class TournamentRun:
    concurrency: int
    seconds: float
    cpu: float        # CPU seconds used by this process and its children
    load: float       # 1-minute load average at the end of the run

    @property
    def cores(self) -> float:
        """Cores kept busy on average: a game that already keeps u cores busy at concurrency
        1 cannot run more than 2/u times faster on two cores."""
        return self.cpu / self.seconds if self.seconds else 0.0


@dataclass(frozen=True)
class TournamentBench:
    games: int
    runs: list[TournamentRun]  # in the order they ran: 1, 2, 1, 2...
    failed_games: int = 0  # of the last run's games, those where a seat ended with a status
    first_failure: str = ""  # the first such seat's status and why

    def rate(self, run: TournamentRun) -> float:
        return self.games / run.seconds if run.seconds else 0.0

    def speedups(self) -> list[float]:
        """Per round, games/s at concurrency 2 over games/s at 1 (runs taken in pairs)."""
        out = []
        for a, b in zip(self.runs[::2], self.runs[1::2], strict=True):
            out.append(self.rate(b) / self.rate(a) if self.rate(a) else 0.0)
        return out


def _cpu_seconds() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def bench_tournament(bot: list[str], deals: int = 20, seed: int = 0, hands: int = 1,
                     rounds: int = 3, reuse_bots: bool = False) -> TournamentBench:
    """Games per second of a two-bot tournament (``hands``-hand games) at concurrency 1 and
    2, interleaved (1, 2, 1, 2...) so that machine drift touches both alike, each run from
    scratch, with the CPU time it took and the load average."""
    from ..tournament.failures import failed
    from ..tournament.runner import Executor, InlineExecutor, LocalExecutor, TournamentPlan, run_tournament
    command = " ".join(shlex.quote(a) for a in bot)
    bots = {"a": command, "b": command}
    rules = CLASSIC.with_options(max_hands=hands)
    runs: list[TournamentRun] = []
    games = 0
    failed_rows: list[dict[str, Any]] = []
    for _ in range(rounds):
        for k in (1, 2):
            with tempfile.TemporaryDirectory() as tmp:
                executor: Executor = LocalExecutor(k) if k > 1 else InlineExecutor()
                c0 = _cpu_seconds()
                t0 = time.perf_counter()
                try:
                    state = run_tournament(TournamentPlan(
                        bots, "round-robin", deals, rules, seed, Path(tmp), k,
                        reuse_bots=reuse_bots), executor)
                finally:
                    executor.close()
                runs.append(TournamentRun(k, time.perf_counter() - t0, _cpu_seconds() - c0,
                                          os.getloadavg()[0]))
                games = len(state.rows)
                failed_rows = [r for r in state.rows.values() if failed(r)]
    first = ""
    if failed_rows:
        row = failed_rows[0]
        seat, status = next((i, st) for i, st in enumerate(row["status"]) if st != SeatStatus.OK)
        why = (row.get("why") or [None] * (seat + 1))[seat]
        first = f"{status}: {why}" if why else status
    return TournamentBench(games, runs, len(failed_rows), first)


def register(bench_app: typer.Typer) -> None:
    bench_app.command("tournament")(bench_tournament_cmd)


def bench_tournament_cmd(
    bot: BotOpt = "",
    games: Annotated[int, typer.Option(help="Duplicate deals (two games each).", min=1)] = 100,
    hands: Annotated[int, typer.Option(help="Hands per game (max_hands).", min=1)] = 1,
    rounds: Annotated[int, typer.Option(help="Rounds of concurrency 1 then 2.", min=1)] = 3,
    reuse_bots: Annotated[bool, typer.Option(
        "--reuse-bots", help="Keep bot processes between games, as tournament"
        " --reuse-bots does.")] = False,
    records_cost: Annotated[bool, typer.Option(
        "--records-cost", help="Instead: the same games with and without the record every"
        " game is kept in memory for (so that a failed game keeps it), interleaved, each run"
        " in a fresh process: time, CPU and peak memory.")] = False,
) -> None:
    """Games per second with concurrency 1 and 2, interleaved, the speed-up per round and its
    median, the cores each run kept busy and the load average.  --bot builtin:random measures
    the runner itself (each game one process); a subprocess bot adds the bots' own work, which
    already runs in parallel."""
    t0_load = os.getloadavg()[0]
    if records_cost:
        from .records_cost import bench_records_cost, report
        typer.echo(f"{2 * games} games of {hands} hand(s) a run; load average at start"
                   f" {t0_load:.2f}")
        report(bench_records_cost(bench_bot(bot), games, hands, rounds), 2 * games)
        typer.echo(f"load average at the end {os.getloadavg()[0]:.2f}")
        return
    b = bench_tournament(bench_bot(bot), games, hands=hands, rounds=rounds,
                         reuse_bots=reuse_bots)
    typer.echo(f"{b.games} games a run; load average at start {t0_load:.2f}")
    if b.failed_games:  # the referee played default moves for the seats that failed
        typer.echo(f"warning: the bot failed in {b.failed_games} of the {b.games} games of a run"
                   f" (first: {b.first_failure}): these figures time a failing bot; try it with"
                   f" canasta bot check {shlex.quote(shlex.join(bench_bot(bot)))}")
    ups = b.speedups()
    for i, (one, two) in enumerate(zip(b.runs[::2], b.runs[1::2], strict=True)):
        typer.echo(f"round {i + 1}: concurrency 1 {b.rate(one):.1f} games/s ({one.cores:.2f}"
                   f" cores busy, load {one.load:.2f}); concurrency 2 {b.rate(two):.1f} games/s"
                   f" ({two.cores:.2f} cores busy, load {two.load:.2f}); speed-up {ups[i]:.2f}x")
    busy = statistics.median(r.cores for r in b.runs[::2])
    typer.echo(f"speed-up: median {statistics.median(ups):.2f}x (min {min(ups):.2f}, max"
               f" {max(ups):.2f}, {len(ups)} rounds); at most {2 / max(busy, 1):.2f}x on two"
               f" cores for work that keeps {busy:.2f} cores busy at concurrency 1")
