"""The ladder's failed games, kept to be debugged: for each game of a deal where a seat got a
status (CRASHED, TIMEOUT, PROTOCOL_ERROR, ILLEGAL_MOVE), the game's record, each failing
bot's stderr tail and reason, and a ``canasta match`` command that plays the game again.

Disk use is bounded: a failure is kept under each bot that failed in it, and only the latest
``KEEP`` failures of each bot are kept (older ones are deleted in the same transaction); a
record is stored compressed (zlib) and left out when it is larger than ``MAX_RECORD``
compressed, a stderr tail is at most ``STDERR_TAIL`` bytes per seat.  So a bot costs at most
``KEEP * (MAX_RECORD + seats * STDERR_TAIL)`` bytes, and much less in practice (a one-hand
record is a few kB compressed).
"""

from __future__ import annotations

import sqlite3
import time
import zlib
from dataclasses import dataclass
from typing import Any

from ..core import Ruleset
from ..hosting.records import MAX_RECORD as MAX_RECORD_TEXT
from ..protocol.statuses import FAILURES, SeatStatus
from ..tournament.failures import STDERR_TAIL, Replaying, replay_command
from . import checked
from .checked import Damage

KEEP = 20                 # failures kept per bot
MAX_RECORD = 1 << 20      # bytes of a compressed record

SCHEMA = """
CREATE TABLE IF NOT EXISTS failures (id INTEGER PRIMARY KEY, bot TEXT NOT NULL,
                                     deal INTEGER NOT NULL, game INTEGER NOT NULL,
                                     seat INTEGER NOT NULL, status TEXT NOT NULL,
                                     reason TEXT, stderr TEXT, record BLOB,
                                     replay TEXT NOT NULL, at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS failures_bot ON failures (bot, id);
"""
COLUMNS = ("id", "bot", "deal", "game", "seat", "status", "reason", "stderr", "record",
           "replay", "at")


@dataclass(frozen=True)
class Failure:
    id: int
    bot: str
    deal: int
    game: int
    seat: int
    status: str
    reason: str
    stderr: str
    replay: str
    at: float
    has_record: bool


def from_row(row: dict[str, Any], bots: dict[str, str], rules: Ruleset,
             clock: dict[str, int], cwd: str, box_args: list[str] | None = None
             ) -> list[dict[str, Any]]:
    """The failures of one game (a ``play_task`` row), one per failing bot seat, JSON-ready
    (they travel from a worker process to the one that writes the ladder file)."""
    if "status" not in row:
        return []
    text = row.get("record")
    record = zlib.compress(text.encode("utf-8"), 6) if isinstance(text, str) else None
    if record is not None and len(record) > MAX_RECORD:
        record = None
    how = Replaying(bots, rules, clock, tuple(box_args or ()), cwd)
    replay = replay_command(how, row, f"ladder-replay-{row['deal']}-{row['index'] + 1}")
    out = []
    stderr = row.get("stderr") or {}
    for seat, (status, why) in enumerate(zip(row["status"], row["why"], strict=True)):
        if status == SeatStatus.OK:
            continue
        tail = stderr.get(seat) or stderr.get(str(seat)) or ""
        out.append({"bot": row["seating"][seat], "deal": row["deal"], "game": row["index"] + 1,
                    "seat": seat, "status": status, "reason": why or status,
                    "stderr": tail[-STDERR_TAIL:], "record": record, "replay": replay})
    return out


def keep(db: sqlite3.Connection, failures: list[dict[str, Any]], limit: int = KEEP) -> None:
    """Store ``failures`` and drop each of their bots' older ones beyond ``limit`` (inside
    the caller's transaction)."""
    now = time.time()
    for f in failures:
        db.execute("INSERT INTO failures (bot, deal, game, seat, status, reason, stderr, record,"
                   " replay, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (f["bot"], f["deal"], f["game"], f["seat"], f["status"], f["reason"],
                    f["stderr"], f["record"], f["replay"], now))
    for bot in {f["bot"] for f in failures}:
        db.execute("DELETE FROM failures WHERE bot=? AND id NOT IN (SELECT id FROM failures"
                   " WHERE bot=? ORDER BY id DESC LIMIT ?)", (bot, bot, limit))


def listing(db: sqlite3.Connection, bot: str | None = None, last: int = 10) -> list[Failure]:
    """The latest ``last`` failures (of ``bot``: a NAME@VERSION, or NAME for all versions),
    newest last; a row that is not one the ladder wrote is Damage."""
    q = ("SELECT id, bot, deal, game, seat, status, reason, stderr, replay, at,"
         " record IS NOT NULL FROM failures")
    args: tuple[Any, ...] = ()
    if bot is not None:
        q += " WHERE bot=? OR bot LIKE ? ESCAPE '\\'"
        args = (bot, bot.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "@%")
    rows = db.execute(q + " ORDER BY id DESC LIMIT ?", (*args, last)).fetchall()
    return [_failure(r) for r in rows[::-1]]


def _failure(r: tuple[Any, ...]) -> Failure:
    """One row of the failures table, checked."""
    at = f"failure #{str(r[0])[:20]}"
    status = checked.text(r[5], 40, f"the status of {at}")
    if status not in FAILURES:
        raise Damage(f"the status of {at} is {status[:30]!r}, not a seat's failure")
    return Failure(checked.whole(r[0], 1, checked.MAX_ROW_ID, "a failure's number"),
                   checked.text(r[1], checked.MAX_NAME, f"the bot of {at}"),
                   checked.whole(r[2], 1, checked.MAX_ROW_ID, f"the deal of {at}"),
                   checked.whole(r[3], 1, 1000, f"the game of {at}"),
                   checked.whole(r[4], 0, 5, f"the seat of {at}"), status,
                   checked.text(r[6] or "", checked.MAX_TEXT, f"the reason of {at}", True),
                   checked.text(r[7] or "", checked.MAX_TEXT, f"the stderr of {at}", True),
                   checked.text(r[8], checked.MAX_TEXT, f"the replay command of {at}"),
                   checked.finite(r[9], 0, checked.LATEST, f"the time of {at}"),
                   bool(checked.whole(r[10], 0, 1, f"the record mark of {at}")))


def record_text(db: sqlite3.Connection, failure_id: int) -> str | None:
    """The kept record of a failure, inflated up to a record's largest size (a blob that
    is not one the ladder compressed is Damage)."""
    row = db.execute("SELECT record FROM failures WHERE id=?", (failure_id,)).fetchone()
    if row is None or row[0] is None:
        return None
    what = f"the record of failure #{failure_id}"
    if not isinstance(row[0], bytes) or len(row[0]) > MAX_RECORD:
        raise Damage(f"{what} is not a compressed record")
    inflate = zlib.decompressobj()
    try:
        data = inflate.decompress(row[0], MAX_RECORD_TEXT + 1)
        if not inflate.eof or len(data) > MAX_RECORD_TEXT:
            raise ValueError("not a whole record")
        return data.decode("utf-8")
    except (zlib.error, ValueError):  # a UnicodeDecodeError is a ValueError
        raise Damage(f"{what} is not a compressed record of a game") from None


def count(db: sqlite3.Connection) -> int:
    return checked.whole(db.execute("SELECT COUNT(*) FROM failures").fetchone()[0], 0,
                         checked.MAX_ROW_ID, "the count of failures")
