"""``canasta bench ladder``: the time a ``ladder run`` adds over the same games in a
tournament.

The ladder's deals have other seeds than a tournament's (ladder seeds come from its master
seed and the deal's number), so the two are not timed on the same games directly.  Four
arms are run instead, interleaved round after round: ``ladder`` (``ladder run`` on a fresh
file, and its ratings), ``ladder's games`` (those very games, played bare: each deal in every seating, nothing
kept), ``tournament`` (``canasta tournament``'s runner, writing its out folder), and
``tournament's games`` (its games played bare).  Each system's own cost is its time minus
its bare games' time, on identical games; the ladder's extra cost over the tournament is
the difference of the two.
"""

from __future__ import annotations

import os
import shlex
import statistics
import tempfile
import time
from pathlib import Path
from typing import Annotated

import typer

from ..commands.exitcodes import plural
from ..core import preset
from ..ladder.store import Ladder
from ..tournament.schedule import seatings
from .example_bot import BotOpt, bench_bot

ARMS = ("ladder", "ladder's games", "tournament", "tournament's games")


def _arms(command: str, opponent: str, deals: int, rules_name: str, seed: int
          ) -> dict[str, float]:
    from ..ladder.rating import ratings
    from ..ladder.run import play_deal, run_ladder
    from ..ladder.store import Deal, deal_seed
    from ..tournament.runner import Config, InlineExecutor, play_task, run_tournament
    from ..tournament.schedule import schedule
    rules = preset(rules_name).with_options(max_hands=1)
    bots = {"mine": command, "other": opponent}
    config = Config(bots, rules.to_dict())
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        ladder = Ladder(Path(tmp) / "l.sqlite")
        for name, cmd in bots.items():
            ladder.add(name, cmd)
        kept, master = ladder.settings(rules.to_dict(), seed)
        t0 = time.perf_counter()
        run_ladder(ladder, rules, master, deals, 1, config)
        ratings(sorted(bots), ladder.results())  # as ladder run prints them
        out["ladder"] = time.perf_counter() - t0
        played = _deals(ladder)
        ladder.close()
        t0 = time.perf_counter()
        for k, a, b in played:
            play_deal(Deal(k, a, b, deal_seed(master, k)), config)
        out["ladder's games"] = time.perf_counter() - t0
        executor = InlineExecutor()
        t0 = time.perf_counter()
        try:
            run_tournament(bots, "round-robin", deals, rules, seed, Path(tmp) / "t",
                           executor, 1)
        finally:
            executor.close()
        out["tournament"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        for task in schedule(list(bots), "round-robin", deals, rules, seed):
            play_task(task, config)
        out["tournament's games"] = time.perf_counter() - t0
    return out


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
    for i in range(rounds):
        t = _arms(command, opponent, deals, rules, 1 + i)
        ladder_own = t["ladder"] - t["ladder's games"]
        tour_own = t["tournament"] - t["tournament's games"]
        added.append(ladder_own - tour_own)
        typer.echo(f"round {i + 1}: " + ", ".join(f"{a} {t[a]:.2f}s" for a in ARMS)
                   + f"; the ladder's own {ladder_own:+.2f}s, the tournament's own"
                   f" {tour_own:+.2f}s; load {os.getloadavg()[0]:.2f}")
    typer.echo(f"a ladder run of {deals * per_deal} games adds {statistics.median(added):+.2f}s"
               f" (median of {rounds}; min {min(added):+.2f}, max {max(added):+.2f}) over the"
               " same games in a tournament")
