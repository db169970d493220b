"""Run a built-in player as a stdin/stdout bot (``canasta bot run``, bots/greedy_bot.py)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

Player = Callable[[dict[str, Any]], dict[str, Any] | None]


def run(player: Player, name: str) -> None:
    """Every message goes to the player (players that follow the game need the events);
    its answers to ``act`` (and to an ``error`` with retry: the same request again) go out."""
    last_act: dict[str, Any] | None = None
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if not isinstance(msg, dict):
            continue
        kind = msg.get("type")
        reply: dict[str, Any] | None = None
        if kind == "hello":
            player(msg)
            reply = {"type": "ready", "protocol": "canasta/1", "name": name}
        elif kind == "act":
            last_act = msg
            reply = player(msg)
        elif kind == "error" and msg.get("retry") and last_act is not None:
            reply = player(last_act)
        elif kind == "bye":
            return
        else:
            player(msg)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
