"""Uniformly random legal moves."""

from __future__ import annotations

import random
from typing import Any


class RandomPlayer:
    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def __call__(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        if msg.get("type") != "act":
            return None
        return {"type": "move", "id": msg["id"], "index": self.rng.randrange(len(msg["moves"]))}
