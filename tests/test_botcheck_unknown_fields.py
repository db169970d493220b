"""bot check's 'ignores unknown fields' really sends a request with a field the protocol does
not define (the lazy request of old dropped it from the bytes)."""

from __future__ import annotations

import sys
from pathlib import Path

from canasta_cli.botdev.check import run_checks

STRICT_BOT = r'''
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "protocol": "canasta/1"}), flush=True)
    elif m["type"] == "act":
        # Fails the check unless the unknown field came with the request that carries it.
        extra = "x_future" in m
        if extra and m["x_future"] != {"anything": [1, 2]}:
            continue
        if extra:
            print("saw x_future", file=sys.stderr, flush=True)
        print(json.dumps({"type": "move", "id": m["id"], "index": 0}), flush=True)
    elif m["type"] == "error" and m["retry"]:
        print(json.dumps({"type": "move", "id": m["id"], "index": 0}), flush=True)
    elif m["type"] == "bye":
        break
'''


def test_the_unknown_field_reaches_the_bot(tmp_path: Path) -> None:
    bot = tmp_path / "strict.py"
    bot.write_text(STRICT_BOT)
    stderr: list[str] = []
    checks = run_checks(f"{sys.executable} {bot}", 10.0, stderr=stderr)
    by_name = {c.name: c for c in checks}
    assert by_name["ignores unknown fields"].passed
    assert all(c.passed for c in checks), [c for c in checks if not c.passed]
    assert "saw x_future" in stderr[0]
