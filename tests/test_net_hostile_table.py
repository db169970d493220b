"""A hostile or busy table, faked here on 127.0.0.1, and ``canasta join`` as a spectator, a
bot and a person: nothing the table sends reaches the terminal raw (its escape sequences are
spelled out), what cannot be read (a 4,000-deep welcome) ends in a one-line error, never a
traceback, and a table that says it is busy is asked again until it lets the client in."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
from typing import Any

import pytest
from net_helpers import CANASTA, ROOT, WAIT, env

EVIL = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\u202e\r\x9b"  # retitle, clear, colour, reorder
SHOWN = "\\x1b]0;pwned\\x07\\x1b[2J"  # how it must appear: spelled out
DEEP = b'{"type": "welcome", "x": ' + b"[" * 4000 + b"]" * 4000 + b"}"
BUSY = {"type": "refused", "reason": "too many connections from 127.0.0.1 are joining: try"
        " again", "retry": True}
BYE = {"type": "bye"}
MODES = {"watch": ["--watch"], "bot": ["--bot", f"{sys.executable} bots/random_bot.py"],
         "person": []}
Line = dict[str, Any] | bytes


class FakeTable:
    """Answers its connections in turn, each with the lines of one script (after reading
    the join line), then hangs up; it stops after the last script."""

    def __init__(self, scripts: list[list[Line]]) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(WAIT)
        self.port = int(self.server.getsockname()[1])
        self.joins = 0
        self.thread = threading.Thread(target=self._run, args=(scripts,), daemon=True)
        self.thread.start()

    def _run(self, scripts: list[list[Line]]) -> None:
        with self.server:
            for script in scripts:
                try:
                    conn, _ = self.server.accept()
                except OSError:
                    return
                with conn, contextlib.suppress(OSError):
                    self._answer(conn, script)

    def _answer(self, conn: socket.socket, script: list[Line]) -> None:
        conn.settimeout(WAIT)
        got = b""
        while b"\n" not in got and (chunk := conn.recv(4096)):
            got += chunk
        self.joins += 1
        conn.sendall(b"".join((x if isinstance(x, bytes) else json.dumps(x).encode())
                              + b"\n" for x in script))
        conn.shutdown(socket.SHUT_WR)
        while conn.recv(65536):  # until the client hangs up
            pass


def _join(table: FakeTable, mode: str) -> subprocess.CompletedProcess[bytes]:
    done = subprocess.run([CANASTA, "join", f"127.0.0.1:{table.port}", "--token", "t",
                           *MODES[mode]], cwd=ROOT, capture_output=True, timeout=WAIT * 2,
                          env=dict(env(), COLUMNS="1000"), stdin=subprocess.DEVNULL)
    table.thread.join(WAIT)
    return done


def _safe(done: subprocess.CompletedProcess[bytes]) -> str:
    """What the client printed, checked free of any control character but newlines."""
    text = (done.stdout + done.stderr).decode("utf-8")
    assert "Traceback" not in text, text
    assert all(ch.isprintable() or ch == "\n" for ch in text), repr(text)
    return text


def _error(done: subprocess.CompletedProcess[bytes]) -> str:
    """The one-line error of a client that gave up."""
    _safe(done)
    lines = done.stderr.decode().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]


@pytest.mark.parametrize("mode", list(MODES))
def test_a_hostile_refusal_is_shown_escaped(mode: str) -> None:
    error = _error(_join(FakeTable([[{"type": "refused", "reason": EVIL}]]), mode))
    assert error.startswith("error: refused: ") and SHOWN in error, error


@pytest.mark.parametrize("mode", list(MODES))
def test_a_deeply_nested_welcome_is_a_one_line_error(mode: str) -> None:
    error = _error(_join(FakeTable([[DEEP]]), mode))
    assert "does not look like a canasta table" in error, error


def test_a_spectator_sees_a_hostile_table_escaped() -> None:
    script: list[Line] = [
        {"type": "welcome", "role": "spectator", "seat": None, "name": EVIL},
        {"type": "notice", "text": EVIL},
        {"type": "header", "game": EVIL, "seats": [EVIL, "b", "c", "d"]},
        {"type": "move", "seat": 0, "move": EVIL, "by": "default"},
        {"type": "event", "event": {"type": EVIL, "seat": 0, EVIL: EVIL}},
        {"type": "result", "reason": EVIL, "scores": [EVIL, 2]}, BYE]
    done = _join(FakeTable([script]), "watch")
    text = _safe(done)
    assert done.returncode == 0 and "== the table closed" in text, text
    assert text.count(SHOWN) >= 5, text  # the notice, a name, the move, the reason...


@pytest.mark.parametrize("mode", ["bot", "person"])
def test_a_player_sees_a_hostile_welcome_escaped(mode: str) -> None:
    welcome = {"type": "welcome", "role": "player", "seat": EVIL, "name": EVIL,
               "client": mode, "hint": False, "undo": False, "rejoin": False}
    done = _join(FakeTable([[welcome, {"type": "notice", "text": EVIL}, BYE]]), mode)
    text = _safe(done)
    assert done.returncode == 0 and SHOWN in text, text


@pytest.mark.parametrize("mode", list(MODES))
def test_a_busy_table_is_asked_again(mode: str) -> None:
    welcome = {"type": "welcome", "role": "spectator" if mode == "watch" else "player",
               "seat": 0, "name": "x"}
    table = FakeTable([[BUSY], [BUSY], [welcome, BYE]])
    done = _join(table, mode)
    text = _safe(done)
    assert done.returncode == 0 and table.joins == 3, text
    assert "busy; trying again" in text, text


def test_a_person_whose_connection_dropped_waits_out_a_busy_table() -> None:
    welcome = {"type": "welcome", "role": "player", "seat": 0, "name": "ana"}
    table = FakeTable([[welcome], [BUSY], [BUSY], [dict(welcome, rejoin=True), BYE]])
    done = _join(table, "person")
    text = _safe(done)
    assert done.returncode == 0 and table.joins == 4, text
    assert "Back at the table." in text and "== the table closed" in text, text
