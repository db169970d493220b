"""The spectators of a table: they get the public lines of the sealed record as it is written.

The sealed record holds what every seat may see and nothing more (no seed, no deck, events as
a spectator sees them), so a spectator is sent those lines, less what is not the game's
(the name of the secret file, failure reasons, which can quote a seat's own cards, and the
reveal of the seed at the end).  Before each decision it is also sent the table as everyone
sees it, ``{"type": "table", "observation": {...}}`` (core/observation.py's
``public_observation``: melds, red threes, the pile's top and size, the stock's size, how many
cards each seat holds, the scores), which its client draws as ``canasta play`` draws a table;
one who joins mid-game gets the latest with the game's lines so far.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .hub import Conn, Hub
from .wire import line

MAX_SPECTATORS = 64
QUIET_LIMIT = 100  # lines a spectator may send (none are read) before it is shown the door


def public_line(obj: dict[str, Any]) -> dict[str, Any] | None:
    """What a spectator may be sent of one record line (None: nothing)."""
    kind = obj.get("type")
    if kind in ("event", "move"):
        return obj
    if kind == "header":
        return {k: v for k, v in obj.items() if k != "secret"}
    if kind == "result":
        keep = ("game", "winner", "reason", "scores", "hands", "hand_scores", "forfeit")
        out = {"type": "result", **{k: obj.get(k) for k in keep}}
        out["statuses"] = [s.get("status") for s in obj.get("seats", [])]
        return out
    return None


class Gallery:
    """Spectators' connections and the public lines of the game under way (for late comers)."""

    def __init__(self, hub: Hub, limit: int = MAX_SPECTATORS) -> None:
        self.hub = hub
        self.limit = limit
        self._lock = threading.Lock()
        self._lines: list[bytes] = []
        self._watchers: dict[Conn, int] = {}  # connection -> lines it sent (ignored)
        # The table now: how to make its public view (from an immutable state), and the line
        # made of it, once a spectator needed it.
        self._table: Callable[[], dict[str, Any]] | None = None
        self._table_line: bytes | None = None

    def publish(self, obj: dict[str, Any]) -> None:
        shown = public_line(obj)
        if shown is None:
            return
        data = line(shown)
        with self._lock:
            if shown["type"] == "header":
                self._lines = []
                self._table = self._table_line = None
            self._lines.append(data)
            for conn in self._watchers:
                conn.write(data)

    def table(self, make: Callable[[], dict[str, Any]]) -> None:
        """The table as everyone sees it now (``make`` gives its public observation): sent to
        the spectators, made only if there is one (a late comer gets the latest)."""
        with self._lock:
            self._table, self._table_line = make, None
            if self._watchers:
                data = self._table_line_locked()
                for conn in self._watchers:
                    conn.write(data)

    def _table_line_locked(self) -> bytes:
        assert self._table is not None
        if self._table_line is None:
            self._table_line = line({"type": "table", "observation": self._table()})
        return self._table_line

    def tell(self, data: bytes) -> None:
        with self._lock:
            for conn in self._watchers:
                conn.write(data)

    # The hub's side ---------------------------------------------------------------------------
    def attach(self, conn: Conn, client: str) -> str | None:
        with self._lock:
            if len(self._watchers) >= self.limit:
                return f"this table has {self.limit} spectators already"
            self.hub.welcome(conn, role="spectator", seat=None)
            for data in self._lines:
                conn.write(data)
            if self._table is not None:
                conn.write(self._table_line_locked())
            self._watchers[conn] = 0
        return None

    def receive(self, conn: Conn, data: bytes) -> None:
        with self._lock:
            said = self._watchers.get(conn, 0) + 1
            if conn in self._watchers:
                self._watchers[conn] = said
        if said > QUIET_LIMIT:
            conn.close("a spectator sends nothing")

    def too_long(self, conn: Conn, reason: str) -> None:
        conn.close(reason)

    def detach(self, conn: Conn, reason: str) -> None:
        with self._lock:
            self._watchers.pop(conn, None)
