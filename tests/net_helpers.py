"""Helpers for the table tests: a table served in-process, a bot spoken by hand over a raw
socket, and ``canasta serve``/``canasta join`` as processes.  Everything stays on 127.0.0.1."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pexpect
import pytest

from canasta_cli.core import Ruleset
from canasta_cli.hosting.referee import GameResult, TimeControl
from canasta_cli.net.table import (
    GamePlan,
    GameSeries,
    Table,
    TableOptions,
    build_seats,
    play_games,
)
from canasta_cli.seats.box import DEFAULT_POLICY

ROOT = Path(__file__).resolve().parent.parent
CANASTA = str(Path(sys.executable).with_name("canasta"))
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PROMPT = re.compile(r"(your move|Answer yes or no)>")
FULL_PROMPT = re.compile(r"(Seat \d+, your move|Answer yes or no)>")
TABLE = re.compile(r"== Hand \d+ - seat")
WAIT = 60  # s: a hang guard, never a timing assertion


class Served:
    """A table served on a thread of this process, its game(s) played on another."""

    def __init__(self, specs: list[str], rules: Ruleset, seed: int, tmp: Path,
                 decks: list[list[int]] | None = None, dealer: int | None = None,
                 tc: TimeControl | None = None, **opts: Any) -> None:
        self.log: list[str] = []
        self.table = Table(specs, seed, TableOptions(port=0, **opts), out=self.log.append)
        self.table.start()
        self.port = self.table.hub.port
        self.record = tmp / "game.jsonl"
        seats = build_seats(self.table, specs, seed, tmp / "logs", None, DEFAULT_POLICY)
        first = GamePlan(seed, self.record, decks, dealer)
        self.results: list[GameResult] = []
        self.error: BaseException | None = None

        def run() -> None:
            try:
                self.table.wait_joined()
                games = GameSeries(rules, lambda g: first if g == 1 else None,
                                   tc or TimeControl())
                self.results += play_games(self.table, seats, games, lambda r, p: None)
            except BaseException as exc:  # reported by finish()
                self.error = exc

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def token(self, seat: int) -> str:
        tok = self.table.tokens.seats[seat]
        assert tok is not None
        return tok

    @property
    def spectator(self) -> str:
        return self.table.tokens.spectator

    def wait(self) -> None:
        self.thread.join(WAIT * 3)
        assert not self.thread.is_alive(), "the game did not end"

    def finish(self) -> GameResult:
        self.wait()
        self.table.close()
        if self.error is not None:
            raise self.error
        return self.results[0]

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(x) for x in self.record.read_text().splitlines()]


class Raw:
    """A client spoken by hand: the handshake, then JSON lines."""

    def __init__(self, port: int, token: str, client: str = "bot",
                 tls: ssl.SSLContext | None = None) -> None:
        sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        self.sock = tls.wrap_socket(sock, server_hostname="localhost") if tls else sock
        self.buf = b""
        self.raw: list[bytes] = []  # every line received, as received
        self.send({"type": "join", "token": token, "client": client})
        self.welcome = self.read()

    def send(self, obj: dict[str, Any]) -> None:
        self.sock.sendall((json.dumps(obj) + "\n").encode())

    def read(self) -> dict[str, Any]:
        while b"\n" not in self.buf:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                return {"type": "EOF"}
            self.buf += chunk
        data, self.buf = self.buf.split(b"\n", 1)
        self.raw.append(data)
        msg: dict[str, Any] = json.loads(data)
        return msg

    def play(self, choose: Callable[[dict[str, Any]], int] = lambda m: 0,
             stop: Callable[[dict[str, Any]], bool] = lambda m: False) -> dict[str, Any]:
        """Answer as a bot until ``stop`` says so (that message is returned, unanswered), or
        bye, or the end of the connection."""
        while True:
            msg = self.read()
            if stop(msg) or msg["type"] in ("bye", "EOF"):
                return msg
            self.answer(msg, choose)

    def answer(self, msg: dict[str, Any], choose: Callable[[dict[str, Any]], int] = lambda m: 0
               ) -> None:
        if msg["type"] == "hello":
            self.send({"type": "ready", "protocol": "canasta/1", "name": "raw"})
        elif msg["type"] == "act":
            self.send({"type": "move", "id": msg["id"], "index": choose(msg)})

    def close(self) -> None:
        self.sock.close()


def env() -> dict[str, str]:
    e = dict(os.environ, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", COLUMNS="140", LINES="60",
             PYTHONUNBUFFERED="1")
    e.pop("NO_COLOR", None)
    return e


def serve(*args: str, files: int | None = None
          ) -> tuple[subprocess.Popen[str], dict[str, str], str]:
    """``canasta serve`` on a free port: the process, the join tokens by seat ("0", "1"...,
    and "watch") and the address, read from the join lines it prints.  ``files``: its
    open-file limit, soft and hard (the table cannot raise it)."""
    def limit() -> None:
        if files is not None:
            import resource
            resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    proc = subprocess.Popen([CANASTA, "serve", "--port", "0", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env(), cwd=ROOT,
                            preexec_fn=limit if files is not None else None)
    assert proc.stdout is not None
    tokens: dict[str, str] = {}
    address = ""
    for text in proc.stdout:  # the join lines name canasta as it can be run (commandline.py)
        m = re.match(r"\s+seat (\d+) \(.*?\): .* join (\S+) --token (\S+)", text)
        if m:
            tokens[m.group(1)] = m.group(3)
            address = m.group(2)
        m = re.match(r"\s+spectators: .* join (\S+) --token (\S+)", text)
        if m:
            tokens["watch"] = m.group(2)
            address = m.group(1)
            break
    assert address, "no join lines"
    return proc, tokens, address


def person(address: str, token: str, *args: str, log: Any = None) -> pexpect.spawn:
    child = pexpect.spawn(CANASTA, ["join", address, "--token", token, *args], cwd=ROOT,
                          env=env(), encoding="utf-8", timeout=WAIT, dimensions=(60, 140))
    # No pause before each line sent: a line typed ahead waits in the terminal for the prompt
    # (nothing flushes it), and one typed as the prompt is woken is kept (test_prompt_draft).
    child.delaybeforesend = None
    child.logfile_read = log
    return child


def screen(child: pexpect.spawn) -> str:
    return ANSI.sub("", child.before or "")


def choose(child: pexpect.spawn) -> str:
    """Ask for the legal moves and pick: draw, else yes, else the first discard."""
    child.sendline("moves")
    child.expect("Legal moves: ")
    child.expect(FULL_PROMPT)  # the list may be wrapped over several lines
    listed = " ".join(ANSI.sub("", child.before or "").split())
    moves = [m.strip() for m in listed.split(",")]
    for wanted in ("draw", "yes"):
        if wanted in moves:
            return wanted
    return next((m for m in moves if m.startswith("discard")), moves[0])


def certificate(tmp: Path) -> tuple[Path, Path]:
    """A self-signed certificate for localhost and 127.0.0.1 (openssl, as on any system)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("no openssl to make a test certificate (and no cryptography package)")
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    made = subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                           str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=localhost",
                           "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                          capture_output=True, text=True, timeout=WAIT)
    if made.returncode != 0:
        pytest.skip(f"openssl cannot make a test certificate here: {made.stderr[-200:]}")
    return cert, key


def record_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]
