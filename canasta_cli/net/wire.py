"""What goes over a table connection besides the bot protocol: the one-line handshake, the
bounded line splitter, and the few messages only people and spectators get.

A connection speaks JSON lines only.  Its first line, from the client, is the handshake
``{"type": "join", "token": T, "client": "person" | "bot" | "watch"}``; the server answers
``welcome`` (or ``refused``, then closes: with ``"retry": true`` when the refusal passes, the
table being busy, so that a client knows to try again).  After that a seat's connection carries exactly
the bot protocol (protocol/README.md), plus, for a person's client only, ``explain`` and
``notice``; a spectator's carries the public lines of the sealed record as they are written.
"""

from __future__ import annotations

import json
from typing import Any

from ..core.errors import CanastaError
from ..protocol.replies import MAX_LINE

NET_VERSION = "canasta-net/1"
HANDSHAKE_LINE = 4096  # bytes: a token line is far shorter
DEFAULT_PORT = 7373
CLIENTS = ("person", "bot", "watch")


class LineTooLong(CanastaError):
    """More than the limit arrived without a newline."""


class Splitter:
    """Cuts a byte stream into lines, never holding more than ``limit`` bytes of a line:
    an over-long line is refused as soon as it passes the limit, not when it ends."""

    def __init__(self, limit: int = MAX_LINE) -> None:
        self.limit = limit
        self._buf = bytearray()

    def feed(self, chunk: bytes) -> list[bytes]:
        self._buf += chunk
        lines = []
        start = 0
        while True:
            i = self._buf.find(b"\n", start)
            if i < 0:
                break
            if i - start > self.limit:
                raise LineTooLong(f"line longer than the {self.limit}-byte limit")
            line = bytes(self._buf[start:i])
            lines.append(line[:-1] if line.endswith(b"\r") else line)
            start = i + 1
        del self._buf[:start]
        if len(self._buf) > self.limit:
            self._buf.clear()
            raise LineTooLong(f"line longer than the {self.limit}-byte limit")
        return lines


def line(msg: dict[str, Any]) -> bytes:
    return (json.dumps(msg, separators=(",", ":")) + "\n").encode("utf-8")


def join_message(token: str, client: str) -> bytes:
    return line({"type": "join", "version": NET_VERSION, "token": token, "client": client})


def refused(reason: str, retry: bool = False) -> bytes:
    """``retry``: the refusal passes (the table is busy): the client may try again soon."""
    msg: dict[str, Any] = {"type": "refused", "reason": reason}
    if retry:
        msg["retry"] = True
    return line(msg)


def notice(text: str) -> bytes:
    return line({"type": "notice", "text": text})


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6), or a host alone with the default port."""
    text = text.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    else:
        host, port = text, ""
    if not host:
        raise ValueError(f"{text!r}: expected HOST:PORT, e.g. 192.168.1.20:{default_port}")
    if not port:
        return host, default_port
    if not port.isdecimal() or not 0 < int(port) < 65536:
        raise ValueError(f"{text!r}: the port must be a number from 1 to 65535")
    return host, int(port)
