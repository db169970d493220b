"""A deterministic bot (it always plays the first listed move) that holds games back at a gate:
``gated.py DIR``.  A game whose number (``game_start``'s ``game``) is past the number in
DIR/limit waits, before it starts, until DIR/open exists, and marks that it does with a file
DIR/held-GAME-SEAT.  The gate goes by game number, not by the order in which bots reach it, so
which games are held does not depend on how the machine schedules the bots: a test knows
exactly which games a run can finish before it opens the gate."""

import json
import os
import sys
import time

GATE = sys.argv[1]


def wait_at_the_gate(game: int, seat: int) -> None:
    with open(os.path.join(GATE, "limit")) as f:
        limit = int(f.read())
    if game > limit and not os.path.exists(os.path.join(GATE, "open")):
        os.close(os.open(os.path.join(GATE, f"held-{game}-{seat}"), os.O_CREAT | os.O_WRONLY))
        while not os.path.exists(os.path.join(GATE, "open")):
            time.sleep(0.05)


def main() -> None:
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            print(json.dumps({"type": "ready", "protocol": "canasta/1"}), flush=True)
        elif kind == "game_start":
            wait_at_the_gate(int(msg["game"]), int(msg["seat"]))
        elif kind == "act":
            print(json.dumps({"type": "move", "id": msg["id"], "index": 0}), flush=True)
        elif kind == "bye":
            return


if __name__ == "__main__":
    main()
