"""``canasta bench net``: the round trip per decision of a bot joined through a local table
(``canasta join --bot``, TCP on 127.0.0.1), against the same bot as a subprocess of the
referee; rounds interleaved (direct, table, direct, table...), one one-hand game each."""

from __future__ import annotations

import os
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import TYPE_CHECKING, Annotated

import typer

from .example_bot import BotOpt, bench_bot

if TYPE_CHECKING:
    from ..protocol.messages import ActRequest
    from ..seats.base import Message, Seat


def register(bench_app: typer.Typer) -> None:
    bench_app.command("net")(bench_net_cmd)


@dataclass
class NetBench:
    direct: list[list[float]] = field(default_factory=list)  # ms per decision, per round
    table: list[list[float]] = field(default_factory=list)
    rtt_ms: list[float] = field(default_factory=list)

    def ratios(self) -> list[float]:
        return [statistics.median(t) / statistics.median(d)
                for d, t in zip(self.direct, self.table, strict=True)]


def _timing(seat: Seat, into: list[float]) -> None:
    """Time each of the seat's decisions (the referee's whole call, as a bot's clock runs)."""
    ask = seat.act

    def act(request: ActRequest, timeout: float) -> Message:
        t0 = time.perf_counter()
        try:
            return ask(request, timeout)
        finally:
            into.append((time.perf_counter() - t0) * 1000)
    setattr(seat, "act", act)  # noqa: B010 - this instance only


def _direct(bot: str, seed: int) -> list[float]:
    from ..core import CLASSIC
    from ..hosting.referee import Referee, TimeControl
    from ..seats import SubprocessSeat, builtin_seat
    times: list[float] = []
    seat = SubprocessSeat(bot, name="bot")
    _timing(seat, times)
    seats: list[Seat] = [seat] + [builtin_seat("builtin:random", seed * 7919 + i)
                                  for i in (1, 2, 3)]
    ref = Referee(seats, CLASSIC.with_options(max_hands=1), TimeControl())
    try:
        ref.play(1, seed=seed)
    finally:
        ref.close()
    return times


def _through_table(bot: str, seed: int, tmp: Path) -> tuple[list[float], list[float]]:
    from ..core import CLASSIC
    from ..net.table import GamePlan, GameSeries, Table, TableOptions, build_seats, play_games
    from ..seats.box import DEFAULT_POLICY
    specs = ["remote", "builtin:random", "builtin:random", "builtin:random"]
    table = Table(specs, seed, TableOptions(port=0, join_timeout_s=30.0), out=lambda t: None)
    table.start()
    client = subprocess.Popen(
        [sys.executable, "-m", "canasta_cli.cli", "join", f"127.0.0.1:{table.hub.port}",
         "--token", str(table.tokens.seats[0]), "--bot", bot, "--bot-log", os.devnull],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times: list[float] = []
    try:
        table.wait_joined()
        seats = build_seats(table, specs, seed, tmp, None, DEFAULT_POLICY)
        _timing(seats[0], times)
        plan = GamePlan(seed, tmp / f"game-{seed}.jsonl")
        games = GameSeries(CLASSIC.with_options(max_hands=1), lambda g: plan if g == 1 else None)
        play_games(table, seats, games, lambda r, p: None)
        rtts = list(table.remote[0].rtts)
    finally:
        table.close()
        try:
            client.wait(timeout=10)
        except subprocess.TimeoutExpired:
            client.kill()
            client.wait()
    return times, rtts


def bench_net(bot: str, rounds: int, seed: int, say: Callable[[str], None]) -> NetBench:
    out = NetBench()
    with TemporaryDirectory(prefix="canasta-bench-net-") as tmp:
        for r in range(rounds):
            direct = _direct(bot, seed + r)
            table, rtts = _through_table(bot, seed + r, Path(tmp))
            out.direct.append(direct)
            out.table.append(table)
            out.rtt_ms += rtts
            say(f"round {r + 1}: direct median {statistics.median(direct):.3f} ms"
                f" ({len(direct)} decisions), through the table median"
                f" {statistics.median(table):.3f} ms ({len(table)} decisions), ratio"
                f" {out.ratios()[-1]:.2f}x; load {os.getloadavg()[0]:.2f}")
    return out


def bench_net_cmd(
    bot: BotOpt = "",
    rounds: Annotated[int, typer.Option(help="Rounds of one one-hand game each way.", min=1)]
    = 5,
    seed: int = 0,
) -> None:
    """Round trip per decision of a bot joined over TCP to a local table (canasta join --bot)
    against the same bot as a subprocess of the referee: interleaved rounds, the ratio per
    round and its median, the load average."""
    argv = bench_bot(bot)
    if argv[0].startswith("builtin:"):
        from ..cli.options import fail
        raise fail("bench net times a bot program: pass --bot 'COMMAND'")
    command = shlex.join(argv)
    typer.echo(f"load average at start: {os.getloadavg()[0]:.2f}; bot: {command}")
    b = bench_net(command, rounds, seed, typer.echo)
    ratios = b.ratios()
    direct = [t for r in b.direct for t in r]
    table = [t for r in b.table for t in r]
    typer.echo(f"direct (subprocess):   median {statistics.median(direct):.3f} ms per decision")
    typer.echo(f"through a local table: median {statistics.median(table):.3f} ms per decision"
               + (f"; TCP's round-trip estimate median {statistics.median(b.rtt_ms):.3f} ms"
                  if b.rtt_ms else ""))
    typer.echo(f"ratio: median {statistics.median(ratios):.2f}x (min {min(ratios):.2f}, max"
               f" {max(ratios):.2f}, {len(ratios)} rounds); load average at end"
               f" {os.getloadavg()[0]:.2f}")
