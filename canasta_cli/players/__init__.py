"""Built-in players.  They read protocol messages only, exactly like an outside bot."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .greedy import GreedyPlayer
from .random_player import RandomPlayer

PLAYERS: dict[str, Callable[[Any], Any]] = {"random": RandomPlayer, "greedy": GreedyPlayer}

__all__ = ["PLAYERS", "GreedyPlayer", "RandomPlayer"]
