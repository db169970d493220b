"""The local statistics of ``canasta play``: one row per person per finished game, in an
SQLite file in the XDG data folder, and the summaries ``canasta stats`` prints.

Everything is read back from the game's own record (its header and its public events), so
the numbers are those the replay shows."""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.reasons import GOES_ON
from ..hosting.records import load_record
from ..util.private_files import private_database
from ..util.seat_names import is_person

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    record TEXT NOT NULL,
    seat INTEGER NOT NULL,
    player TEXT NOT NULL,
    finished REAL NOT NULL,
    preset TEXT NOT NULL,
    level TEXT NOT NULL,
    players INTEGER NOT NULL,
    won INTEGER NOT NULL,
    score INTEGER NOT NULL,
    margin INTEGER NOT NULL,
    hands INTEGER NOT NULL,
    points INTEGER NOT NULL,
    canastas INTEGER NOT NULL,
    PRIMARY KEY (record, seat)
)
"""


def stats_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "canasta" / "stats.sqlite3"


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(private_database(path), timeout=5)  # never through a link
    db.execute(SCHEMA)
    return db


def player_name(spec: str) -> str:
    return spec.split(":", 1)[1] if spec.startswith("human:") else "you"


def level_of(seats: list[str]) -> str:
    """The opponents' and partners' strength: ``hard``, or ``mixed``, ``bots``, ``people``."""
    others = [s for s in seats if not is_person(s)]
    if not others:
        return "people"
    levels = {s.split(":", 1)[1] if s.startswith("builtin:") else "bots" for s in others}
    return levels.pop() if len(levels) == 1 else "mixed"


@dataclass(frozen=True)
class Entry:
    seat: int
    player: str
    won: bool
    score: int
    margin: int
    hands: int
    points: int
    canastas: int


def entries(lines: list[dict[str, Any]]) -> list[Entry]:
    """One entry per person in a finished game's record (none if it is not over)."""
    header = lines[0]
    results = [ln for ln in lines if ln.get("type") == "result"]
    if not results or results[-1].get("reason") in GOES_ON:
        return []
    result = results[-1]
    seats = [str(s) for s in header.get("seats", [])]
    players = len(seats)
    rules = header.get("rules") or {}
    sides = (3 if rules.get("three_partnerships") else 2) if players in (4, 6) else players
    ends = [ln["event"] for ln in lines if ln.get("type") == "event"
            and isinstance(ln.get("event"), dict) and ln["event"].get("type") == "hand_ended"]
    scores = [int(x) for x in result.get("scores", [])]
    out = []
    for seat, spec in enumerate(seats):
        if not is_person(spec):
            continue
        side = seat % sides
        mine = scores[side] if side < len(scores) else 0
        best_other = max((s for i, s in enumerate(scores) if i != side), default=0)
        points = canastas = 0
        for e in ends:
            for s in e.get("scores", {}).get("sides", []):
                if s.get("side") == side:
                    points += int(s.get("total", 0))
                    canastas += int(s.get("natural_canastas", 0)) + int(
                        s.get("mixed_canastas", 0))
        out.append(Entry(seat, player_name(spec), result.get("winner") == side, mine,
                         mine - best_other, len(ends), points, canastas))
    return out


def record_game(record: Path, db_path: Path | None = None) -> int:
    """Add a finished game of ``canasta play`` to the store (again: replaced); the number
    of people it counted."""
    lines = load_record(record, torn_ok=True)
    found = entries(lines)
    if not found:
        return 0
    header = lines[0]
    seats = [str(s) for s in header.get("seats", [])]
    preset = str((header.get("rules") or {}).get("name", "?"))
    with _connect(db_path or stats_path()) as db:
        for e in found:
            db.execute("INSERT OR REPLACE INTO games VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                       (str(record), e.seat, e.player, time.time(), preset, level_of(seats),
                        len(seats), int(e.won), e.score, e.margin, e.hands, e.points,
                        e.canastas))
    return len(found)


def load(db_path: Path | None = None, player: str | None = None) -> list[dict[str, Any]]:
    """Every stored row (of one player), oldest first."""
    path = db_path or stats_path()
    if not path.exists():
        return []
    with _connect(path) as db:
        db.row_factory = sqlite3.Row
        query = "SELECT * FROM games" + (" WHERE player = ?" if player else "") \
            + " ORDER BY finished, record"
        return [dict(r) for r in db.execute(query, (player,) if player else ())]


def report(rows: list[dict[str, Any]], ascii_only: bool = False, recent: int = 10) -> str:
    """Games, wins, points per hand by preset and level, canastas, the best game and a
    chart of the last games' margins."""
    if not rows:
        return "No finished games yet: the statistics start with your first 'canasta play'."
    wins = sum(r["won"] for r in rows)
    out = [f"Games: {len(rows)}   won: {wins} ({100 * wins // len(rows)}%)   canastas made:"
           f" {sum(r['canastas'] for r in rows)}"]
    best = max(rows, key=lambda r: r["margin"])
    out.append(f"Best game: {best['margin']:+d} ({best['score']} points, {best['preset']},"
               f" {best['level']}, {time.strftime('%Y-%m-%d', time.localtime(best['finished']))})")
    names = sorted({r["player"] for r in rows})
    if len(names) > 1:
        out.append("Players: " + ", ".join(
            f"{n} {sum(r['won'] for r in rows if r['player'] == n)}/"
            f"{sum(1 for r in rows if r['player'] == n)} won" for n in names))
    out.append("")
    out.append(f"{'preset':<24}{'level':<9}{'games':>6}{'wins':>6}{'points/hand':>13}")
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["preset"], r["level"]), []).append(r)
    for (preset, level), rs in sorted(groups.items()):
        hands = sum(r["hands"] for r in rs)
        per = sum(r["points"] for r in rs) / hands if hands else 0.0
        out.append(f"{preset[:23]:<24}{level[:8]:<9}{len(rs):>6}{sum(r['won'] for r in rs):>6}"
                   f"{per:>13.0f}")
    last = rows[-recent:]
    out.append("")
    out.append(f"Margins of the last {len(last)} games (oldest first):")
    top = max(abs(r["margin"]) for r in last) or 1
    for r in last:
        n = round(20 * abs(r["margin"]) / top)
        bar = ("#" if ascii_only else "\u2588") * n if r["margin"] >= 0 else \
            ("-" if ascii_only else "\u2591") * n
        out.append(f"  {r['player'][:10]:<10} {r['margin']:>+7d} {bar}")
    return "\n".join(out)
