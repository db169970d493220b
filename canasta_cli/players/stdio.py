"""Run a built-in player as a stdin/stdout bot (used by bots/greedy_bot.py)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

Player = Callable[[dict[str, Any]], dict[str, Any] | None]


def run(player: Player, name: str) -> None:
    last_act: dict[str, Any] | None = None
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        reply: dict[str, Any] | None = None
        if kind == "hello":
            reply = {"type": "ready", "protocol": "canasta/1", "name": name}
        elif kind == "act":
            last_act = msg
            reply = player(msg)
        elif kind == "error" and msg.get("retry") and last_act is not None:
            reply = player(last_act)
        elif kind == "bye":
            return
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
