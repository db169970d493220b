"""Uniformly random legal moves."""

from __future__ import annotations

import random
from typing import Any


class RandomPlayer:
    hears_events = False  # it decides from each request alone
    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def __call__(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        if dict.get(msg, "type") != "act":  # "type" is never made lazily (``Prepared``)
            return None
        # In-process, the listed moves also come as engine objects (``legal``, the same list):
        # counting them needs no JSON-shaped move list.
        legal = getattr(msg, "legal", None)
        count = len(legal) if legal is not None else len(msg["moves"])
        return {"type": "move", "id": msg["id"], "index": self.rng.randrange(count)}
