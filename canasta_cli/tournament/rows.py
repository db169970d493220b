"""Is this result row the game that was scheduled?  The one check every result passes before
it counts: a row of ``games.jsonl`` on resume, and a result a cluster worker sends back
(``rows_problem``: a worker is not trusted to tell which game it played).  ``shape_problem``
is the lesser check for a reader without the schedule (the report viewer).

A row is accepted only if it is exactly the scheduled game (its key, pairing, deal, seating
and the deal's seed, which derives from the tournament's secret master seed, so a row cannot
be made up without it) and its outcome is one the referee can produce (one score per side,
whole numbers within reach of a game, the winner the rules give for those scores, failure
counts that are counts).
"""

from __future__ import annotations

import re
from typing import Any, TypeGuard

from ..core import Ruleset
from .schedule import Task

REASONS = frozenset({"target", "draw", "hand_limit", "turn_limit", "forfeit", "unfinished"})
MAX_SCORE = 10_000_000  # far beyond any game (a hand scores a few thousand at most)
MAX_COUNT = 10_000_000  # failures of one seat in one game: at most one per decision
MAX_RECORD = 64 << 20  # characters of a game's record a worker sends (``--records``)
FIELDS = frozenset({"index", "key", "pair", "deal", "seating", "seed", "scores", "winner",
                    "reason", "hands", "forfeit", "failures"})
# A game where a seat failed: each seat's status and reason (kept in games.jsonl), and for the
# failure file its seats' reports and failing bots' stderr tails (a worker's, taken off the
# row by the tournament: failures.py).
OPTIONAL = frozenset({"record", "status", "why", "failed_seats", "stderr"})
_STATUS = re.compile(r"[A-Z][A-Z_]{0,31}")


def _whole(x: object) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def row_problem(row: object, task: Task | None, rules: Ruleset) -> str | None:
    """Why ``row`` is not the result of ``task`` (None: it is).  ``task`` None: the row's
    key names no game of this tournament."""
    if not isinstance(row, dict):
        return "not an object"
    if not isinstance(row.get("key"), str):
        return "'key' is missing or not a string"
    if task is None:
        return "a game this tournament does not schedule"
    extra = set(row) - FIELDS - OPTIONAL
    if extra:
        return f"unexpected {', '.join(sorted(map(str, extra)))[:200]}"
    record = row.get("record")
    if record is not None and not (isinstance(record, str) and len(record) <= MAX_RECORD):
        return "'record' must be a game record's text"
    return (_identity_problem(row, task) or _score_problem(row, rules)
            or _failure_problem(row, rules) or _status_problem(row, rules))


def rows_problem(rows: object, tasks: list[Task], rules: Ruleset) -> str | None:
    """Why ``rows`` is not one result per task, in order (None: it is)."""
    if not isinstance(rows, list) or len(rows) != len(tasks):
        got = f"{len(rows)}" if isinstance(rows, list) else type(rows).__name__
        return f"expected {len(tasks)} results, got {got}"
    for row, task in zip(rows, tasks, strict=True):
        problem = row_problem(row, task, rules)
        if problem is not None:
            return f"game {task.key}: {problem}"
    return None


def _identity_problem(row: dict[str, Any], task: Task) -> str | None:
    if row["key"] != task.key:
        return f"'key' is {row['key']!r}, the game scheduled is {task.key!r}"
    if not _whole(row.get("index")) or row["index"] != task.index:
        return "'index' is not the scheduled game's number"
    if row.get("pair") != list(task.pair) or not all(type(x) is str for x in row["pair"]):
        return "'pair' is not the pairing this game belongs to"
    if not _whole(row.get("deal")) or row["deal"] < 0:
        return "'deal' is missing or not a deal number (0 or more)"
    if row["deal"] != task.deal:
        return f"'deal' is {row['deal']}, the key's deal is {task.deal}"
    if row.get("seating") != list(task.seating) or not all(
            type(x) is str for x in row["seating"]):
        return "'seating' is not the seating this game was scheduled with"
    if not _whole(row.get("seed")) or row["seed"] != task.seed:
        return "'seed' is not this deal's seed (not a game of this tournament's seed.json)"
    return None


def _score_problem(row: dict[str, Any], rules: Ruleset) -> str | None:
    scores = row.get("scores")
    if not isinstance(scores, list) or len(scores) != rules.sides:
        return f"'scores' must hold {rules.sides} scores, one per side"
    if not all(_whole(s) and abs(s) <= MAX_SCORE for s in scores):
        return "'scores' must hold whole numbers a game can reach"
    reason = row.get("reason")
    if reason not in REASONS:
        return f"'reason' must be one of {', '.join(sorted(REASONS))}"
    hands = row.get("hands")
    if not _whole(hands) or not 0 <= hands <= rules.max_hands:
        return f"'hands' must be a count of hands from 0 to {rules.max_hands}"
    winner, forfeit = row.get("winner"), row.get("forfeit")
    if winner is not None and (not _whole(winner) or not 0 <= winner < rules.sides):
        return f"'winner' must be a side from 0 to {rules.sides - 1}, or null"
    if forfeit is not None:
        if not _whole(forfeit) or not 0 <= forfeit < rules.players:
            return f"'forfeit' must be a seat from 0 to {rules.players - 1}, or null"
        if reason != "forfeit":
            return "'forfeit' names a seat but 'reason' is not 'forfeit'"
        loser = rules.side_of(forfeit)
        best = max(s for side, s in enumerate(scores) if side != loser)
        if winner is None or winner == loser or scores[winner] != best:
            return "'winner' is not the best side left after the forfeit"
        return None
    if reason == "forfeit":
        return "'reason' is 'forfeit' but no seat forfeited"
    top = max(scores)
    leaders = [side for side, s in enumerate(scores) if s == top]
    expected = leaders[0] if len(leaders) == 1 and reason != "unfinished" else None
    if winner != expected:
        return (f"'winner' is {winner}, but scores {scores} make the winner {expected}"
                if expected is not None else
                f"'winner' is {winner}, but scores {scores} ({reason}) have no winner")
    if reason == "target" and top < rules.target:
        return f"'reason' is 'target' but no side reached {rules.target}"
    if reason != "unfinished" and hands < 1:
        return "'hands' is 0 for a game that was played"
    return None


