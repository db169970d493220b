"""``canasta bench env``: masked random play through the environment against the bare
engine's random play, interleaved round by round on the same preset."""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

import typer

from ..core import Ruleset, apply, legal_moves, new_game


@dataclass(frozen=True)
class Round:
    engine_per_s: float
    env_per_s: float

    @property
    def ratio(self) -> float:
        return self.env_per_s / self.engine_per_s if self.engine_per_s else 0.0


def engine_random(rules: Ruleset, decisions: int, seed: int) -> float:
    """Decisions per second of uniformly random legal play on the bare engine."""
    rng = random.Random(seed)
    game = 0
    state = new_game(rules, seed=seed * 100_003)
    start = time.process_time()
    for _ in range(decisions):
        if state.is_over:
            game += 1
            state = new_game(rules, seed=seed * 100_003 + game)
        moves = legal_moves(state)
        state = apply(state, moves[rng.randrange(len(moves))])
    return decisions / (time.process_time() - start)


def env_random(rules: Ruleset, decisions: int, seed: int) -> float:
    """Decisions per second of masked random play through the AEC environment: each step
    reads ``last()`` (observation vector and mask), picks uniformly among the mask's ones
    and steps."""
    import numpy as np

    from ..env.aec import CanastaEnv
    rng = random.Random(seed)
    env = CanastaEnv(rules)
    game = 0
    env.reset(seed=seed * 100_003)
    made = 0
    start = time.process_time()
    while made < decisions:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            game += 1
            env.reset(seed=seed * 100_003 + game)
            continue
        # The mask's ones, read as booleans (numpy's fast path; the same indices as
        # ``nonzero`` on the int8 array), as an agent that samples legal moves would.
        legal = obs["action_mask"].view(np.bool_).nonzero()[0]
        env.step(int(legal[rng.randrange(len(legal))]))
        made += 1
    return decisions / (time.process_time() - start)


def bench_env(rules: Ruleset, decisions: int, rounds: int, seed: int,
              echo: Callable[[str], None]) -> list[Round]:
    out = []
    for r in range(rounds):
        engine = engine_random(rules, decisions, seed + r)
        env = env_random(rules, decisions, seed + r)
        out.append(Round(engine, env))
        echo(f"round {r + 1}: engine {engine:>9.0f} decisions/s   env {env:>9.0f} decisions/s"
             f"   env/engine {out[-1].ratio:.2f}")
    return out


def register(bench_app: typer.Typer) -> None:
    """Add ``canasta bench env``."""

    @bench_app.command("env")
    def bench_env_cmd(
        rules: Annotated[str, typer.Option("--rules", "-r", help="Preset to measure.")]
        = "classic",
        decisions: Annotated[int, typer.Option(help="Decisions per run.", min=100,
                                               max=10_000_000)] = 20000,
        rounds: Annotated[int, typer.Option(help="Rounds (engine, env, engine, env...).",
                                            min=1, max=100)] = 5,
        seed: int = 0,
    ) -> None:
        """Masked random play through the PettingZoo environment (observation vector and
        mask at every step) against the bare engine's random play: interleaved rounds, the
        median ratio and spread, and the load average."""
        from ..core import RulesError, preset
        try:
            ruleset = preset(rules)
        except RulesError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        try:
            import gymnasium  # noqa: F401
            import numpy  # noqa: F401
            import pettingzoo  # type: ignore[import-untyped, unused-ignore] # noqa: F401
        except ImportError as exc:
            typer.echo(f"error: canasta bench env needs the rl extra ({exc.name} is missing):"
                       " pip install 'canasta[rl]'", err=True)
            raise typer.Exit(2) from None
        typer.echo(f"load average at start: {os.getloadavg()[0]:.2f}; {rules}, {decisions}"
                   f" decisions per run")
        done = bench_env(ruleset, decisions, rounds, seed, typer.echo)
        ratios = [r.ratio for r in done]
        typer.echo(f"env/engine: median {statistics.median(ratios):.2f}, min {min(ratios):.2f},"
                   f" max {max(ratios):.2f} over {len(done)} rounds")
        typer.echo(f"load average at end: {os.getloadavg()[0]:.2f}")
