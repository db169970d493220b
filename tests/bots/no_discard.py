#!/usr/bin/env python3
"""A bot that melds, adds, takes and asks whenever it can, and crashes when it must discard
(every listed move a discard): the bug a check that stops after one answer never meets.

Standard library only (a boxed bot sees its own folder, not bots/canasta_kit.py), in the
shape of bots/random_bot.py: ``choose`` gets the observation and the listed moves."""

import json
import sys
from typing import Any


def choose(observation: dict[str, Any], moves: list[dict[str, Any]]) -> dict[str, Any]:
    for move in moves:
        if move["action"] != "discard":
            return move
    print(f"no_discard: asked to discard in phase {observation.get('phase')} --"
          " NotImplementedError: discarding is not written yet", file=sys.stderr, flush=True)
    sys.exit(5)


def main() -> None:
    request: dict[str, Any] | None = None
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            print(json.dumps({"type": "ready", "protocol": "canasta/1", "name": "no_discard"}),
                  flush=True)
        elif kind == "act":
            request = msg
            move = choose(msg["observation"], msg["moves"])
            print(json.dumps({"type": "move", "id": msg["id"], "index": move["index"]}),
                  flush=True)
        elif kind == "error" and msg.get("retry") and request is not None:
            print(json.dumps({"type": "move", "id": msg["id"], "index": 0}), flush=True)
        elif kind == "bye":
            break


if __name__ == "__main__":
    main()
