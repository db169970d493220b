"""Is this result the game that was scheduled?  The client's check of what a worker returns.

A worker is not trusted to tell the truth about which game it played: the row it sends back
must name exactly the scheduled game (index, key, pairing, deal, seating, the deal's seed) and
be well formed (scores for every side, a winner that is a side, failure counts for every
seat), with nothing else in it but the game's record (``--records``), which is not checked
here.  The game is not played again to check its moves: a worker that plays the right game
can still lie about how it went (see protocol/README.md, "Tournaments on a cluster").
"""

from __future__ import annotations

from typing import Any

from ..core import Ruleset
from .schedule import Task

MAX_SCORE = 10**7            # far beyond any game's total
MAX_HANDS = 10**5
MAX_TEXT = 200
MAX_FAILURES = 10**6
MAX_RECORD = 64 << 20       # characters of a game's record (``--records``)
FIELDS = frozenset({"index", "key", "pair", "deal", "seating", "seed", "scores", "winner",
                    "reason", "hands", "forfeit", "failures"})
OPTIONAL = frozenset({"record"})


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _short_text(value: object) -> bool:
    return (isinstance(value, str) and 0 < len(value) <= MAX_TEXT and value.isprintable())


def row_problem(row: object, task: Task, rules: Ruleset) -> str | None:
    """Why ``row`` is not a well-formed result of ``task`` (None: it is)."""
    if not isinstance(row, dict):
        return "not an object"
    extra = set(row) - FIELDS - OPTIONAL
    missing = FIELDS - set(row)
    if missing or extra:
        return (f"missing {', '.join(sorted(missing))}" if missing
                else f"unexpected {', '.join(sorted(map(str, extra)))[:MAX_TEXT]}")
    expected: dict[str, Any] = {"index": task.index, "key": task.key, "pair": list(task.pair),
                                "deal": task.deal, "seating": list(task.seating),
                                "seed": task.seed}
    for name, want in expected.items():
        got = row[name]
        same = (got == want and type(got) is type(want)
                and (not isinstance(got, list) or all(type(x) is str for x in got)))
        if not same:
            return f"{name!r} is not the scheduled game's"
    sides, seats = rules.sides, rules.players
    scores = row["scores"]
    if (not isinstance(scores, list) or len(scores) != sides
            or not all(_int(s) and abs(s) <= MAX_SCORE for s in scores)):
        return f"'scores' must be {sides} whole numbers"
    winner = row["winner"]
    if winner is not None and not (_int(winner) and 0 <= winner < sides):
        return "'winner' must be a side or null"
    forfeit = row["forfeit"]
    if forfeit is not None and not (_int(forfeit) and 0 <= forfeit < seats):
        return "'forfeit' must be a seat or null"
    if not _short_text(row["reason"]):
        return "'reason' must be a short line of text"
    if not (_int(row["hands"]) and 0 <= row["hands"] <= MAX_HANDS):
        return "'hands' must be a count of hands"
    failures = row["failures"]
    if not isinstance(failures, list) or len(failures) != seats:
        return f"'failures' must hold one object per seat ({seats})"
    for counts in failures:
        if not isinstance(counts, dict) or not all(
                _short_text(k) and _int(v) and 0 <= v <= MAX_FAILURES
                for k, v in counts.items()):
            return "'failures' must map statuses to counts"
    record = row.get("record")
    if record is not None and not (isinstance(record, str) and len(record) <= MAX_RECORD):
        return "'record' must be a game record's text"
    return None


def rows_problem(rows: object, tasks: list[Task], rules: Ruleset) -> str | None:
    """Why ``rows`` is not one well-formed result per task, in order (None: it is)."""
    if not isinstance(rows, list) or len(rows) != len(tasks):
        return f"expected {len(tasks)} results, got {_shape(rows)}"
    for row, task in zip(rows, tasks, strict=True):
        problem = row_problem(row, task, rules)
        if problem is not None:
            return f"game {task.key}: {problem}"
    return None


def _shape(value: object) -> str:
    return f"{len(value)}" if isinstance(value, list) else type(value).__name__
