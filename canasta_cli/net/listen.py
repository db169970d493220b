"""The table's listening sockets, accepted by hand, and what the open-file limit allows.

Why not ``asyncio.start_server``: it accepts up to its backlog in one go and wraps each
connection (and its TLS handshake) before the hub hears of it, so a crowd of silent
connections is held without being counted, and past the open-file limit its failed accepts
are logged with a traceback each.  Here every accepted socket is handed to the hub at once
(which counts it or closes it on the spot), and a failed accept only pauses accepting for a
moment and is counted, said at most once a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import socket
import struct
import time
from collections.abc import Callable

MAX_CONNECTIONS = 1024  # open at once at most, wherever the open-file limit allows more
FD_RESERVE = 128  # file descriptors left for the table's own: records, logs, bots' pipes
FD_WANTED = 4096  # the soft limit asked for: enough for every connection and the table's own
BACKLOG = 512  # connections the system holds until they are accepted
ACCEPT_BURST = 64  # accepted per wake-up, so that a crowd cannot keep the loop here
ACCEPT_PAUSE_S = 0.5  # after the system refused an accept (no file descriptor left)
NOTE_EVERY_S = 1.0  # refused connections are said at most this often, as a count
_OUT_OF_FILES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)
_ONE_FAILED = (errno.ECONNABORTED, errno.EPROTO, errno.EPERM)

Admit = Callable[[socket.socket, str], None]


def raise_open_files() -> int:
    """Raise the soft open-file limit towards the hard one; the soft limit now in force.

    Only up to ``FD_WANTED``: a table never uses more, and the bots it starts inherit the
    limit (a huge one slows the programs that close every descriptor up to it)."""
    try:
        import resource
    except ImportError:  # not a Unix: the system decides
        return MAX_CONNECTIONS + FD_RESERVE
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = FD_WANTED if hard == resource.RLIM_INFINITY else min(hard, FD_WANTED)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return FD_WANTED if soft == resource.RLIM_INFINITY else int(soft)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        soft = wanted
    return int(soft)


def connection_cap(soft_limit: int) -> int:
    """Connections held at once: well below the open-file limit, so that the table's own
    files (the record, the tokens, a bot's pipes) always find a descriptor; a low limit
    keeps half of it for them."""
    return max(1, min(MAX_CONNECTIONS, max(soft_limit // 2, soft_limit - FD_RESERVE)))


def listeners(host: str, port: int) -> list[socket.socket]:
    """Bound, listening, non-blocking sockets for ``host`` (every address it names; with
    port 0, the port the first one got, for them all).  Raises OSError."""
    infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                               flags=socket.AI_PASSIVE)
    socks: list[socket.socket] = []
    try:
        for family, kind, proto, _, addr in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            socks.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            if len(socks) > 1 and port == 0:
                addr = (addr[0], socks[0].getsockname()[1], *addr[2:])
            sock.bind(addr)
            sock.listen(BACKLOG)
            sock.setblocking(False)
    except OSError:
        for sock in socks:
            sock.close()
        raise
    if not socks:
        raise OSError(errno.EADDRNOTAVAIL, f"no address to listen on for {host!r}")
    return socks


def reset(sock: socket.socket) -> None:
    """Close at once with a reset: the descriptor is free now, nothing is said."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


class Notes:
    """Counts of refused connections, said at most once every ``NOTE_EVERY_S`` (one line
    with the counts since the last one), so that a flood cannot flood the host's console."""

    def __init__(self, loop: asyncio.AbstractEventLoop, log: Callable[[str], None]) -> None:
        self.loop = loop
        self.log = log
        self.counts: dict[str, int] = {}
        self._said = -NOTE_EVERY_S
        self._timer: asyncio.TimerHandle | None = None

    def add(self, why: str) -> None:
        self.counts[why] = self.counts.get(why, 0) + 1
        if self._timer is None:
            wait = max(0.0, self._said + NOTE_EVERY_S - time.monotonic())
            self._timer = self.loop.call_later(wait, self._say)

    def _say(self) -> None:
        self._timer = None
        self._said = time.monotonic()
        total = sum(self.counts.values())
        parts = ", ".join(f"{n} {why}" for why, n in self.counts.items())
        self.counts.clear()
        if total:
            self.log(f"{total} connection(s) refused since the last note ({parts})")

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class Acceptor:
    """Accepts on the listening sockets (on the loop) and hands each connection to
    ``admit`` with its address; out of descriptors, it pauses and counts."""

    def __init__(self, loop: asyncio.AbstractEventLoop, socks: list[socket.socket],
                 admit: Admit, notes: Notes) -> None:
        self.loop = loop
        self.socks = socks
        self.admit = admit
        self.notes = notes
        self.closed = False

    def start(self) -> None:
        for sock in self.socks:
            self.loop.add_reader(sock.fileno(), self._ready, sock)

    def _ready(self, sock: socket.socket) -> None:
        for _ in range(ACCEPT_BURST):
            try:
                conn, peer = sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in _ONE_FAILED:
                    continue  # that connection only (reset before it was accepted)
                self._pause(sock)  # the system keeps failing: try again in a moment
                self.notes.add("not accepted: no file descriptor left" if exc.errno in
                               _OUT_OF_FILES else f"not accepted: {exc.strerror or exc}")
                return
            conn.setblocking(False)
            self.admit(conn, str(peer[0]) if isinstance(peer, tuple) and peer else "?")

    def _pause(self, sock: socket.socket) -> None:
        """The socket stays ready while the accept fails: stop listening to it a moment."""
        self.loop.remove_reader(sock.fileno())
        self.loop.call_later(ACCEPT_PAUSE_S, self._resume, sock)

    def _resume(self, sock: socket.socket) -> None:
        if not self.closed:
            self.loop.add_reader(sock.fileno(), self._ready, sock)

    def close(self) -> None:
        self.closed = True
        for sock in self.socks:
            with contextlib.suppress(Exception):
                self.loop.remove_reader(sock.fileno())
            sock.close()
        self.notes.cancel()
