"""The table's listening side: an asyncio event loop on a thread of its own.

Why asyncio streams (standard library): one loop holds hundreds of idle or hostile
connections at no cost to the game, ``wait_for`` gives every handshake a deadline, and TLS is
``start_server(ssl=...)`` with its own handshake timeout.  The referee keeps its thread and
its blocking Seat interface: a remote seat hands lines across with a condition variable, and
writes go to the loop with ``call_soon_threadsafe``.  Lines are cut by ``wire.Splitter``
(4 KiB before the token, the protocol's 1 MiB after it), so nothing over the limit is ever
buffered, and each connection's reading is throttled (a client that floods only stalls its
own connection: TCP holds the rest on its side).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import struct
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..protocol.replies import MAX_LINE, ProtocolError, decode_line, quote
from .tokens import Guard, TokenBook
from .wire import CLIENTS, HANDSHAKE_LINE, LineTooLong, Splitter, line, refused

MAX_CONNECTIONS = 1024  # open at once; past it new ones are closed at once
MAX_HANDSHAKES = 512  # connections that have not sent their token yet
MAX_PENDING = 8 << 20  # bytes waiting for a client that does not read
READ_RATE = 200.0  # line units per second a connection may send (a line, or 4 KiB of one)
READ_BURST = 2000.0
LINGER_S = 0.5  # a refused client's last bytes are read (and dropped) this long


class Target(Protocol):
    """What a token leads to: a remote seat or the spectators' gallery (loop thread only)."""

    def attach(self, conn: Conn, client: str) -> str | None: ...  # a refusal, or None
    def receive(self, conn: Conn, data: bytes) -> None: ...
    def too_long(self, conn: Conn, reason: str) -> None: ...
    def detach(self, conn: Conn, reason: str) -> None: ...


