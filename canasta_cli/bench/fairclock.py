"""``canasta bench fairclock`` and ``bench box``: fair clocks, and what the box costs.

Fair clocks: does an honest bot's decision time depend on its opponent?

An honest bot spends a fixed amount of CPU time on every decision.  It plays two-player hands
on one CPU against a quiet opponent (answers at once) and against a burner (answers at once,
but first starts several children that spin without end).  Rounds alternate quiet, burner,
burner with ``--ponder`` (bots not frozen between turns), so that machine drift touches all
three; the figure is the honest bot's median decision time against the burner over its median
against the quiet opponent, measured by the referee from request to answer.

The box's cost: games per second with four fresh bot processes per game in each kind of box.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated

import typer

from ..core import preset
from ..hosting.referee import Referee, TimeControl
from ..protocol.messages import ActRequest
from ..seats import box
from ..seats.base import Message
from ..seats.subprocess_seat import SubprocessSeat
from .example_bot import BotOpt, bench_bot

_BOT = r'''
import json, os, sys, time
MODE, CPU_MS, CHILDREN = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
spawned = False
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "hello":
        print(json.dumps({"type": "ready", "protocol": "canasta/1", "name": MODE}), flush=True)
    elif kind == "act":
        if MODE == "honest":
            end = time.process_time() + CPU_MS / 1000
            while time.process_time() < end:
                pass
        elif MODE == "burner" and not spawned:
            spawned = True
            for _ in range(CHILDREN):
                if os.fork() == 0:
                    os.close(0); os.close(1)
                    while True:
                        pass
        print(json.dumps({"type": "move", "id": msg["id"], "index": 0}), flush=True)
    elif kind == "bye":
        break
'''


class _Timed(SubprocessSeat):
    """A bot whose decision times (request to answer, as the referee sees them) are kept."""

    times: list[float]

    def act(self, request: ActRequest, timeout: float) -> Message:
        t0 = time.perf_counter()
        try:
            return super().act(request, timeout)
        finally:
            self.times.append(time.perf_counter() - t0)


@dataclass(frozen=True)
class FairRound:
    quiet_ms: float
    burner_ms: float
    ponder_ms: float


@dataclass(frozen=True)
class _Setup:
    """What every figure plays: the bots' ``script``, the honest bot's CPU time per decision,
    the burner's children, and the one-hand games per figure."""

    script: Path
    cpu_ms: float
    children: int
    hands: int


def _median_decision(setup: _Setup, opponent: str, policy: box.BoxPolicy, seed: int) -> float:
    py, script = sys.executable, setup.script
    honest = _Timed([py, str(script), "honest", str(setup.cpu_ms), "0"], name="honest",
                    spin_us=0, box=policy)
    honest.times = []
    other = SubprocessSeat([py, str(script), opponent, "0", str(setup.children)],
                           name=opponent, spin_us=0, box=policy)
    rules = preset("two-player").with_options(max_hands=1)
    tc = TimeControl(startup_ms=20_000, decision_ms=20_000, bank_ms=20_000)
    ref = Referee([honest, other], rules, tc)
    try:
        for g in range(setup.hands):
            ref.play(g + 1, seed=seed + g)
    finally:
        ref.close()
    return statistics.median(honest.times) * 1000


