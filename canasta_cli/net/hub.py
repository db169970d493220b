"""The table's listening side: an asyncio event loop on a thread of its own.

Why asyncio streams (standard library): one loop holds hundreds of idle or hostile
connections at no cost to the game, and ``wait_for`` gives every handshake a deadline.  The
referee keeps its thread and its blocking Seat interface: a remote seat hands lines across
with a condition variable, and writes go to the loop with ``call_soon_threadsafe``.  Lines
are cut by ``wire.Splitter`` (4 KiB before the token, the protocol's 1 MiB after it), so
nothing over the limit is ever buffered, and each connection's reading is throttled (a
client that floods only stalls its own connection: TCP holds the rest on its side).

Every connection is counted from the moment it is accepted (net/listen.py), before its TLS
handshake, which is run here (``start_tls``) under the handshake's deadline: the caps on
connections in all, on those still joining, and on those of one address hold for silent
connections at a TLS table too.  One address may have ``MAX_JOINING`` connections that have
not sent a good token; more are told to try again (a refusal the client knows passes), and
past ``MAX_JOINING + MAX_REFUSING`` they are reset at once.  A connection that says nothing
within the deadline counts as a wrong token (``Guard``).
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
from .listen import (
    MAX_CONNECTIONS,
    Acceptor,
    Notes,
    connection_cap,
    listeners,
    raise_open_files,
    reset,
)
from .tokens import Guard, TokenBook
from .wire import CLIENTS, HANDSHAKE_LINE, LineTooLong, Splitter, line, refused

MAX_HANDSHAKES = 512  # connections that have not sent their token yet, from every address
MAX_JOINING = 8  # of those, from one address (a household behind one router needs a few)
MAX_REFUSING = 16  # one address's connections past MAX_JOINING told to try again at once
MAX_PENDING = 8 << 20  # bytes waiting for a client that does not read
READ_RATE = 200.0  # line units per second a connection may send (a line, or 4 KiB of one)
READ_BURST = 2000.0
LINGER_S = 0.5  # a refused client's last bytes are read (and dropped) this long
Refusal = tuple[str, str, bool]  # why (counted), what the client is told, whether it passes


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
        self.joining = True  # counted among its address's joining connections

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


@dataclass(frozen=True)
class Listening:
    """Where a hub listens (``port`` 0: any free one), with TLS or not, how long a new
    connection has to send its token, and the guard that turns away an address guessing
    tokens (a fresh one when None)."""

    host: str = "127.0.0.1"
    port: int = 0
    tls: ssl.SSLContext | None = None
    handshake_s: float = 10.0
    guard: Guard | None = None


class Hub:
    """Accepts connections, checks tokens, and hands each good one to its target."""

    def __init__(self, tokens: TokenBook, listening: Listening = Listening(),
                 log: Callable[[str], None] | None = None) -> None:
        self.tokens = tokens
        self.host = listening.host
        self.port = listening.port
        self.tls = listening.tls
        self.handshake_s = listening.handshake_s
        self.guard = listening.guard or Guard()
        self.log = log or (lambda text: None)
        self.targets: dict[tuple[str, int], Target] = {}
        self.conns: set[Conn] = set()
        self.cap = MAX_CONNECTIONS  # lowered at start where the open-file limit is low
        self.open = 0  # accepted and not closed yet, TLS handshakes included
        self.handshaking = 0
        self.joining: dict[str, int] = {}  # address -> its connections without a good token
        self.refusals: dict[str, int] = {}  # why connections were turned away, counted
        self.loop = asyncio.new_event_loop()
        self.notes = Notes(self.loop, self.log)
        self._acceptor: Acceptor | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._thread: threading.Thread | None = None
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
        self.loop.set_exception_handler(self._loop_error)
        try:
            self.cap = connection_cap(raise_open_files())
            socks = listeners(self.host, self.port)
        except BaseException as exc:
            self._error = exc
            self._started.set()
            return
        self.port = socks[0].getsockname()[1]
        self._acceptor = Acceptor(self.loop, socks, self._admit, self.notes)
        self._acceptor.start()
        self._started.set()
        try:
            self.loop.run_forever()
        finally:
            with contextlib.suppress(Exception):
                self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """What asyncio would log with a traceback: counted, said in one line."""
        exc = context.get("exception")
        what = str(context.get("message", "error"))[:80]
        if self.in_loop() and not loop.is_closed():
            self.notes.add(f"network error(s): {what}"
                           + (f" ({type(exc).__name__})" if exc is not None else ""))

    def close(self) -> None:
        """Close every connection (what was written still goes out) and stop listening."""
        if self._thread is None or not self._thread.is_alive():
            return

        async def shut() -> None:
            if self._acceptor is not None:
                self._acceptor.close()
            for conn in list(self.conns):
                conn._close("the table closed")
            for _ in range(50):  # up to 0.5 s for the last bytes (a bye) to leave
                if all(c.writer.transport.is_closing() and
                       c.writer.transport.get_write_buffer_size() == 0 for c in self.conns):
                    break
                await asyncio.sleep(0.01)
            await _cancel(self._tasks)
            self.loop.stop()

        self.call(lambda: asyncio.ensure_future(shut()))
        self._thread.join(timeout=5)

    # Connections ---------------------------------------------------------------------------
    def _admit(self, sock: socket.socket, address: str) -> None:
        """A connection just accepted: counted now, or reset at once (the table is full, or
        its address has too many connections joining)."""
        if self.open >= self.cap:
            self._turned("full", f"reset: the table is full ({self.cap} connections)")
            reset(sock)
            return
        if self.joining.get(address, 0) >= MAX_JOINING + MAX_REFUSING:
            self._turned("crowd", "reset: too many connections joining from one address")
            reset(sock)
            return
        self.open += 1
        self.handshaking += 1
        self.joining[address] = self.joining.get(address, 0) + 1
        gate = self._gate(address)  # now: the tasks of a burst of accepts run after it
        task = self.loop.create_task(self._connection(sock, address, gate))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _turned(self, why: str, said: str) -> None:
        self.refusals[why] = self.refusals.get(why, 0) + 1
        self.notes.add(said)

    async def _connection(self, sock: socket.socket, address: str, gate: Refusal | None
                          ) -> None:
        """One connection from accept to close; whatever happens, it is uncounted after."""
        conn: Conn | None = None
        try:
            streams = await self._streams(sock)
            if streams is not None:
                conn = Conn(self, streams[0], streams[1], address)
                self.conns.add(conn)
                await self._serve(conn, gate)
        except Exception as exc:  # never a traceback: one connection ends, the table goes on
            self.notes.add(f"connection(s) ended by an unexpected {type(exc).__name__}")
        finally:
            self.open -= 1
            if conn is None:
                sock.close()
            else:
                self.conns.discard(conn)
                conn._close("done")
            self._unjoin(address, conn)

    async def _streams(self, sock: socket.socket
                       ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        """The socket as asyncio streams, as ``start_server`` makes them (so that
        ``start_tls`` takes the server's side); None if it failed already."""
        made: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

        def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            transport = writer.transport
            if self.tls is not None and isinstance(transport, asyncio.ReadTransport):
                transport.pause_reading()  # the client's hello is for TLS to read, not us
            made.append((reader, writer))

        def protocol() -> asyncio.StreamReaderProtocol:
            reader = asyncio.StreamReader(limit=MAX_LINE + 2, loop=self.loop)
            return asyncio.StreamReaderProtocol(reader, connected, loop=self.loop)

        try:
            await self.loop.connect_accepted_socket(protocol, sock)
        except (OSError, RuntimeError):
            return None
        return made[0] if made else None

    def _unjoin(self, address: str, conn: Conn | None) -> None:
        """No longer among the address's joining connections (it joined, or it ended)."""
        if conn is not None:
            if not conn.joining:
                return
            conn.joining = False
        self.handshaking -= 1
        left = self.joining.get(address, 0) - 1
        if left > 0:
            self.joining[address] = left
        else:
            self.joining.pop(address, None)

    async def _refuse(self, conn: Conn, why: str, text: str, retry: bool = False) -> None:
        """Say why, then read (and drop) what the client is still sending for a moment
        before closing, so that the reason is not lost to a reset."""
        self.refusals[why] = self.refusals.get(why, 0) + 1
        conn.write(refused(text, retry))
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

    async def _serve(self, conn: Conn, gate: Refusal | None) -> None:
        _keepalive(conn.writer.get_extra_info("socket"))
        joined = await self._join(conn, gate)
        if joined is not None:
            self._unjoin(conn.address, conn)
            await self._pump(conn, *joined)

    def _gate(self, address: str) -> Refusal | None:
        """Why a connection from ``address`` is refused before it says anything, if it is."""
        left = self.guard.banned(address)
        if left:
            return ("banned", f"too many wrong tokens or silent connections from {address}:"
                    f" refused for {left:.0f} more s", False)
        if self.joining.get(address, 0) > MAX_JOINING:
            return ("busy", f"too many connections from {address} are joining: try again",
                    True)
        if self.handshaking > MAX_HANDSHAKES:
            return "busy", "too many connections are joining: try again", True
        return None

    async def _join(self, conn: Conn, gate: Refusal | None) -> tuple[Target, bytes] | None:
        """The handshake, under one deadline: TLS, then the join line (or the refusal
        ``gate`` decided at accept); the target the token leads to and what came after the
        line, or None (refused, or gone)."""
        deadline = self.loop.time() + self.handshake_s
        if self.tls is not None and not await self._tls(conn, deadline):
            return None
        if gate is not None:
            await self._refuse(conn, *gate)
            return None
        got = await self._first(conn, deadline)
        return None if got is None else await self._enter(conn, *got)

    async def _tls(self, conn: Conn, deadline: float) -> bool:
        """TLS on the counted connection; False (and closed) if it failed or was late."""
        assert self.tls is not None
        left = max(0.0, deadline - self.loop.time())
        try:
            await asyncio.wait_for(conn.writer.start_tls(
                self.tls, ssl_handshake_timeout=left + 5.0), left)  # the deadline ends it
        except TimeoutError:
            self.refusals["slow"] = self.refusals.get("slow", 0) + 1
            self._bad(conn.address)
            conn._abort(f"no TLS handshake within {self.handshake_s:g} s")
            return False
        except (OSError, RuntimeError) as exc:
            self.refusals["tls"] = self.refusals.get("tls", 0) + 1
            conn._abort(f"the TLS handshake failed ({type(exc).__name__})")
            return False
        return True

    async def _first(self, conn: Conn, deadline: float) -> tuple[bytes, bytes] | None:
        """The join line and what came after it; None if it was refused or is gone."""
        try:
            return await asyncio.wait_for(_first_line(conn.reader),
                                          max(0.0, deadline - self.loop.time()))
        except TimeoutError:
            self._bad(conn.address)
            await self._refuse(conn, "slow", f"no join line within {self.handshake_s:g} s")
        except LineTooLong:
            await self._refuse(conn, "too long", f"a join line has at most {HANDSHAKE_LINE} bytes")
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            pass
        return None

    def _bad(self, address: str) -> None:
        """A wrong token, or a connection silent until its deadline (it held a joining slot
        for nothing): counted towards the address's ban."""
        if self.guard.bad(address):
            self.log(f"{address}: too many wrong tokens or silent connections, refused for"
                     f" {self.guard.ban_s:g} s")

    async def _enter(self, conn: Conn, first: bytes, rest: bytes) -> tuple[Target, bytes] | None:
        """The token checked and the connection attached to what it leads to, or refused."""
        target, client, why = self._check(conn, first)
        if target is None:
            bad = why.startswith(("wrong token", "not a join"))
            if bad:
                self._bad(conn.address)
            await self._refuse(conn, "wrong token" if bad else "refused", why)
            return None
        conn.client = client
        refusal = target.attach(conn, client)
        if refusal is not None:
            await self._refuse(conn, "refused", refusal)
            return None
        return target, rest

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


async def _cancel(tasks: set[asyncio.Task[None]]) -> None:
    """End the connections' tasks (their targets are told), for at most a second."""
    for task in list(tasks):
        task.cancel()
    if tasks:
        await asyncio.wait(list(tasks), timeout=1.0)


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