class Conn:
    """One accepted connection.  ``write`` and ``close`` may be called from any thread."""

    def __init__(self, hub: Hub, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 address: str) -> None:
        self.hub = hub
        self.reader = reader
        self.writer = writer
        self.address = address
        self.client = ""
        self.closed = False
        self.reason = ""

    def write(self, data: bytes) -> None:
        if self.hub.in_loop():
            self._write(data)
        else:
            self.hub.call(self._write, data)

    def _write(self, data: bytes) -> None:
        if self.closed:
            return
        transport = self.writer.transport
        if transport.is_closing():
            return
        self.writer.write(data)
        waiting = transport.get_write_buffer_size()
        if waiting > MAX_PENDING:
            self._abort(f"stopped reading ({waiting} bytes waiting for it)")

    def close(self, reason: str = "") -> None:
        """Close after what is written has gone out."""
        if self.hub.in_loop():
            self._close(reason)
        else:
            self.hub.call(self._close, reason)

    def _close(self, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self.reason = self.reason or reason
            with contextlib.suppress(Exception):
                self.writer.close()

    def _abort(self, reason: str) -> None:
        self.reason = self.reason or reason
        self.closed = True
        with contextlib.suppress(Exception):
            self.writer.transport.abort()

    def rtt_ms(self) -> float | None:
        """TCP's smoothed round-trip estimate for this connection (Linux), in ms."""
        sock = self.writer.get_extra_info("socket")
        if sock is None or not sys.platform.startswith("linux"):
            return None
        try:
            info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
        except (OSError, AttributeError):
            return None
        if len(info) < 72:
            return None
        rtt_us = struct.unpack_from("I", info, 68)[0]  # tcpi_rtt: after 8 bytes and 15 u32s
        return float(rtt_us) / 1000.0


@dataclass
class Bucket:
    """Reading allowance of one connection: ``rate`` units a second, up to ``burst``."""

    rate: float = READ_RATE
    burst: float = READ_BURST
    level: float = READ_BURST
    at: float = 0.0

    def charge(self, units: float, now: float) -> float:
        """Spend ``units``; how long to wait before reading again."""
        if self.at:
            self.level = min(self.burst, self.level + (now - self.at) * self.rate)
        self.at = now
        self.level -= units
        return 0.0 if self.level >= 0 else -self.level / self.rate


class Hub:
    """Accepts connections, checks tokens, and hands each good one to its target."""

    def __init__(self, tokens: TokenBook, host: str = "127.0.0.1", port: int = 0,
                 tls: ssl.SSLContext | None = None, handshake_s: float = 10.0,
                 guard: Guard | None = None, log: Callable[[str], None] | None = None) -> None:
        self.tokens = tokens
        self.host = host
        self.port = port
        self.tls = tls
        self.handshake_s = handshake_s
        self.guard = guard or Guard()
        self.log = log or (lambda text: None)
        self.targets: dict[tuple[str, int], Target] = {}
        self.conns: set[Conn] = set()
        self.handshaking = 0
        self.refusals: dict[str, int] = {}  # why connections were turned away, counted
        self.loop = asyncio.new_event_loop()
        self._thread: threading.Thread | None = None
        self._server: asyncio.AbstractServer | None = None
        self._tid = 0
        self._started = threading.Event()
        self._error: BaseException | None = None

    # Threads -------------------------------------------------------------------------------
    def in_loop(self) -> bool:
        return threading.get_ident() == self._tid

    def call(self, fn: Callable[..., Any], *args: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody to write to
            self.loop.call_soon_threadsafe(fn, *args)

    def start(self) -> None:
        """Listen (on the hub's own thread); raises OSError if the address is not free."""
        self._thread = threading.Thread(target=self._run, name="canasta-net", daemon=True)
        self._thread.start()
        self._started.wait()
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        self._tid = threading.get_ident()
        asyncio.set_event_loop(self.loop)
        try:
            self._server = self.loop.run_until_complete(asyncio.start_server(
                self._handle, self.host, self.port, ssl=self.tls, limit=MAX_LINE + 2,
                ssl_handshake_timeout=self.handshake_s if self.tls else None,
                backlog=512, reuse_address=True))
            self.port = self._server.sockets[0].getsockname()[1]
        except BaseException as exc:
            self._error = exc
            self._started.set()
            return
        self._started.set()
        try:
            self.loop.run_forever()
        finally:
            with contextlib.suppress(Exception):
                self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()

    def close(self) -> None:
        """Close every connection (what was written still goes out) and stop listening."""
        if self._thread is None or not self._thread.is_alive():
            return

        async def shut() -> None:
            if self._server is not None:
                self._server.close()
            for conn in list(self.conns):
                conn._close("the table closed")
            for _ in range(50):  # up to 0.5 s for the last bytes (a bye) to leave
                if all(c.writer.transport.is_closing() and
                       c.writer.transport.get_write_buffer_size() == 0 for c in self.conns):
                    break
                await asyncio.sleep(0.01)
            self.loop.stop()

        self.call(lambda: asyncio.ensure_future(shut()))
        self._thread.join(timeout=5)

    # Connections ---------------------------------------------------------------------------
    async def _refuse(self, conn: Conn, why: str, text: str) -> None:
        """Say why, then read (and drop) what the client is still sending for a moment
        before closing, so that the reason is not lost to a reset."""
        self.refusals[why] = self.refusals.get(why, 0) + 1
        conn.write(refused(text))
        with contextlib.suppress(Exception):
            await conn.writer.drain()
        if conn.writer.can_write_eof():
            with contextlib.suppress(Exception):
                conn.writer.write_eof()
        dropped = 0
        end = time.monotonic() + LINGER_S
        with contextlib.suppress(Exception):
            while dropped < MAX_LINE and (left := end - time.monotonic()) > 0:
                chunk = await asyncio.wait_for(conn.reader.read(65536), left)
                if not chunk:
                    break
                dropped += len(chunk)
        conn._close(why)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        conn = Conn(self, reader, writer, address)
        if len(self.conns) >= MAX_CONNECTIONS:
            self.refusals["full"] = self.refusals.get("full", 0) + 1
            writer.transport.abort()
            return
        self.conns.add(conn)
        try:
            await self._serve(conn)
        finally:
            self.conns.discard(conn)
            conn._close("done")

    async def _serve(self, conn: Conn) -> None:
        _keepalive(conn.writer.get_extra_info("socket"))
        left = self.guard.banned(conn.address)
        if left:
            await self._refuse(conn, "banned", f"too many wrong tokens from {conn.address}: refused"
                         f" for {left:.0f} more s")
            return
        if self.handshaking >= MAX_HANDSHAKES:
            await self._refuse(conn, "busy", "too many connections are joining: try again")
            return
        self.handshaking += 1
        try:
            got = await asyncio.wait_for(_first_line(conn.reader), self.handshake_s)
        except TimeoutError:
            await self._refuse(conn, "slow", f"no join line within {self.handshake_s:g} s")
            return
        except LineTooLong:
            await self._refuse(conn, "too long", f"a join line has at most {HANDSHAKE_LINE} bytes")
            return
        except (ConnectionError, OSError, ssl.SSLError, asyncio.IncompleteReadError):
            return
        finally:
            self.handshaking -= 1
        if got is None:
            return
        first, rest = got
        target, client, why = self._check(conn, first)
        if target is None:
            bad = why.startswith(("wrong token", "not a join"))
            if bad and self.guard.bad(conn.address):
                self.log(f"{conn.address}: too many wrong tokens, refused for"
                         f" {self.guard.ban_s:g} s")
            await self._refuse(conn, "wrong token" if bad else "refused", why)
            return
        conn.client = client
        refusal = target.attach(conn, client)
        if refusal is not None:
            await self._refuse(conn, "refused", refusal)
            return
        await self._pump(conn, target, rest)

    def _check(self, conn: Conn, raw: bytes) -> tuple[Target | None, str, str]:
        try:
            msg = decode_line(raw)
        except ProtocolError as exc:
            return None, "", f"not a join line: {exc}"
        token = msg.get("token")
        if msg.get("type") != "join" or not isinstance(token, str) or len(token) > 200:
            return None, "", f"not a join line: {quote(raw)}"
        found = self.tokens.lookup(token)
        if found is None:
            return None, "", "wrong token"
        client = msg.get("client", "bot")
        if found[0] == "watch":
            client = "watch"
        elif client not in CLIENTS or client == "watch":
            return None, "", ("that token is a seat's: join without --watch" if client == "watch"
                              else f"client must be one of {', '.join(CLIENTS)}")
        target = self.targets.get(found)
        if target is None:
            return None, "", "this table has no such seat now"
        return target, str(client), ""

    async def _pump(self, conn: Conn, target: Target, rest: bytes) -> None:
        """Hand the target every line; throttled, bounded, until the connection ends."""
        splitter = Splitter(MAX_LINE)
        bucket = Bucket()
        reason = "the connection closed"
        try:
            chunk = rest
            while True:
                if chunk:
                    try:
                        lines = splitter.feed(chunk)
                    except LineTooLong as exc:
                        target.too_long(conn, str(exc))
                        reason = str(exc)
                        break
                    for data in lines:
                        target.receive(conn, data)
                    wait = bucket.charge(len(lines) + len(chunk) / 4096, time.monotonic())
                    if wait:
                        await asyncio.sleep(wait)
                if conn.closed:
                    reason = conn.reason or reason
                    break
                chunk = await conn.reader.read(65536)
                if not chunk:
                    break
        except (ConnectionError, OSError, ssl.SSLError) as exc:
            reason = f"the connection failed ({type(exc).__name__})"
        finally:
            target.detach(conn, conn.reason or reason)

    def welcome(self, conn: Conn, **fields: Any) -> None:
        conn.write(line({"type": "welcome", **fields}))


async def _first_line(reader: asyncio.StreamReader) -> tuple[bytes, bytes] | None:
    """The join line and whatever came after it (a client that did not wait for welcome)."""
    buf = bytearray()
    while True:
        chunk = await reader.read(HANDSHAKE_LINE + 1)
        if not chunk:
            return None
        i = chunk.find(b"\n")
        if i >= 0 and len(buf) + i <= HANDSHAKE_LINE:
            first = bytes(buf + chunk[:i])
            return (first[:-1] if first.endswith(b"\r") else first), chunk[i + 1:]
        buf += chunk
        if len(buf) > HANDSHAKE_LINE:
            raise LineTooLong(f"line longer than the {HANDSHAKE_LINE}-byte limit")


def _keepalive(sock: Any) -> None:
    """Notice a peer that vanished (a cable pulled) within about a minute."""
    if sock is None:
        return
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 30)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 10)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, 3)
