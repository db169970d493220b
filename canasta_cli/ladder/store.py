"""The ladder's SQLite file: bots, duplicate deals (reserved, then finished) and runs.

Every change is one short transaction (``BEGIN IMMEDIATE``, with a busy timeout), so two
``ladder run``s on one file interleave safely.  A run reserves a deal (its number, pair and
seed) before playing it and fills in the result when every seating is played: a run killed
midway leaves reservations whose process is gone, and the next run plays exactly those deals
again (same pair, same seed) before any new one.  Deal seeds derive from the ladder's master
seed and the deal's number, and pairs are chosen from what the file holds, so the deals played
do not depend on how runs were split or interrupted.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..processes import pid_alive
from . import failures

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (name TEXT PRIMARY KEY, command TEXT NOT NULL,
                                 added REAL NOT NULL);
CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, pid INTEGER NOT NULL,
                                 started REAL NOT NULL, ended REAL);
CREATE TABLE IF NOT EXISTS deals (k INTEGER PRIMARY KEY, a TEXT NOT NULL, b TEXT NOT NULL,
                                  seed INTEGER NOT NULL, run INTEGER NOT NULL,
                                  score REAL, diff REAL, failed INTEGER, finished REAL);
"""
NAME = re.compile(r"[A-Za-z0-9_.+-]{1,64}(@[A-Za-z0-9_.+-]{1,32})?")


class LadderError(ValueError):
    """The ladder file cannot be used as asked; the message is one line."""


@dataclass(frozen=True)
class Deal:
    k: int
    a: str
    b: str
    seed: int


def default_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "canasta" / "ladder.sqlite"


def deal_seed(master: int, k: int) -> int:
    text = f"canasta-ladder/{master}/{k}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


