"""``canasta bot policy SOURCE``: a policy function run as a protocol bot on stdin/stdout."""

from __future__ import annotations

from typing import Annotated

import typer

from ..botdev.policy import SpecError, load_policy


def register(bot_app: typer.Typer) -> None:
    """Add ``canasta bot policy``."""

    @bot_app.command("policy")
    def bot_policy(
        source: Annotated[str, typer.Argument(
            help="A .py file or a module that defines the policy: a function (observation,"
            " mask) -> action index over canasta_cli.env's observation and action table.")],
        function: Annotated[str, typer.Option(
            help="The policy's name in SOURCE (with --arg: a factory returning it).")]
        = "policy",
        arg: Annotated[str | None, typer.Option(
            help="Call FUNCTION with this (e.g. a weights file) to get the policy.")] = None,
        name: Annotated[str, typer.Option(help="The name the bot gives in ready.")]
        = "policy",
    ) -> None:
        """Run a policy trained on the environment as a protocol bot (docs/ML.md), e.g.
        canasta bot policy examples/reinforce.py --function load --arg examples/weights.npz"""
        try:
            from ..env.player import as_player
        except ImportError as exc:
            typer.echo(f"error: canasta bot policy needs numpy ({exc.name} is missing):"
                       " pip install 'canasta[rl]'", err=True)
            raise typer.Exit(2) from None
        try:
            policy = load_policy(source, function, arg)
        except SpecError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        from ..players.stdio import run
        run(as_player(policy), name)
