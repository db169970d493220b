"""``canasta bot policy SPEC``: a policy function run as a protocol bot on stdin/stdout."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Annotated, Any

import typer


class SpecError(ValueError):
    """A policy spec that names nothing loadable."""


def load_policy(spec: str, arg: str | None = None) -> Any:
    """``FILE.py:NAME`` or ``package.module:NAME``; with ``arg``, NAME is a factory called
    with it (a weights file, say) and its result is the policy."""
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name.isidentifier():
        raise SpecError(f"expected FILE.py:NAME or MODULE:NAME, not {spec[:100]!r}")
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise SpecError(f"no such file: {where}")
        loader_spec = importlib.util.spec_from_file_location(f"canasta_policy_{path.stem}",
                                                             path)
        if loader_spec is None or loader_spec.loader is None:
            raise SpecError(f"cannot load {where}")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[loader_spec.name] = module
        loader_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise SpecError(f"cannot import {where}: {exc}") from None
    target = getattr(module, name, None)
    if not callable(target):
        raise SpecError(f"{where} has no function {name}")
    if arg is not None:
        target = target(arg)
        if not callable(target):
            raise SpecError(f"{name}({arg!r}) did not return a policy function")
    return target


def register(bot_app: typer.Typer) -> None:
    """Add ``canasta bot policy``."""

    @bot_app.command("policy")
    def bot_policy(
        spec: Annotated[str, typer.Argument(
            help="FILE.py:NAME or MODULE:NAME: a function (observation, mask) -> action"
            " index, as canasta_cli.env.aec_env defines them.")],
        arg: Annotated[str | None, typer.Option(
            help="Call NAME with this (e.g. a weights file) to get the policy.")] = None,
        name: Annotated[str, typer.Option(help="The name the bot gives in ready.")]
        = "policy",
    ) -> None:
        """Run a policy trained on the environment as a protocol bot, e.g.
        canasta match --seat "canasta bot policy examples/reinforce.py:load --arg w.npz" ..."""
        try:
            from ..env.player import as_player
        except ImportError as exc:
            typer.echo(f"error: canasta bot policy needs numpy ({exc.name} is missing):"
                       " pip install 'canasta[rl]'", err=True)
            raise typer.Exit(2) from None
        try:
            policy = load_policy(spec, arg)
        except SpecError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        from ..players.stdio import run
        run(as_player(policy), name)
