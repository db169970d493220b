"""Engine benchmark: random legal play, timed.  Lives outside the core because it reads the clock."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from .core import Ruleset, apply, legal_moves, new_game


@dataclass(frozen=True)
class EngineBench:
    rules: str
    players: int
    hands: int
    decisions: int
    seconds: float
    mean_moves: float
    max_moves: int

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds else 0.0

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0


def bench_engine(rules: Ruleset, hands: int, seed: int = 0) -> EngineBench:
    """Play at least ``hands`` hands of uniformly random legal moves (whole games, new seeds)."""
    rng = random.Random(seed)
    played = decisions = total_moves = max_moves = 0
    game = 0
    start = time.perf_counter()
    while played < hands:
        state = new_game(rules, seed=seed * 100_003 + game)
        game += 1
        while not state.is_over and played + len(state.results) < hands:
            moves = legal_moves(state)
            n = len(moves)
            decisions += 1
            total_moves += n
            if n > max_moves:
                max_moves = n
            state = apply(state, moves[rng.randrange(n)])
        played += len(state.results)
    seconds = time.perf_counter() - start
    return EngineBench(rules.name, rules.players, played, decisions, seconds,
                       total_moves / decisions if decisions else 0.0, max_moves)
