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

from ..cli.options import RulesOpt, load_rules
from ..core import Ruleset, apply, legal_moves, new_game


@dataclass(frozen=True)
class Round:
    """One round's rates: decisions per second of the bare engine, the AEC environment and
    the parallel one; games per second of the engine and of the single-agent environment
    (its learner against built-in random opponents), on the same deals."""

    engine_per_s: float
    env_per_s: float
    parallel_per_s: float = 0.0
    engine_games_per_s: float = 0.0
    single_games_per_s: float = 0.0

    @property
    def ratio(self) -> float:
        return self.env_per_s / self.engine_per_s if self.engine_per_s else 0.0

    @property
    def parallel_ratio(self) -> float:
        return self.parallel_per_s / self.engine_per_s if self.engine_per_s else 0.0

    @property
    def single_ratio(self) -> float:
        return (self.single_games_per_s / self.engine_games_per_s if self.engine_games_per_s
                else 0.0)


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


class ParallelRandom:
    """Masked random play through the parallel environment, a slice at a time: at each step
    every live agent reads its mask and acts (the mover a random legal move, the others
    ``wait``, the one index their mask holds)."""

    def __init__(self, rules: Ruleset, seed: int) -> None:
        from ..env.parallel import CanastaParallelEnv
        self.seed, self.game = seed * 100_003, 0
        self.rng = random.Random(seed)
        self.env = CanastaParallelEnv(rules)
        self.obs, _ = self.env.reset(seed=self.seed)

    def run(self, decisions: int) -> float:
        import numpy as np
        rng, env, boolean = self.rng, self.env, np.dtype(np.bool_)
        made = 0
        start = time.process_time()
        while made < decisions:
            if not env.agents:
                self.game += 1
                self.obs, _ = env.reset(seed=self.seed + self.game)
                continue
            actions = {}
            for agent in env.agents:
                legal = self.obs[agent]["action_mask"].view(boolean).nonzero()[0].tolist()
                actions[agent] = legal[rng.randrange(len(legal))]
            self.obs = env.step(actions)[0]
            made += 1
        return time.process_time() - start


class EngineGames(EngineRandom):
    """Whole games of random play on the bare engine, the same deals as ``SingleGames``."""

    def games(self, n: int) -> float:
        rules, rng = self.rules, self.rng
        start = time.process_time()
        for _ in range(n):
            state = new_game(rules, seed=self.seed + self.game)
            self.game += 1
            while not state.is_over:
                moves = legal_moves(state)
                state = apply(state, moves[rng.randrange(len(moves))])
        return time.process_time() - start


class SingleGames:
    """Whole games through the single-agent environment: a masked random learner in seat 0,
    built-in random players (in this process) in the other seats."""

    def __init__(self, rules: Ruleset, seed: int) -> None:
        from ..env.single import CanastaSingleEnv
        self.seed, self.game = seed * 100_003, 0
        self.rng = random.Random(seed)
        self.env = CanastaSingleEnv(rules, opponents="builtin:random")

    def games(self, n: int) -> float:
        import numpy as np
        rng, env, boolean = self.rng, self.env, np.dtype(np.bool_)
        start = time.process_time()
        for _ in range(n):
            obs, _ = env.reset(seed=self.seed + self.game)
            self.game += 1
            over = False
            while not over:
                legal = obs["action_mask"].view(boolean).nonzero()[0].tolist()
                obs, _, term, trunc, _ = env.step(legal[rng.randrange(len(legal))])
                over = term or trunc
        return time.process_time() - start


class EnvParts(EnvRandom):
    """The environment's work per decision without the AEC API (``last``, ``step``: rewards,
    the next agent), with parts left out, to time each part by difference: the observation
    vector, the mask, the agent's masked pick (without it: a pick among ``legal_moves``,
    as the engine's side makes) and the public-facts tracker (without it the observation
    reads facts that no longer change, at the same cost: none but the pack counts as
    hidden, since a hand that grows past stale facts would make a count of unseen cards
    negative)."""

    def __init__(self, rules: Ruleset, seed: int, observe: bool = True, mask: bool = True,
                 pick: bool = True, track: bool = True) -> None:
        super().__init__(rules, seed)
        self.observe, self.mask, self.pick, self.track = observe, mask, pick and mask, track
        self._stale_facts()

    def _stale_facts(self) -> None:
        if not self.track:
            tracker = self.env.tracker
            tracker.hidden[:] = tracker.pack

    def run(self, decisions: int) -> float:
        import numpy as np
        rng, env, boolean = self.rng, self.env, np.dtype(np.bool_)
        encode, make_mask, moves = env.encoder.from_state, env.table.mask, env.table.moves
        observe, mask, pick, track = self.observe, self.mask, self.pick, self.track
        obs: dict[str, object] = {}
        made = 0
        start = time.process_time()
        while made < decisions:
            state = env.game_state
            if state.is_over:
                self.game += 1
                env.reset(seed=self.seed + self.game)
                self._stale_facts()
                continue
            legal = legal_moves(state)
            if observe:
                obs["observation"] = encode(state, state.actor, env.tracker)
            if mask:
                obs["action_mask"] = ones = make_mask(legal)
                if pick:
                    index = ones.view(boolean).nonzero()[0].tolist()
            after = apply(state, moves[index[rng.randrange(len(index))]] if pick
                          else legal[rng.randrange(len(legal))])
            if track:
                env._follow(after)
            env.state_ = after
            made += 1
        return time.process_time() - start


# What ``--parts`` runs (interleaved in slices), and how each part is the difference of two.
PART_RUNS: dict[str, dict[str, bool]] = {
    "whole": {}, "no observation": {"observe": False}, "no mask": {"mask": False},
    "mask, no pick": {"pick": False}, "no tracker": {"track": False}}
