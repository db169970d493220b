#!/usr/bin/env python3
"""A bot that crashes on its first decision after writing a long stderr: 60 lines of noise,
then a line with markup and terminal escapes (for the reports: the end of a failing bot's
stderr is shown bounded and escaped)."""

import json
import sys

for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "hello":
        print(json.dumps({"type": "ready", "protocol": "canasta/1", "name": "loud"}), flush=True)
    elif msg.get("type") == "act":
        for i in range(1, 61):
            print(f"loud: noise {i:02d}", file=sys.stderr)
        print("loud: <script>alert('stderr')</script> \x1b[2J\x1b]0;title\x07 -- ValueError",
              file=sys.stderr, flush=True)
        sys.exit(7)
    elif msg.get("type") == "bye":
        break
