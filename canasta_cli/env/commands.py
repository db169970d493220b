"""The machine-learning commands: ``canasta bench env`` and ``canasta bot policy``."""

from __future__ import annotations

import typer

from . import bench, botcmd


def register(bench_app: typer.Typer, bot_app: typer.Typer) -> None:
    bench.register(bench_app)
    botcmd.register(bot_app)