PARTS = (("the observation vector", "whole", "no observation"),
         ("the mask", "mask, no pick", "no mask"),
         ("the agent's masked pick (numpy's nonzero)", "whole", "mask, no pick"),
         ("the public-facts tracker (the move's events)", "whole", "no tracker"))


def bench_parts(rules: Ruleset, decisions: int, rounds: int, seed: int,
                echo: Callable[[str], None]) -> dict[str, float]:
    """Microseconds per decision of the engine, the environment and each of its parts (see
    ``EnvParts``), every run taking turns a slice at a time, over ``rounds`` rounds."""
    runs: dict[str, EngineRandom | EnvRandom] = {}
    spent: dict[str, float] = {}
    for r in range(rounds):
        runs = {"engine": EngineRandom(rules, seed + r), "environment": EnvRandom(rules, seed + r),
                **{name: EnvParts(rules, seed + r, **kw) for name, kw in PART_RUNS.items()}}
        done = 0
        while done < decisions:
            k = min(SLICE, decisions - done)
            for name, run in runs.items():
                spent[name] = spent.get(name, 0.0) + run.run(k)
            done += k
    us = {name: 1e6 * t / (decisions * rounds) for name, t in spent.items()}
    own = us["environment"] - us["engine"]
    echo(f"engine (legal_moves, a pick, apply): {us['engine']:.1f} us a decision; environment"
         f" {us['environment']:.1f} us; its own work {own:.1f} us:")
    parts = {"the AEC API (last, step: rewards, the next agent)": us["environment"] - us["whole"]}
    parts.update((label, us[a] - us[b]) for label, a, b in PARTS)
    parts["the rest (the difference's noise, and the loop)"] = own - sum(parts.values())
    for label, value in parts.items():
        echo(f"  {label}: {value:.1f} us ({100 * value / own if own else 0:.0f}%)")
    return us


# Decisions per slice: both sides take turns a slice at a time within a round, so that a
# change of the machine's load hits both alike.
SLICE = 500


GAME_SLICE = 2  # games per slice of the single-agent comparison


def bench_round(rules: Ruleset, decisions: int, seed: int, games: int = 0) -> Round:
    """One round: ``decisions`` decisions of the engine, the AEC and the parallel
    environment, in alternating slices; then ``games`` whole games of the engine and of the
    single-agent environment, alternating a few games at a time."""
    runs: tuple[EngineRandom | EnvRandom | ParallelRandom, ...] = (
        EngineRandom(rules, seed), EnvRandom(rules, seed), ParallelRandom(rules, seed))
    spent = [0.0, 0.0, 0.0]
    done = 0
    while done < decisions:
        k = min(SLICE, decisions - done)
        for i, run in enumerate(runs):
            spent[i] += run.run(k)
        done += k
    engine_games, single = EngineGames(rules, seed), SingleGames(rules, seed)
    played, spent_games = 0, [0.0, 0.0]
    while played < games:
        k = min(GAME_SLICE, games - played)
        spent_games[0] += engine_games.games(k)
        spent_games[1] += single.games(k)
        played += k
    return Round(decisions / spent[0], decisions / spent[1], decisions / spent[2],
                 games / spent_games[0] if games else 0.0,
                 games / spent_games[1] if games else 0.0)


def bench_env(rules: Ruleset, decisions: int, rounds: int, seed: int,
              echo: Callable[[str], None], games: int = 0) -> list[Round]:
    out = []
    for r in range(rounds):
        got = bench_round(rules, decisions, seed + r, games)
        out.append(got)
        echo(f"round {r + 1}: engine {got.engine_per_s:>7.0f} decisions/s; AEC env"
             f" {got.env_per_s:>7.0f} ({got.ratio:.2f}x); parallel env {got.parallel_per_s:>7.0f}"
             f" ({got.parallel_ratio:.2f}x)")
        if games:
            echo(f"         engine {got.engine_games_per_s:.1f} games/s; single-agent env"
                 f" (learner and builtin:random opponents) {got.single_games_per_s:.1f}"
                 f" games/s ({got.single_ratio:.2f}x)")
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
        parts: Annotated[bool, typer.Option(
            "--parts", help="Also time each part of an environment step (observation, mask,"
            " pick, tracker, the AEC API) by leaving it out, interleaved.")] = False,
        games: Annotated[int, typer.Option(
            help="Whole games per round of the engine and of the single-agent environment"
            " (a random learner against builtin:random), on the same deals (0: none).",
            min=0, max=100_000)] = 40,
    ) -> None:
        """Masked random play through the PettingZoo environments (observation vector and
        mask at every step: the AEC one, and the parallel one with every agent's) against
        the bare engine's random play, and whole games of the single-agent environment
        against the engine's on the same deals: rounds of alternating slices, the median
        ratios and spread, and the load average."""
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
        done = bench_env(ruleset, decisions, rounds, seed, typer.echo, games)
        for label, ratios in (("AEC env/engine", [r.ratio for r in done]),
                              ("parallel env/engine", [r.parallel_ratio for r in done]),
                              ("single-agent env/engine (games)",
                               [r.single_ratio for r in done] if games else [])):
            if ratios:
                typer.echo(f"{label}: median {statistics.median(ratios):.2f}, min"
                           f" {min(ratios):.2f}, max {max(ratios):.2f} over {len(done)} rounds")
        if parts:
            typer.echo("where an environment step's time goes (each part: the difference of"
                       " two runs, one without it):")
            bench_parts(ruleset, decisions, rounds, seed, typer.echo)
        typer.echo(f"load average at end: {os.getloadavg()[0]:.2f}")
