"""A TIMEOUT's reason says what happened: a bot that wrote nothing took too long (with its
time); only a bot that wrote part of a line (bytes with no newline after them) is asked
whether it flushed stdout."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from canasta_cli.core import CLASSIC
from canasta_cli.protocol.messages import hello_message
from canasta_cli.seats.base import SeatFailure
from canasta_cli.seats.subprocess_seat import SubprocessSeat

READY = '{"type": "ready", "protocol": "canasta/1", "name": "quiet"}'
PARTIAL = '{"type": "move", "id": 1, "ind'
# Each bot answers the hello and never answers the request: "nothing" writes nothing more,
# "partial" part of a line (in the same write as the ready, so that it has arrived whatever
# the scheduling), "other" a whole line that is not the answer once it is asked.
BOT = f'''
import sys, time
mode = sys.argv[1]
sys.stdin.readline()
sys.stdout.write({READY!r} + "\\n" + ({PARTIAL!r} if mode == "partial" else ""))
sys.stdout.flush()
sys.stdin.readline()
if mode == "other":
    sys.stdout.write('{{"type": "move", "id": 999999, "index": 0}}\\n')
    sys.stdout.flush()
time.sleep(3600)
'''


def _timeout_reason(tmp_path: Path, mode: str, seconds: float = 1.5) -> str:
    bot = tmp_path / "quiet.py"
    bot.write_text(BOT, encoding="utf-8")
    seat = SubprocessSeat(f"{sys.executable} {bot} {mode}")
    try:
        seat.start(hello_message(0, CLASSIC, {"decision_ms": 1500, "bank_ms": 0}), 60.0)
        with pytest.raises(SeatFailure) as caught:
            seat.request({"type": "act", "game": 1, "id": 1}, seconds)
    finally:
        seat.close(grace=0.5)
    assert caught.value.status == "TIMEOUT"
    return caught.value.reason


def test_a_bot_that_wrote_nothing_is_told_it_took_too_long(tmp_path: Path) -> None:
    reason = _timeout_reason(tmp_path, "nothing")
    assert reason == "no answer within 1500 ms: the bot took too long (it wrote nothing)"
    assert "flush" not in reason


def test_a_bot_that_wrote_part_of_a_line_is_asked_whether_it_flushed(tmp_path: Path) -> None:
    reason = _timeout_reason(tmp_path, "partial")
    assert reason.startswith(f"no answer within 1500 ms; it wrote {len(PARTIAL)} bytes with no"
                             " newline after them")
    assert "did the bot flush stdout?" in reason


def test_a_bot_that_wrote_only_other_lines_took_too_long(tmp_path: Path) -> None:
    # Time enough for the bot to write its line, however loaded the machine is.
    reason = _timeout_reason(tmp_path, "other", 8.0)
    assert reason == ("no answer within 8000 ms: the bot took too long (it wrote 1 line, none"
                      " of them the answer)")