def _failure_problem(row: dict[str, Any], rules: Ruleset) -> str | None:
    failures = row.get("failures")
    if not isinstance(failures, list) or len(failures) != rules.players:
        return f"'failures' must hold {rules.players} entries, one per seat"
    for counts in failures:
        if not isinstance(counts, dict):
            return "'failures' must hold one object per seat"
        for status, n in counts.items():
            if not _STATUS.fullmatch(status):
                return f"'failures' names {str(status)[:40]!r}, not a seat status"
            if not _whole(n) or not 0 <= n <= MAX_COUNT:
                return "'failures' must hold whole counts (0 or more)"
    return None


MAX_WHY = 1000  # characters of a seat's reason (the runner keeps at most 300)


def _status_problem(row: dict[str, Any], rules: Ruleset) -> str | None:
    """``status`` and ``why`` (each seat's status and reason, present only in a game where a
    seat failed; rows written before they existed have neither)."""
    if "status" not in row and "why" not in row:
        return None
    status, why = row.get("status"), row.get("why")
    if not isinstance(status, list) or len(status) != rules.players:
        return f"'status' must hold {rules.players} seat statuses, one per seat"
    if not all(isinstance(s, str) and _STATUS.fullmatch(s) for s in status):
        return "'status' must hold seat statuses such as OK or CRASHED"
    if not isinstance(why, list) or len(why) != rules.players:
        return f"'why' must hold {rules.players} entries, one per seat"
    if not all(w is None or (isinstance(w, str) and len(w) <= MAX_WHY) for w in why):
        return f"'why' must hold reasons (text of at most {MAX_WHY} characters) or null"
    return _report_problem(row, rules)


MAX_TAIL = 1 << 14  # characters of one bot's stderr tail (the runner keeps 4096 bytes)


def _report_problem(row: dict[str, Any], rules: Ruleset) -> str | None:
    """``failed_seats`` and ``stderr``, as a worker sends them with a failed game."""
    if "failed_seats" not in row and "stderr" not in row:
        return None
    seats, tails = row.get("failed_seats"), row.get("stderr")
    if not isinstance(seats, list) or len(seats) != rules.players:
        return f"'failed_seats' must hold {rules.players} seat reports"
    for s in seats:
        if not isinstance(s, dict) or not isinstance(s.get("name"), str) \
                or not isinstance(s.get("status"), str) or len(s["name"]) > 1000 \
                or not _STATUS.fullmatch(s["status"]):
            return "'failed_seats' must hold seat reports with a name and a status"
        errors = s.get("errors", [])
        if not isinstance(errors, list) or len(errors) > 20 \
                or not all(isinstance(e, str) and len(e) <= MAX_WHY * 4 for e in errors):
            return "'failed_seats' errors must be a short list of texts"
    if not isinstance(tails, dict) or len(tails) > rules.players:
        return "'stderr' must map seats to their stderr tails"
    for k, v in tails.items():
        seat = int(k) if isinstance(k, int) or (isinstance(k, str) and k.isdigit()) else -1
        if not 0 <= seat < rules.players or not isinstance(v, str) or len(v) > MAX_TAIL:
            return "'stderr' must map seats to their stderr tails"
    return None


def shape_problem(row: object, keys: set[str]) -> str | None:
    """Why a games.jsonl row cannot be used, by its shape alone (None: it can): for a
    reader without the schedule (the report viewer).  A run checks each row against its
    schedule and the deal's seed instead (``row_problem``)."""
    if not isinstance(row, dict):
        return "not an object"
    checks: list[tuple[str, type | tuple[type, ...]]] = [
        ("key", str), ("index", int), ("pair", list), ("deal", int), ("seating", list),
        ("seed", int), ("scores", list), ("failures", list), ("reason", str)]
    for name, kind in checks:
        if not isinstance(row.get(name), kind) or isinstance(row.get(name), bool):
            return f"{name!r} is missing or not a {getattr(kind, '__name__', 'value')}"
    if row["key"] not in keys:
        return "a game this tournament does not schedule"
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in row["scores"]):
        return "'scores' must hold whole numbers"
    if row.get("winner") is not None and not isinstance(row.get("winner"), int):
        return "'winner' must be a side or null"
    if len(row["pair"]) not in (2, 3) or not all(isinstance(f, dict) for f in row["failures"]):
        return "'pair' or 'failures' is malformed"
    return None