def run(rounds: int = 3, cpu_ms: float = 100.0, children: int = 4, hands: int = 1,
        cpu: int = 0, seed: int = 0) -> list[FairRound]:
    """Interleaved rounds on CPU ``cpu`` alone (this process and every bot it starts)."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cpu})
    base = box.DEFAULT_POLICY
    out = []
    with tempfile.TemporaryDirectory(prefix="canasta-fair-") as tmp:
        script = Path(tmp) / "fairbot.py"
        script.write_text(_BOT)
        setup = _Setup(script, cpu_ms, children, hands)
        for r in range(rounds):
            figures = [_median_decision(setup, opp, replace(base, ponder=ponder), seed + 100 * r)
                       for opp, ponder in (("quiet", False), ("burner", False),
                                           ("burner", True))]
            out.append(FairRound(*figures))
    return out


@dataclass(frozen=True)
class BoxRound:
    """Games per second with bots in each kind of box (a fresh process per game)."""

    rates: dict[str, float]


def box_cost(bot: list[str], games: int = 10, rounds: int = 3, seed: int = 0) -> list[BoxRound]:
    """Four-player games of ``bot`` against itself, a fresh process per seat and game, in
    turn with each kind of box this machine can build (A B C A B C ...)."""
    modes: list[box.Mode] = ["unboxed"]
    if box.box_kind(box.BoxPolicy(mode="namespaces")) == "namespaces":
        modes.insert(0, "namespaces")
    if box.box_kind(box.BoxPolicy(mode="bubblewrap")) == "bubblewrap":
        modes.insert(0, "bubblewrap")
    rules = preset("classic").with_options(max_hands=1)
    out = []
    for r in range(rounds):
        rates: dict[str, float] = {}
        for mode in modes:
            policy = replace(box.DEFAULT_POLICY, mode=mode)
            t0 = time.perf_counter()
            for g in range(games):
                seats = [SubprocessSeat(bot, name=f"bot{i}", spin_us=0, box=policy)
                         for i in range(rules.players)]
                ref = Referee(list(seats), rules)
                try:
                    ref.play(g + 1, seed=seed + 1000 * r + g)
                finally:
                    ref.close()
            rates[mode] = games / (time.perf_counter() - t0)
        out.append(BoxRound(rates))
    return out


def register(bench_app: typer.Typer) -> None:
    bench_app.command("fairclock")(fairclock_cmd)
    bench_app.command("box")(box_cmd)


def fairclock_cmd(
    rounds: Annotated[int, typer.Option(help="Rounds of quiet, burner, burner pondering.",
                                        min=1, max=100)] = 3,
    cpu_ms: Annotated[int, typer.Option(help="CPU time the honest bot spends per decision.",
                                        min=1, max=10_000)] = 100,
    children: Annotated[int, typer.Option(help="Spinning children the burner starts.",
                                          min=1, max=32)] = 4,
) -> None:
    """An honest bot's median decision time against a quiet opponent and against one whose
    children spin between its turns, on one CPU: with bots frozen between their turns (the
    default) and with --ponder.  The ratio to the quiet opponent's, per round."""
    typer.echo(f"{box.describe()}; load average at start {os.getloadavg()[0]:.2f}; one CPU")
    rows = run(rounds=rounds, cpu_ms=cpu_ms, children=children)
    for i, r in enumerate(rows):
        typer.echo(f"round {i + 1}: quiet {r.quiet_ms:.1f} ms, burner {r.burner_ms:.1f} ms"
                   f" ({r.burner_ms / r.quiet_ms:.3f}x), burner with --ponder {r.ponder_ms:.1f}"
                   f" ms ({r.ponder_ms / r.quiet_ms:.2f}x)")
    frozen = statistics.median(r.burner_ms / r.quiet_ms for r in rows)
    ponder = statistics.median(r.ponder_ms / r.quiet_ms for r in rows)
    typer.echo(f"median: against the burner {frozen:.3f}x the quiet opponent's time (frozen"
               f" between turns), {ponder:.2f}x with --ponder; load average now"
               f" {os.getloadavg()[0]:.2f}")


def box_cmd(
    bot: BotOpt = "",
    games: Annotated[int, typer.Option(help="Games per box and round.", min=1, max=10_000)]
    = 10,
    rounds: Annotated[int, typer.Option(help="Rounds.", min=1, max=100)] = 3,
) -> None:
    """What the box costs: games per second of four fresh bot processes per game in each kind
    of box this machine can build (bubblewrap, namespaces, unboxed), interleaved."""
    typer.echo(f"load average at start {os.getloadavg()[0]:.2f}")
    rows = box_cost(bench_bot(bot), games=games, rounds=rounds)
    for i, r in enumerate(rows):
        typer.echo(f"round {i + 1}: " + ", ".join(f"{m} {v:.2f} games/s"
                                                  for m, v in r.rates.items()))
    for mode in rows[0].rates:
        ratio = statistics.median(r.rates[mode] / r.rates["unboxed"] for r in rows)
        typer.echo(f"{mode}: median {statistics.median(r.rates[mode] for r in rows):.2f}"
                   f" games/s, {ratio:.2f}x unboxed")
    typer.echo(f"load average now {os.getloadavg()[0]:.2f}")