class Ladder:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.path = path
        try:
            self.db = sqlite3.connect(str(path), timeout=60.0, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            # Each commit survives the process (SIGKILL included); only a power cut may lose
            # the last deals, which the next run then plays again.
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA + failures.SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise LadderError(f"{path}: not a ladder file ({exc})") from None
        os.chmod(path, 0o600)

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # Settings --------------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def settings(self, rules: dict[str, Any], seed: int | None) -> tuple[dict[str, Any], int]:
        """The ladder's rules and master seed: set by its first run, the same ever after (the
        ratings compare deals played under one set of rules)."""
        with self._tx() as db:
            have = self.meta("rules")
            if have is None:
                db.execute("INSERT INTO meta VALUES ('rules', ?)", (json.dumps(rules),))
                db.execute("INSERT INTO meta VALUES ('seed', ?)",
                           (str(seed if seed is not None else secrets.randbits(62)),))
        kept = json.loads(self.meta("rules") or "{}")
        master = int(self.meta("seed") or 0)
        if kept != rules:
            raise LadderError(f"{self.path} plays {kept.get('name', '?')} with its own options;"
                              " a ladder keeps the rules of its first run (use another --db)")
        if seed is not None and seed != master:
            raise LadderError(f"{self.path} has its master seed already; drop --seed")
        return kept, master

    # Bots ------------------------------------------------------------------------------------
    def add(self, name: str, command: str) -> None:
        if not NAME.fullmatch(name):
            raise LadderError(f"{name[:80]!r} is not a ladder name: letters, digits, _.+- and"
                              " an optional @version, e.g. mybot@2")
        if not command.strip():
            raise LadderError("the bot's command line is empty")
        with self._tx() as db:
            if db.execute("SELECT 1 FROM bots WHERE name=?", (name,)).fetchone():
                raise LadderError(f"{name} is on the ladder already (add a new version, e.g."
                                  f" {name.split('@')[0]}@{_next_version(db, name)})")
            db.execute("INSERT INTO bots VALUES (?, ?, ?)", (name, command, time.time()))

    def bots(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT name, command FROM bots ORDER BY name").fetchall())

    # Runs and deals --------------------------------------------------------------------------
    def start_run(self) -> int:
        with self._tx() as db:
            cur = db.execute("INSERT INTO runs (pid, started) VALUES (?, ?)",
                             (os.getpid(), time.time()))
            return int(cur.lastrowid or 0)

    def end_run(self, run: int) -> None:
        with self._tx() as db:
            db.execute("UPDATE runs SET ended=? WHERE id=?", (time.time(), run))

    def reserve(self, run: int, master: int) -> Deal | None:
        """The next deal to play: a deal left by a run that is gone, or a new one between
        the pair that most needs deals (fewest between them, then the fewest for either, then
        by name).  None: fewer than two bots."""
        with self._tx() as db:
            dead = [r for r, pid, ended in db.execute("SELECT id, pid, ended FROM runs")
                    if ended is not None or not pid_alive(pid)]
            for r in dead:
                row = db.execute("SELECT k, a, b, seed FROM deals WHERE run=? AND finished IS"
                                 " NULL ORDER BY k LIMIT 1", (r,)).fetchone()
                if row is not None:
                    db.execute("UPDATE deals SET run=? WHERE k=?", (run, row[0]))
                    return Deal(*row)
            names = sorted(self.bots())
            if len(names) < 2:
                return None
            between: dict[tuple[str, str], int] = {}
            each = dict.fromkeys(names, 0)
            for a, b, n in db.execute("SELECT a, b, COUNT(*) FROM deals GROUP BY a, b"):
                if a in each and b in each:
                    between[(a, b)] = between.get((a, b), 0) + n
                    each[a] += n
                    each[b] += n
            pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
            a, b = min(pairs, key=lambda p: (between.get(p, 0), each[p[0]] + each[p[1]], p))
            k = int(db.execute("SELECT COALESCE(MAX(k), 0) + 1 FROM deals").fetchone()[0])
            seed = deal_seed(master, k)
            db.execute("INSERT INTO deals (k, a, b, seed, run) VALUES (?, ?, ?, ?, ?)",
                       (k, a, b, seed, run))
            return Deal(k, a, b, seed)

    def finish(self, deal: Deal, score: float, diff: float, failed: int,
               kept: list[dict[str, Any]] | None = None, keep: int = failures.KEEP) -> None:
        """The deal's result, and its failed games (``failures.from_row``; the latest
        ``keep`` of each bot are kept), in one transaction."""
        with self._tx() as db:
            db.execute("UPDATE deals SET score=?, diff=?, failed=?, finished=? WHERE k=?",
                       (score, diff, failed, time.time(), deal.k))
            if kept:
                failures.keep(db, kept, keep)

    def release(self, run: int) -> None:
        """A run stopped before its reserved deals were played: they go to the next run."""
        self.end_run(run)

    def results(self, upto_run: int | None = None) -> list[tuple[str, str, float]]:
        """Every finished deal (optionally only those of runs up to ``upto_run``)."""
        q = "SELECT a, b, score FROM deals WHERE finished IS NOT NULL"
        args: tuple[Any, ...] = ()
        if upto_run is not None:
            q += " AND run <= ?"
            args = (upto_run,)
        return [(a, b, float(s)) for a, b, s in self.db.execute(q + " ORDER BY k", args)]

    def runs(self) -> list[tuple[int, float, int]]:
        """Each run with a finished deal: (id, start time, deals it finished)."""
        return [(int(r), float(t), int(n)) for r, t, n in self.db.execute(
            "SELECT runs.id, runs.started, COUNT(deals.k) FROM runs JOIN deals ON"
            " deals.run = runs.id AND deals.finished IS NOT NULL GROUP BY runs.id ORDER BY"
            " runs.id")]


def _next_version(db: sqlite3.Connection, name: str) -> int:
    base = name.split("@")[0]
    versions = [n.split("@", 1)[1] for (n,) in db.execute("SELECT name FROM bots")
                if n.split("@")[0] == base and "@" in n]
    numbers = [int(v) for v in versions if v.isdigit()]
    return max(numbers, default=1) + 1
