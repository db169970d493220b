#!/usr/bin/env python3
"""A bot with a bug on one rare path: it plays the first listed move, except that

* ``refuse``: the first time the pile is offered and it draws instead, it crashes;
* ``nth K``: it crashes on its K-th decision;
* ``players K``: it crashes on its first decision at a table of K players;
* ``silent K``: on its K-th decision it answers without flushing (then hangs);
* ``chatty K``: on its K-th decision it prints a debug line to stdout first;
* ``afteryes``: it crashes when it must go out after its partner said yes (a rare decision);
* ``onecard``: it crashes when it must draw two with one card left in the stock (two-player);
* ``merged``: it crashes on its first decision as a cut-throat partner after both partners'
  melds of one rank were merged.

Before crashing it says why on stderr, so that the failure report can show it."""

import json
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "refuse"
k = int(sys.argv[2]) if len(sys.argv) > 2 else 1
decisions = 0
me = None
merged = False
players = 0

for line in sys.stdin:
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "hello":
        print(json.dumps({"type": "ready", "protocol": "canasta/1", "name": "crashy"}), flush=True)
    elif kind == "game_start":
        me, merged, players = msg["seat"], False, msg["players"]
    elif kind == "event" and msg["event"].get("type") == "partners":
        merged = me in msg["event"]["partners"] and bool(msg["event"]["merged"])
    elif kind == "act":
        decisions += 1
        moves = msg["moves"]
        texts = [m["text"] for m in moves]
        print(f"crashy: decision {decisions}, {len(moves)} moves", file=sys.stderr, flush=True)
        if mode == "refuse" and any(t.startswith("pile") for t in texts) and "draw" in texts:
            print("crashy: declining the pile -- KeyError in my refuse code", file=sys.stderr,
                  flush=True)
            sys.exit(3)
        if mode == "afteryes" and (msg["observation"].get("turn") or {}).get("permission") is True:
            print("crashy: my partner said yes -- IndexError", file=sys.stderr, flush=True)
            sys.exit(6)
        obs = msg["observation"]
        if (mode == "onecard" and obs.get("stock_size") == 1 and obs.get("phase") == "draw"
                and "draw" in texts):
            print("crashy: one card left for a draw of two -- ValueError", file=sys.stderr,
                  flush=True)
            sys.exit(7)
        if mode == "merged" and merged:
            print("crashy: my partner's melds merged into mine -- KeyError", file=sys.stderr,
                  flush=True)
            sys.exit(8)
        if mode == "players" and players == k:
            print(f"crashy: a table of {k} players -- ZeroDivisionError", file=sys.stderr,
                  flush=True)
            sys.exit(9)
        if mode == "nth" and decisions == k:
            print(f"crashy: giving up on decision {k}", file=sys.stderr, flush=True)
            sys.exit(4)
        reply = json.dumps({"type": "move", "id": msg["id"], "index": 0})
        if mode == "silent" and decisions == k:
            sys.stdout.write(reply + "\n")  # never flushed: stdout to a pipe is buffered
            time.sleep(3600)
        if mode == "chatty" and decisions == k:
            print("DEBUG my hand is", msg["observation"].get("hand"), flush=True)
        print(reply, flush=True)
    elif kind == "error" and msg.get("retry"):
        print(json.dumps({"type": "move", "id": msg.get("id"), "index": 0}), flush=True)
    elif kind == "bye":
        break
