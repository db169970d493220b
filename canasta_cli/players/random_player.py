"""Uniformly random legal moves."""

from __future__ import annotations

import random
from typing import Any

from ..protocol.messages import ActRequest


class RandomPlayer:
    hears_events = False  # it decides from each request alone
    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def __call__(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        if msg.get("type") != "act":
            return None
        return {"type": "move", "id": msg["id"], "index": self.rng.randrange(len(msg["moves"]))}

    def act(self, request: ActRequest) -> dict[str, Any]:
        """In-process: counting the listed moves needs no observation and no JSON moves."""
        return {"type": "move", "id": request.id, "index": self.rng.randrange(len(request.legal))}
