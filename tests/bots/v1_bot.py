#!/usr/bin/env python3
"""A canasta/1 bot (the example bot before protocol 1.1), kept to test that old bots still play.

It speaks protocol canasta/1 (protocol/README.md): one JSON object per line on stdin and
stdout.  It needs nothing but the standard library.  Log to stderr, never to stdout.
"""

import json
import random
import sys


def main() -> None:
    rng = random.Random()
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        reply: dict[str, object]
        if kind == "hello":
            reply = {"type": "ready", "protocol": "canasta/1", "name": "random_bot.py"}
        elif kind == "act" or (kind == "error" and msg.get("retry")):
            if kind == "act":
                request = msg  # the legal moves are listed in every request to act
            reply = {"type": "move", "id": request["id"],
                     "index": rng.randrange(len(request["moves"]))}
        elif kind == "bye":
            return
        else:
            continue  # events, game_start, game_end: a random bot needs none of them
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
