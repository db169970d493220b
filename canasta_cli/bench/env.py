"""``canasta bench env``: masked random play through the environment against the bare
engine's random play on the same preset, interleaved: within each round the two take turns
a slice of decisions at a time."""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

import typer

from ..commands.options import RulesOpt, load_rules
from ..core import Ruleset, apply, legal_moves, new_game


@dataclass(frozen=True)
class Round:
    engine_per_s: float
    env_per_s: float

    @property
    def ratio(self) -> float:
        return self.env_per_s / self.engine_per_s if self.engine_per_s else 0.0


class EngineRandom:
    """Uniformly random legal play on the bare engine, run a slice at a time (a game goes on
    across slices, a new one is dealt when it ends)."""

    def __init__(self, rules: Ruleset, seed: int) -> None:
        self.rules, self.seed, self.game = rules, seed * 100_003, 0
        self.rng = random.Random(seed)
        self.state = new_game(rules, seed=self.seed)

    def run(self, decisions: int) -> float:
        """Play ``decisions`` decisions; their CPU time in seconds."""
        rng, state, rules = self.rng, self.state, self.rules
        start = time.process_time()
        for _ in range(decisions):
            if state.is_over:
                self.game += 1
                state = new_game(rules, seed=self.seed + self.game)
            moves = legal_moves(state)
            state = apply(state, moves[rng.randrange(len(moves))])
        spent = time.process_time() - start
        self.state = state
        return spent


class EnvRandom:
    """Masked random play through the AEC environment, a slice at a time: each step reads
    ``last()`` (observation vector and mask), picks uniformly among the mask's ones and
    steps."""

    def __init__(self, rules: Ruleset, seed: int) -> None:
        from ..env.aec import CanastaEnv
        self.seed, self.game = seed * 100_003, 0
        self.rng = random.Random(seed)
        self.env = CanastaEnv(rules)
        self.env.reset(seed=self.seed)

    def run(self, decisions: int) -> float:
        import numpy as np
        rng, env, boolean = self.rng, self.env, np.dtype(np.bool_)
        made = 0
        start = time.process_time()
        while made < decisions:
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                self.game += 1
                env.reset(seed=self.seed + self.game)
                continue
            # The mask's ones, read as booleans (numpy's fast path; the same indices as
            # ``nonzero`` on the int8 array), as an agent that samples legal moves would,
            # taken as Python ints (one ``tolist`` rather than a numpy scalar and an int()).
            legal = obs["action_mask"].view(boolean).nonzero()[0].tolist()
            env.step(legal[rng.randrange(len(legal))])
            made += 1
        return time.process_time() - start


# Decisions per slice: both sides take turns a slice at a time within a round, so that a
# change of the machine's load hits both alike.
SLICE = 500


def bench_round(rules: Ruleset, decisions: int, seed: int) -> Round:
    """One round: ``decisions`` decisions on each side, in alternating slices."""
    engine, env = EngineRandom(rules, seed), EnvRandom(rules, seed)
    spent = [0.0, 0.0]
    done = 0
    while done < decisions:
        k = min(SLICE, decisions - done)
        spent[0] += engine.run(k)
        spent[1] += env.run(k)
        done += k
    return Round(decisions / spent[0], decisions / spent[1])


def bench_env(rules: Ruleset, decisions: int, rounds: int, seed: int,
              echo: Callable[[str], None]) -> list[Round]:
    out = []
    for r in range(rounds):
        out.append(bench_round(rules, decisions, seed + r))
        echo(f"round {r + 1}: engine {out[-1].engine_per_s:>9.0f} decisions/s   env"
             f" {out[-1].env_per_s:>9.0f} decisions/s   env/engine {out[-1].ratio:.2f}")
    return out


def register(bench_app: typer.Typer) -> None:
    """Add ``canasta bench env``."""

    @bench_app.command("env")
    def bench_env_cmd(
        rules: RulesOpt = "classic",
        decisions: Annotated[int, typer.Option(help="Decisions per run.", min=100,
                                               max=10_000_000)] = 20000,
        rounds: Annotated[int, typer.Option(help="Rounds (each: engine and env in"
                                            " alternating slices of 500 decisions).",
                                            min=1, max=100)] = 5,
        seed: int = 0,
    ) -> None:
        """Masked random play through the PettingZoo environment (observation vector and
        mask at every step) against the bare engine's random play: rounds of alternating
        slices, the median ratio and spread, and the load average."""
        ruleset = load_rules(rules, None)
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
