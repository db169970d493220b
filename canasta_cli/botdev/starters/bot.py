#!/usr/bin/env python3
"""A Canasta bot on the installed kit (``import canasta_kit``, from ``pip install canasta``).

``choose`` gets the observation and the listed legal moves and returns one of them.  Write
debug output to stderr (``print(..., file=sys.stderr)``), never to stdout: stdout carries the
protocol.
"""

import random
import sys
from typing import Any

import canasta_kit

rng = random.Random()


def choose(observation: dict[str, Any], moves: list[dict[str, Any]]) -> Any:
    # Prefer melding and taking the pile; otherwise the discard the public facts make safest.
    for action in ("pile", "meld", "add"):
        options = [m for m in moves if m["action"] == action]
        if options:
            return rng.choice(options)
    discards = [m for m in moves if m["action"] == "discard"]
    if discards:
        public = observation.get("public") or {}
        return max(discards, key=lambda m: canasta_kit.discard_safety(m["text"].split()[1],
                                                                      public))
    return rng.choice(moves)


if __name__ == "__main__":
    print("bot.py starting", file=sys.stderr)
    canasta_kit.run(choose, name="starter.py")
