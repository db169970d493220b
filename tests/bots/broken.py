"""Deliberately broken bots, one per failure mode: ``broken.py MODE``."""

import json
import random
import sys
import time

MODE = sys.argv[1]
rng = random.Random(1)


def out(obj) -> None:  # type: ignore[no-untyped-def]
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> None:  # noqa: C901 - one branch per failure
    if MODE == "noready":
        time.sleep(60)
        return
    sys.stdin.readline()  # the hello
    if MODE == "badhello":
        out({"type": "ready", "protocol": "canasta/9"})
        time.sleep(60)
        return
    out({"type": "ready", "protocol": "canasta/1", "name": MODE})
    if MODE == "noread":
        # Never read again: the referee's messages pile up in a full pipe.
        time.sleep(60)
        return
    if MODE == "outofturn":
        out({"type": "move", "id": 0, "index": 0})
    if MODE == "stubborn":
        # Ignores bye and SIGTERM, and leaves a child behind in its process group.
        import signal
        import subprocess
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    acts = 0
    request = None
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "bye":
            if MODE == "stubborn":
                time.sleep(120)
            return
        if MODE == "stderr":
            sys.stderr.write("x" * 100_000 + "\n")
        if kind == "act":
            request = msg
            acts += 1
        elif not (kind == "error" and msg.get("retry")):
            continue
        assert request is not None
        if MODE == "sleeper":
            time.sleep(30)
        elif MODE == "exiter" and acts > 3:
            sys.exit(3)
        elif MODE == "garbage":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
            continue
        elif MODE == "longline":
            sys.stdout.write("[" + "1," * 5_000_000 + "1]\n")
            sys.stdout.flush()
            continue
        elif MODE == "flood":
            for i in range(5000):
                out({"type": "chatter", "n": i})
        elif MODE == "object":
            legal = request["moves"][rng.randrange(len(request["moves"]))]
            out({"type": "move", "id": request["id"],
                 "move": {k: v for k, v in legal.items() if k not in ("index", "text")}})
            continue
        elif MODE == "illegal":
            out({"type": "move", "id": request["id"], "index": 9999})
            continue
        elif MODE == "illegaltext":
            out({"type": "move", "id": request["id"], "move": "meld K K K K K"})
            continue
        reply = {"type": "move", "id": request["id"],
                 "index": rng.randrange(len(request["moves"]))}
        out(reply)
        if MODE == "outofturn":
            out(reply)  # answers twice


if __name__ == "__main__":
    main()
