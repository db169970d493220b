"""Built-in players.  They read protocol messages only, exactly like an outside bot."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from .greedy import GreedyPlayer
from .random_player import RandomPlayer
from .search import FastPlayer, SearchPlayer

Player = Callable[[dict[str, Any]], dict[str, Any] | None]

HARD_MS = 400  # 'hard' answers well within a second on one core of these machines


def _ms(arg: str, default: float) -> float:
    if not arg:
        return default
    if not arg.isdigit() or not 1 <= int(arg) <= 600_000:
        raise ValueError(f"builtin:search:MS takes milliseconds per decision (1 to 600000),"
                         f" not {arg[:20]!r}")
    return float(arg)


# name -> factory taking the player's own seed and the text after a second colon (or "")
PLAYERS: dict[str, Callable[[int, str], Player]] = {
    "random": lambda seed, arg: RandomPlayer(random.Random(seed)),
    "greedy": lambda seed, arg: GreedyPlayer(),
    "search": lambda seed, arg: SearchPlayer(seed, budget_ms=_ms(arg, 900.0)),
    "easy": lambda seed, arg: FastPlayer(seed, careless=True),
    "normal": lambda seed, arg: FastPlayer(seed),
    "hard": lambda seed, arg: SearchPlayer(seed, budget_ms=_ms(arg, float(HARD_MS))),
}
LEVELS = ("easy", "normal", "hard")

__all__ = ["LEVELS", "PLAYERS", "FastPlayer", "GreedyPlayer", "RandomPlayer", "SearchPlayer"]
