"""``canasta bench ladder``: the time a ``ladder run`` adds over the same games in a
tournament.

The ladder's deals have other seeds than a tournament's (ladder seeds come from its master
seed and the deal's number), so the two are not timed on the same games directly.  Four
arms are run instead, interleaved round after round: ``ladder`` (``ladder run`` on a fresh
file, and its ratings), ``ladder's games`` (those very games, played bare: each deal in every seating, nothing
kept), ``tournament`` (``canasta tournament``'s runner, writing its out folder), and
``tournament's games`` (its games played bare).  Each system's own cost is its time minus
its bare games' time, on identical games; the ladder's extra cost over the tournament is
the difference of the two, in wall and CPU seconds (this process and its bots).  On a busy
machine that difference is within the noise of the games, so the ladder's own work is also
timed alone: the same deal results written to a fresh file (a transaction per deal) and
rated, with no game played.
"""

from __future__ import annotations

import os
import resource
import shlex
import statistics
import tempfile
import time
from pathlib import Path
from typing import Annotated

import typer

from ..core import preset
from ..ladder.store import Ladder
from ..tournament.schedule import seatings
from ..util.words import plural
from .example_bot import BotOpt, bench_bot

ARMS = ("ladder", "ladder's games", "tournament", "tournament's games")


def _cpu() -> float:
    me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


class _Clock:
    """Wall and CPU seconds (this process and its bots) of each arm."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self._start = (0.0, 0.0)

    def start(self) -> None:
        self._start = (time.perf_counter(), _cpu())

    def stop(self, arm: str) -> None:
        self.wall[arm] = time.perf_counter() - self._start[0]
        self.cpu[arm] = _cpu() - self._start[1]


def _bookkeeping(path: Path, bots: dict[str, str], rules: dict[str, object], seed: int,
                 results: list[tuple[float, float, int]]) -> float:
    """Seconds of the ladder's own work for these deal results, with no game played: a fresh
    file, each deal reserved and finished (one transaction each), then the ratings."""
    from ..ladder.rating import ratings
    t0 = time.perf_counter()
    ladder = Ladder(path)
    for name, cmd in bots.items():
        ladder.add(name, cmd)
    _, master = ladder.settings(dict(rules), seed)
    run = ladder.start_run()
    for score, diff, failed in results:
        deal = ladder.reserve(run, master)
        assert deal is not None
        ladder.finish(deal, score, diff, failed)
    ladder.release(run)
    ratings(sorted(bots), ladder.results())
    ladder.close()
    return time.perf_counter() - t0


def _arms(command: str, opponent: str, deals: int, rules_name: str, seed: int
          ) -> tuple[_Clock, float]:
    from ..ladder.rating import ratings
    from ..ladder.run import LadderPlan, play_deal, run_ladder
    from ..ladder.store import Deal
    from ..tournament.runner import Config, InlineExecutor, TournamentPlan, play_task, run_tournament
    from ..tournament.schedule import schedule
    rules = preset(rules_name).with_options(max_hands=1)
    bots = {"mine": command, "other": opponent}
    config = Config(bots, rules.to_dict())
    clock = _Clock()
    with tempfile.TemporaryDirectory() as tmp:
        ladder = Ladder(Path(tmp) / "l.sqlite")
        for name, cmd in bots.items():
            ladder.add(name, cmd)
        kept, master = ladder.settings(rules.to_dict(), seed)
        clock.start()
        run_ladder(ladder, LadderPlan(rules, master, deals, config))
        ratings(sorted(bots), ladder.results())  # as ladder run prints them
        clock.stop("ladder")
        played = _deals(ladder)
        ladder.close()
        results = []
        clock.start()
        for k, a, b in played:
            score, diff, failed, _ = play_deal(Deal(k, a, b, master.deal(k)), config)
            results.append((score, diff, failed))
        clock.stop("ladder's games")
        executor = InlineExecutor()
        clock.start()
        try:
            run_tournament(TournamentPlan(bots, "round-robin", deals, rules, seed,
                                          Path(tmp) / "t"), executor)
        finally:
            executor.close()
        clock.stop("tournament")
        clock.start()
        for task in schedule(list(bots), "round-robin", deals, rules, seed):
            play_task(task, config)
        clock.stop("tournament's games")
        books = _bookkeeping(Path(tmp) / "b.sqlite", bots, rules.to_dict(), seed, results)
    return clock, books


def _deals(ladder: Ladder) -> list[tuple[int, str, str]]:
    return [(int(k), str(a), str(b)) for k, a, b in
            ladder.db.execute("SELECT k, a, b FROM deals ORDER BY k")]


def register(bench_app: typer.Typer) -> None:
    bench_app.command("ladder")(bench_ladder_cmd)


def bench_ladder_cmd(
    bot: BotOpt = "",
    opponent: Annotated[str, typer.Option(help="The other entry.")] = "builtin:greedy",
    games: Annotated[int, typer.Option(help="Games per arm (two-player: two per deal).",
                                       min=2, max=100_000)] = 100,
    rules: Annotated[str, typer.Option("--rules", "-r", help="A preset (one-hand games).")]
    = "two-player",
    rounds: Annotated[int, typer.Option(help="Rounds of the four arms.", min=1)] = 3,
) -> None:
    """The time a ladder run of N games adds over the same games in a tournament: four arms
    interleaved (ladder, its games bare, tournament, its games bare), concurrency 1, with
    the load average."""
    command = " ".join(shlex.quote(a) for a in bench_bot(bot))
    r = preset(rules)
    per_deal = len(seatings(r, "a", "b"))
    deals = max(1, games // per_deal)
    typer.echo(f"{deals * per_deal} games ({plural(deals, 'deal')}) an arm, {rules}, one hand each;"
               f" load average at start {os.getloadavg()[0]:.2f}")
    added: list[float] = []
    added_cpu: list[float] = []
    books: list[float] = []
    for i in range(rounds):
        c, book = _arms(command, opponent, deals, rules, 1 + i)
        t, u = c.wall, c.cpu
        added.append((t["ladder"] - t["ladder's games"])
                     - (t["tournament"] - t["tournament's games"]))
        added_cpu.append((u["ladder"] - u["ladder's games"])
                         - (u["tournament"] - u["tournament's games"]))
        books.append(book)
        typer.echo(f"round {i + 1}: " + ", ".join(f"{a} {t[a]:.2f}s (CPU {u[a]:.2f}s)"
                                                 for a in ARMS)
                   + f"; the ladder's bookkeeping alone {book * 1000:.0f} ms; load"
                   f" {os.getloadavg()[0]:.2f}")
    n = deals * per_deal
    typer.echo(f"a ladder run of {n} games adds, over the same games in a tournament (median"
               f" of {rounds}): wall {statistics.median(added):+.2f}s (min {min(added):+.2f},"
               f" max {max(added):+.2f}), CPU {statistics.median(added_cpu):+.2f}s (min"
               f" {min(added_cpu):+.2f}, max {max(added_cpu):+.2f}); its bookkeeping alone"
               f" (the file, a transaction per deal, the ratings) {statistics.median(books) * 1000:.0f}"
               " ms")
