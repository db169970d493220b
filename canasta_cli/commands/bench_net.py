"""``canasta bench net``: a bot's round trip per decision through a local table."""

from __future__ import annotations

import os
import shlex
import statistics
import sys
from pathlib import Path
from typing import Annotated

import typer


def bench_net_cmd(
    bot: Annotated[str, typer.Option(help="Bot command (default: bots/random_bot.py with this"
                                     " Python).")] = "",
    rounds: Annotated[int, typer.Option(help="Rounds of one one-hand game each way.", min=1)]
    = 5,
    seed: int = 0,
) -> None:
    """Round trip per decision of a bot joined over TCP to a local table (canasta join --bot)
    against the same bot as a subprocess of the referee: interleaved rounds, the ratio per
    round and its median, the load average."""
    from ..net.bench import bench_net
    if not bot:
        default = Path(__file__).resolve().parent.parent.parent / "bots" / "random_bot.py"
        if not default.is_file():
            typer.echo(f"error: the example bot {default} is not there: pass --bot 'COMMAND'",
                       err=True)
            raise typer.Exit(2)
        bot = f"{shlex.quote(sys.executable)} {shlex.quote(str(default))}"
    typer.echo(f"load average at start: {os.getloadavg()[0]:.2f}; bot: {bot}")
    b = bench_net(bot, rounds, seed, typer.echo)
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


def register(bench_app: typer.Typer) -> None:
    bench_app.command("net")(bench_net_cmd)
