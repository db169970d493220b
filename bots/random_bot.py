#!/usr/bin/env python3
"""A complete Canasta bot in a few lines: the template for writing your own.

It uses the bot kit next to it (canasta_kit.py, standard library only): the kit speaks the
protocol (protocol/README.md), keeps track of the table and calls ``choose`` for every
decision.  ``choose`` gets the observation and the listed legal moves and returns one of them.
Log to stderr, never to stdout.
"""

import random
from typing import Any

import canasta_kit

rng = random.Random()


def choose(observation: dict[str, Any], moves: list[dict[str, Any]]) -> dict[str, Any]:
    return rng.choice(moves)


if __name__ == "__main__":
    # No optional capability: a random choice needs no per-move facts.
    canasta_kit.run(choose, name="random_bot.py", capabilities=())
