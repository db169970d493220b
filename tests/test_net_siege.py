"""Sieges of a table, each held to a bound: silent connections from one address (a few
joining slots, the rest told to try again or reset, and a silent one counts as a wrong
token), more connections than the open-file limit (the table plays on, and says so once a
second, no traceback), silent connections at a TLS table (counted from accept, before their
handshake), and a bot that floods the table between its turns (cut off past 256 KiB).
Everything stays on 127.0.0.1; every wait is a hang guard, never a timing assertion."""

from __future__ import annotations

import contextlib
import json
import re
import select
import socket
import ssl
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from net_helpers import WAIT, Raw, Served, certificate, serve

from canasta_cli.core import CLASSIC
from canasta_cli.hosting.referee import TimeControl
from canasta_cli.net.client import server_tls
from canasta_cli.net.gallery import Gallery
from canasta_cli.net.hub import Hub, Listening
from canasta_cli.net.tokens import Guard, TokenBook

RULES = CLASSIC.with_options(max_hands=1)
JOINING = 8  # joining connections one address may hold (hub.MAX_JOINING)
HELD = 24  # one address's connections before the rest are reset (+ hub.MAX_REFUSING)
LONG = WAIT * 4  # a handshake deadline no test waits for
PATIENT = TimeControl(decision_ms=WAIT * 4000)  # the tests' bots may be slow: a loaded machine


def _hub(handshake_s: float, guard: Guard | None = None,
         tls: ssl.SSLContext | None = None) -> Hub:
    """A hub alone (no game), its spectators' token leading to a gallery."""
    hub = Hub(TokenBook.fresh([True]), Listening(tls=tls, handshake_s=handshake_s, guard=guard))
    hub.targets[("watch", -1)] = Gallery(hub)
    hub.start()
    return hub


def _connect(port: int) -> socket.socket | None:
    """A connection that says nothing, or None if the server reset it at once."""
    try:
        return socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    except ConnectionResetError:
        return None


def _closed_by_server(socks: list[socket.socket | None], want: int) -> dict[int, bytes]:
    """Wait until ``want`` of ``socks`` have been closed by the server (up to WAIT): what
    each of those said, by index (one reset at connect said nothing)."""
    ended = {i: b"" for i, s in enumerate(socks) if s is None}
    said: dict[int, bytes] = {}
    deadline = time.monotonic() + WAIT
    while len(ended) < want and (left := deadline - time.monotonic()) > 0:
        live = {s: i for i, s in enumerate(socks) if s is not None and i not in ended}
        for sock in select.select(list(live), [], [], left)[0]:
            try:
                chunk = sock.recv(65536)
            except OSError:
                chunk = b""
            i = live[sock]
            if chunk:
                said[i] = said.get(i, b"") + chunk
            else:
                ended[i] = said.get(i, b"")
    return ended


def _close(socks: list[socket.socket | None]) -> None:
    for sock in socks:
        if sock is not None:
            sock.close()


def _until(check: Any, what: str) -> None:
    """Wait for ``check()`` (a hang guard of WAIT, polled)."""
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_one_address_holds_only_a_few_joining_slots() -> None:
    hub = _hub(LONG, Guard(limit=10_000))
    socks = [_connect(hub.port) for _ in range(40)]
    try:
        ended = _closed_by_server(socks, 40 - JOINING)
        assert len(ended) == 40 - JOINING, f"{len(ended)} of 40 turned away, {hub.refusals}"
        live = [s for i, s in enumerate(socks) if i not in ended and s is not None]
        assert not select.select(live, [], [], 0)[0]  # the 8 are held, their deadline far off
        told = [json.loads(answer) for answer in ended.values() if answer]
        assert all(t == {"type": "refused", "retry": True, "reason": "too many connections"
                         " from 127.0.0.1 are joining: try again"} for t in told), told
        assert hub.refusals.get("busy", 0) + hub.refusals.get("crowd", 0) == 40 - JOINING
    finally:
        _close(socks)
    try:  # once they are gone, the address joins again: nothing was left counted
        _until(lambda: not hub.joining and hub.open == 0, f"still counted: {hub.joining}")
        assert Raw(hub.port, hub.tokens.spectator, "watch").welcome["type"] == "welcome"
    finally:
        hub.close()


@pytest.mark.parametrize("tls", [False, True], ids=["plain", "tls"])
def test_a_silent_connection_counts_as_a_wrong_token(tmp_path: Path, tls: bool) -> None:
    cert, key = certificate(tmp_path) if tls else (None, None)
    server = server_tls(str(cert), str(key)) if tls else None
    hub = _hub(0.5, Guard(limit=3, window_s=3600, ban_s=600), tls=server)
    try:
        for _ in range(3):  # silent: at a TLS table, not even a TLS hello
            sock = _connect(hub.port)
            assert sock is not None
            answer = _closed_by_server([sock], 1)[0]
            sock.close()
            assert b"no join line within 0.5 s" in answer if not tls else answer == b""
        client = ssl.create_default_context(cafile=str(cert)) if tls else None
        refused = Raw(hub.port, hub.tokens.spectator, "watch", tls=client).welcome
        assert refused["type"] == "refused", refused  # a good token, from a banned address
        assert "too many wrong tokens or silent connections" in refused["reason"]
        assert "retry" not in refused
    finally:
        hub.close()


