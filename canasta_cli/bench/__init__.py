"""``canasta bench``: one module per benchmark, each with ``register(bench_app)``."""

from __future__ import annotations

import typer

from . import corners, engine, env, fairclock, inference, levels, net, protocol, referee, tournament
from . import ladder as ladder_bench

bench_app = typer.Typer(help="Measure performance.", no_args_is_help=True, rich_markup_mode=None)
for _bench in (engine, referee, levels, corners, protocol, tournament, fairclock, env, net,
               inference, ladder_bench):
    _bench.register(bench_app)


def register(app: typer.Typer) -> None:
    app.add_typer(bench_app, name="bench")
