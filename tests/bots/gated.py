"""A deterministic bot (it always plays the first listed move) that holds games back at a gate:
``gated.py DIR``.  Each game it joins takes a ticket in DIR; a game whose ticket is past
DIR/limit waits, before it starts, until DIR/open exists.  So a test knows that a run cannot
finish before it opens the gate, however fast or slow the machine is."""

import json
import os
import sys
import time

GATE = sys.argv[1]


def ticket() -> int:
    n = 0
    while True:
        n += 1
        try:
            os.close(os.open(os.path.join(GATE, f"ticket-{n}"), os.O_CREAT | os.O_EXCL))
            return n
        except FileExistsError:
            continue


def wait_at_the_gate() -> None:
    with open(os.path.join(GATE, "limit")) as f:
        limit = int(f.read())
    if ticket() > limit:
        while not os.path.exists(os.path.join(GATE, "open")):
            time.sleep(0.05)


def main() -> None:
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            print(json.dumps({"type": "ready", "protocol": "canasta/1"}), flush=True)
        elif kind == "game_start":
            wait_at_the_gate()
        elif kind == "act":
            print(json.dumps({"type": "move", "id": msg["id"], "index": 0}), flush=True)
        elif kind == "bye":
            return


if __name__ == "__main__":
    main()
