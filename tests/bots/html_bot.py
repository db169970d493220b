"""A bot whose every first answer is a line of HTML (a protocol error the referee quotes in
the failure's reason), then a legal move: for the HTML report's escaping test."""

import json
import random
import sys

rng = random.Random(3)
LINE = '<img src=x onerror="alert(2)"><b id="injected">bold</b></td></script><!--'


def main() -> None:
    sys.stdin.readline()  # the hello
    print(json.dumps({"type": "ready", "protocol": "canasta/1", "name": "html"}), flush=True)
    request = None
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "bye":
            return
        if msg["type"] == "act":
            request = msg
            print(LINE, flush=True)
        elif msg["type"] == "error" and msg.get("retry") and request is not None:
            index = rng.randrange(len(request["moves"]))
            print(json.dumps({"type": "move", "id": request["id"], "index": index}), flush=True)


if __name__ == "__main__":
    main()
