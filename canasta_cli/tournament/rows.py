"""Is this result row the game that was scheduled?  The one check every result passes before
it counts: a row of ``games.jsonl`` on resume, and (``row_problem`` again) a result a worker
sends back.

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
    return (_identity_problem(row, task) or _score_problem(row, rules)
            or _failure_problem(row, rules) or _status_problem(row, rules))


def _identity_problem(row: dict[str, Any], task: Task) -> str | None:
    if row["key"] != task.key:
        return f"'key' is {row['key']!r}, the game scheduled is {task.key!r}"
    if not _whole(row.get("index")) or row["index"] < 0:
        return "'index' is missing or not a game number"
    if row.get("pair") != list(task.pair):
        return "'pair' is not the pairing this game belongs to"
    if not _whole(row.get("deal")) or row["deal"] < 0:
        return "'deal' is missing or not a deal number (0 or more)"
    if row["deal"] != task.deal:
        return f"'deal' is {row['deal']}, the key's deal is {task.deal}"
    if row.get("seating") != list(task.seating):
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
    return None
