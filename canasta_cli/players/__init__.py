"""Built-in players.  They read protocol messages only, exactly like an outside bot."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from .greedy import GreedyPlayer
from .random_player import RandomPlayer

# name -> factory taking the player's own seed
PLAYERS: dict[str, Callable[[int], Callable[[dict[str, Any]], dict[str, Any] | None]]] = {
    "random": lambda seed: RandomPlayer(random.Random(seed)),
    "greedy": lambda seed: GreedyPlayer(),
}

__all__ = ["PLAYERS", "GreedyPlayer", "RandomPlayer"]