def test_silent_connections_at_a_tls_table_are_counted(tmp_path: Path) -> None:
    cert, key = certificate(tmp_path)
    hub = _hub(LONG, Guard(limit=10_000), tls=server_tls(str(cert), str(key)))
    socks = [_connect(hub.port) for _ in range(40)]  # no TLS hello: held in the handshake
    try:
        ended = _closed_by_server(socks, 40 - HELD)
        assert len(ended) == 40 - HELD and not any(ended.values()), hub.refusals
        assert hub.refusals == {"crowd": 40 - HELD}
    finally:
        _close(socks)
    try:
        _until(lambda: not hub.joining and hub.open == 0, f"still counted: {hub.joining}")
        client = ssl.create_default_context(cafile=str(cert))
        watcher = Raw(hub.port, hub.tokens.spectator, "watch", tls=client)
        assert watcher.welcome["type"] == "welcome"  # TLS itself still works
        watcher.close()
    finally:
        hub.close()


def _spectator(port: int, token: str) -> socket.socket | None:
    """A spectator's connection, once welcome (None: turned away)."""
    try:
        raw = Raw(port, token, "watch")
    except OSError:
        return None
    if raw.welcome["type"] == "welcome":
        return raw.sock
    raw.close()
    return None


def _rejoin(port: int, token: str) -> dict[str, Any]:
    """A spectator joins once the table has room again (tried until it has: a hang guard)."""
    deadline = time.monotonic() + WAIT
    while True:
        try:
            welcome = Raw(port, token, "watch").welcome
        except OSError:
            welcome = {"type": "EOF"}
        if welcome["type"] == "welcome" or time.monotonic() > deadline:
            return welcome
        time.sleep(0.2)


def test_more_connections_than_open_files_do_not_stop_the_table(tmp_path: Path) -> None:
    files = 96  # the table's limit: it keeps half of it for its own files (48 connections)
    proc, tokens, address = serve("--seed", "5", "--games", "2", "--set", "max_hands=1",
                                  "--save-dir", str(tmp_path), "--handshake-s", str(LONG),
                                  "--ban-after", "100000", "--decision-ms",
                                  str(PATIENT.decision_ms), "--seat", "remote", "--seat",
                                  "builtin:random", "--seat", "builtin:random", "--seat",
                                  "builtin:random", files=files)
    port = int(address.rsplit(":", 1)[1])
    began = time.monotonic()
    bot = Raw(port, tokens["0"])
    flood: list[socket.socket | None] = []
    games = acts = 0
    rejoined: dict[str, Any] = {}
    try:
        while (msg := bot.read())["type"] not in ("bye", "EOF"):
            games += msg["type"] == "game_start"
            acts += msg["type"] == "act"
            if msg["type"] == "act" and acts == 2:  # more than the limit, held into game 2
                flood += [_spectator(port, tokens["watch"]) for _ in range(files)]
                flood += [_connect(port) for _ in range(2 * files)]
            if msg["type"] == "act" and games == 2 and not rejoined:
                _close(flood)
                rejoined = _rejoin(port, tokens["watch"])
            bot.answer(msg)
    finally:
        _close(flood)
    out, _ = proc.communicate(timeout=WAIT)
    took = time.monotonic() - began
    assert proc.returncode == 0 and "Traceback" not in out, out
    assert "Game 1 over" in out and "Game 2 over" in out, out  # the tokens file was written
    assert rejoined.get("type") == "welcome", rejoined
    notes = re.findall(r".*connection\(s\) refused since the last note.*", out)
    assert notes and "the table is full (48 connections)" in out, out
    assert len(notes) <= took + 1, notes  # at most one a second


def test_a_bot_that_floods_between_its_turns_is_cut_off(tmp_path: Path) -> None:
    served = Served(["remote", "remote", "builtin:random", "builtin:random"], RULES, 8,
                    tmp_path, tc=PATIENT)
    flooder, other = Raw(served.port, served.token(0)), Raw(served.port, served.token(1))
    asked, cut = threading.Event(), threading.Event()
    ended: dict[str, Any] = {}

    def seat0() -> None:
        ended.update(flooder.play())
        cut.set()

    def seat1() -> None:
        """While seat 1 is asked, seat 0 is not: it waits there until seat 0 is cut off."""
        while (msg := other.read())["type"] not in ("bye", "EOF"):
            if msg["type"] == "act" and not asked.is_set():
                asked.set()
                cut.wait(WAIT)
            other.answer(msg)

    threads = [threading.Thread(target=f, daemon=True) for f in (seat0, seat1)]
    for thread in threads:
        thread.start()
    assert asked.wait(WAIT)
    junk = {"type": "chatter", "pad": "x" * (16 << 10)}
    with contextlib.suppress(OSError):  # the table may hang up before the whole MiB is sent
        for _ in range(64):
            flooder.send(junk)
    served.finish()
    assert ended["type"] == "EOF"  # the table closed seat 0's connection: no bye
    lines = served.lines()
    failures = [ln for ln in lines if ln["type"] == "failure" and ln["seat"] == 0]
    assert any("sent more than 256 KiB while it was not asked" in f["reason"]
               for f in failures), failures
    result = lines[-1]
    assert result["reason"] == "hand_limit"  # the game went on: default moves for seat 0
    assert result["seats"][0]["status"] == "PROTOCOL_ERROR"
    assert result["seats"][0]["default_moves"] > 0
    assert [s["status"] for s in result["seats"][1:]] == ["OK"] * 3
