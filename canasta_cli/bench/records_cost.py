"""``canasta bench tournament --records-cost``: what recording every game in memory costs.

A tournament game with a bot is recorded in memory as it is played, so that a game where a
seat fails keeps its record (``tournament/failures.py``); the record of a game that went well
is dropped when the game ends.  This plays the same games with that record and without it,
interleaved (with, without, with, ...), each run in a fresh process (so that its peak
resident memory is its own), and prints each run's time, CPU, peak memory and the largest
record held, with the load average.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import shlex
import statistics
import time
from dataclasses import dataclass

import typer

from ..core import CLASSIC


@dataclass(frozen=True)
class CostRun:
    recorded: bool
    seconds: float
    cpu: float            # CPU seconds of the run's process and its bots
    peak_kib: int         # the run's peak resident memory (its process)
    largest: int          # bytes of the largest record held (0: none)
    load: float


def _run(command: str, deals: int, hands: int, seed: int, recorded: bool) -> CostRun:
    """One run, in a fresh process: every game of ``deals`` duplicate deals between two
    copies of the bot, one after the other."""
    from ..tournament.runner import Config, play_task
    from ..tournament.schedule import schedule
    rules = CLASSIC.with_options(max_hands=hands)
    bots = {"a": command, "b": command}
    config = Config(bots, rules.to_dict(), failure_records=recorded)
    tasks = schedule(list(bots), "round-robin", deals, rules, seed)
    me0, kids0 = (resource.getrusage(w) for w in (resource.RUSAGE_SELF,
                                                  resource.RUSAGE_CHILDREN))
    t0 = time.perf_counter()
    from ..tournament import records
    sizes: list[int] = []
    original = records._MemoryRecord.close

    def close(self: records._MemoryRecord) -> None:
        original(self)
        sizes.append(len(self.text))

    records._MemoryRecord.close = close  # type: ignore[method-assign]
    for task in tasks:
        play_task(task, config)
    seconds = time.perf_counter() - t0
    largest = max(sizes, default=0)
    me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF,
                                                resource.RUSAGE_CHILDREN))
    cpu = sum(b.ru_utime + b.ru_stime - (a.ru_utime + a.ru_stime)
              for a, b in ((me0, me), (kids0, kids)))
    return CostRun(recorded, seconds, cpu, me.ru_maxrss, largest, os.getloadavg()[0])


def bench_records_cost(bot: list[str], deals: int, hands: int, rounds: int = 3,
                       seed: int = 0) -> list[CostRun]:
    command = " ".join(shlex.quote(a) for a in bot)
    ctx = multiprocessing.get_context("spawn")
    runs = []
    with ctx.Pool(1, maxtasksperchild=1) as pool:
        for _ in range(rounds):
            for recorded in (True, False):
                runs.append(pool.apply(_run, (command, deals, hands, seed, recorded)))
    return runs


def report(runs: list[CostRun], games: int) -> None:
    for i, r in enumerate(runs):
        what = "with the records" if r.recorded else "without       "
        typer.echo(f"run {i + 1} {what}: {r.seconds:.2f}s ({games / r.seconds:.1f} games/s),"
                   f" CPU {r.cpu:.2f}s, peak memory {r.peak_kib / 1024:.1f} MiB, largest"
                   f" record {r.largest / 1024:.1f} KiB, load {r.load:.2f}")
    pairs = list(zip(runs[::2], runs[1::2], strict=True))
    time_ratio = [a.seconds / b.seconds for a, b in pairs]
    cpu_ratio = [a.cpu / b.cpu for a, b in pairs if b.cpu]
    mem = [(a.peak_kib - b.peak_kib) / 1024 for a, b in pairs]
    typer.echo(f"with/without: time ratio median {statistics.median(time_ratio):.3f} (min"
               f" {min(time_ratio):.3f}, max {max(time_ratio):.3f}); CPU ratio median"
               f" {statistics.median(cpu_ratio):.3f}; peak memory {statistics.median(mem):+.1f}"
               f" MiB median, over {len(pairs)} rounds")
