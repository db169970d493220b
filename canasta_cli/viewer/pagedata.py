"""The data a replay page embeds: for each step of a replayed record, the table and the
event lines exactly as ``canasta replay`` computes them (``observation`` and
``describe_event`` on the replayed states), stored as changes from the step before so that a
whole game stays small.  ``expand`` undoes that; the page's script does the same in the
browser, and the tests compare ``expand`` with ``observation`` step by step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core import observation
from ..hosting.records import RecordError, load_record, sealed_parts
from ..hosting.replay import Replay, replay
from ..ui.event_text import describe_event, only_cards
from ..ui.render import Style
from ..util.words import plural

CARD = only_cards(Style(color=False).card)  # events write cards as the table does: 6♥

FORMAT = 1
# The parts of an observation that depend on the seat; everything else is the public table.
SEAT_KEYS = ("seat", "side", "hand", "pile_frozen_for_me")
PUBLIC = "public"
ALL = "all"
_MISSING = object()


def load_replay(path: Path) -> tuple[Replay, list[dict[str, Any]], bool]:
    """A record replayed as ``canasta replay`` does: the replay, the record's lines, and
    whether only the public view may be shown (a saved game that goes on later: its seed is
    in its secret file, and its hidden cards stay hidden)."""
    lines = load_record(path)
    secret = None
    public = False
    if sealed_parts(lines) is None and lines[0].get("secret"):
        from ..table.session import load_secret
        secret = load_secret(path, lines)
        public = True
    return replay(lines, secret), lines, public


def _side_note(lines: list[dict[str, Any]]) -> list[tuple[str | None, list[dict[str, Any]]]]:
    """Per recorded move, in order: how it was chosen ('bot', 'default', ...) and the
    failures noted just before it (a failure line precedes the move it led to)."""
    out: list[tuple[str | None, list[dict[str, Any]]]] = []
    failures: list[dict[str, Any]] = []
    for ln in lines[1:]:
        if ln["type"] == "failure":
            failures.append({"seat": ln.get("seat"), "status": str(ln.get("status", ""))[:40],
                             "reason": str(ln.get("reason", ""))[:2000]})
        elif ln["type"] == "move":
            by = ln.get("by")
            out.append((str(by)[:20] if by is not None else None, failures))
            failures = []
    if failures:
        out.append((None, failures))  # after the last move: the game ended on a failure
    return out


class _Diff:
    """What changed since the step before, so that a step stores only that: the table's
    fields, the meld rows (they change one at a time) and the hands."""

    def __init__(self, players: int) -> None:
        self.table: dict[str, Any] = {}
        self.rows: list[Any] = []
        self.hands_before: list[list[str] | None] = [None] * players

    def table_step(self, obs: list[dict[str, Any]]) -> dict[str, Any]:
        table = {k: v for k, v in obs[0].items() if k not in SEAT_KEYS}
        table["frozen_for"] = [o["pile_frozen_for_me"] for o in obs]
        rows = table.pop("melds")
        step: dict[str, Any] = {"t": {k: v for k, v in table.items()
                                      if self.table.get(k, _MISSING) != v}}
        changed_rows = {str(r): row for r, row in enumerate(rows)
                        if r >= len(self.rows) or self.rows[r] != row}
        if changed_rows:
            step["m"] = changed_rows
        if len(rows) != len(self.rows):
            step["mn"] = len(rows)
        self.rows = rows
        gone = [k for k in self.table if k not in table]
        if gone:
            step["x"] = gone
        self.table = table
        return step

    def hands(self, obs: list[dict[str, Any]]) -> dict[str, Any]:
        changed = {str(s): o["hand"] for s, o in enumerate(obs) if o["hand"] != self.hands_before[s]}
        self.hands_before = [o["hand"] for o in obs]
        return changed


def _shown(evs: list[Any], players: int, public: bool) -> dict[str, list[str]]:
    """A step's events in words as each view sees them: the public's, and (unless the page
    is public) each seat's and the whole truth where they differ from the public's."""
    shown = {PUBLIC: [describe_event(e.view(-1), card=CARD) for e in evs]}
    if not public:
        for s in range(players):
            mine = [describe_event(e.view(s), card=CARD) for e in evs]
            if mine != shown[PUBLIC]:
                shown[str(s)] = mine
        full = [describe_event(e.full(), card=CARD) for e in evs]
        if full != shown[PUBLIC]:
            shown[ALL] = full
    return shown


def replay_data(rep: Replay, lines: list[dict[str, Any]], public: bool,
                seat: int | None = None) -> dict[str, Any]:
    """The page's data for a replayed record (see the module docstring).  A ``public`` page
    holds no hidden card at all: no hand, and every event as the public sees it."""
    rules = rep.state.rules
    n = rules.players
    header = rep.header
    names = [str(x) for x in header.get("seats", [])]
    if len(names) != n:
        names = [f"seat {i}" for i in range(n)]
    views = [PUBLIC] if public else [PUBLIC, *(str(s) for s in range(n)), ALL]
    notes = _side_note(lines)
    steps: list[dict[str, Any]] = []
    diff = _Diff(n)
    for i, ((who, move, evs), state) in enumerate(zip(rep.steps, rep.states, strict=True)):
        obs = [observation(state, s, history=False) for s in range(n)]
        step = diff.table_step(obs)
        if who is not None:
            step["seat"] = who
            step["move"] = move
            by, failed = notes[i - 1] if i - 1 < len(notes) else (None, [])
            if by not in (None, "bot"):
                step["by"] = by
            if failed:
                step["failures"] = failed
        shown = _shown(evs, n, public)
        if not public:
            changed = diff.hands(obs)
            if changed:
                step["h"] = changed
        step["ev"] = shown
        ends = [e.view(-1) for e in evs if e.view(-1).get("type") == "hand_ended"]
        if ends:
            step["end"] = ends
        steps.append(step)
    if len(notes) == len(rep.steps) and notes[-1][0] is None:
        steps[-1].setdefault("failures", []).extend(notes[-1][1])
    result = rep.recorded_result
    return {
        "format": FORMAT,
        "game": header.get("game"),
        "rules": rules.name,
        "players": n,
        "sides": rules.sides,
        "partnerships": rules.partnerships,
        "cutthroat": rules.cutthroat,
        "names": names,
        "public": public,
        "views": views,
        "open_view": str(seat) if seat is not None else PUBLIC if public else ALL,
        "result": None if result is None else {
            "scores": result.get("scores"), "winner": result.get("winner"),
            "reason": str(result.get("reason", ""))[:200], "forfeit": result.get("forfeit")},
        "mismatches": [m[:300] for m in rep.mismatches],
        "steps": steps,
    }


def expand(data: dict[str, Any], view: str) -> list[dict[str, Any]]:
    """Each step as the page shows it in ``view`` ('public', a seat number, or 'all'): the
    event lines, and ``obs`` (a seat's view: exactly ``observation(state, seat,
    history=False)``; 'public': the table alone; 'all': the table and ``hands``)."""
    if view not in data["views"]:
        raise RecordError(f"this page has no view {view!r}")
    n = data["players"]
    table: dict[str, Any] = {}
    hands: list[list[str]] = [[] for _ in range(n)]
    out = []
    for step in data["steps"]:
        table = {k: v for k, v in table.items() if k not in step.get("x", ())}
        table.update(step["t"])
        rows = list(table.get("melds", []))[:step.get("mn", len(table.get("melds", [])))]
        rows += [[]] * (step.get("mn", 0) - len(rows))
        for r, row in step.get("m", {}).items():
            rows[int(r)] = row
        table["melds"] = rows
        for s, cards in step.get("h", {}).items():
            hands[int(s)] = cards
        lines = step["ev"].get(view, step["ev"][PUBLIC])
        frozen = table["frozen_for"]
        public = {k: v for k, v in table.items() if k != "frozen_for"}
        obs: dict[str, Any]
        if view == PUBLIC:
            obs = public
        elif view == ALL:
            obs = {**public, "hands": [list(h) for h in hands]}
        else:
            s = int(view)
            side = s % int(data["sides"]) if data["partnerships"] else s
            obs = {"seat": s, "side": side, **public, "hand": list(hands[s]),
                   "pile_frozen_for_me": frozen[s]}
        out.append({"seat": step.get("seat"), "move": step.get("move"), "lines": lines,
                    "obs": obs})
    return out


HIDDEN_FAILURE = "(another seat's failure: its words may name the cards it held)"


def seat_only(data: dict[str, Any], seat: int) -> dict[str, Any]:
    """``data`` cut down to what ``seat`` saw, for a page that must hold no card it could
    not see (the review page): the public view and the seat's own, its hand alone, the other
    seats' failures without their words (a refused move may name a card its bot held), and the
    record's disagreements with the engine counted, not quoted (they may quote the deck)."""
    me = str(seat)
    views = [PUBLIC] if data["public"] else [PUBLIC, me]
    steps = []
    for step in data["steps"]:
        out = {k: v for k, v in step.items() if k not in ("h", "ev", "failures")}
        if me in step.get("h", {}):
            out["h"] = {me: step["h"][me]}
        out["ev"] = {v: lines for v, lines in step["ev"].items() if v in views}
        if "failures" in step:
            out["failures"] = [f if f.get("seat") == seat else {**f, "reason": HIDDEN_FAILURE}
                               for f in step["failures"]]
        steps.append(out)
    n = len(data["mismatches"])
    said = [f"the record and the engine disagree ({plural(n, 'time')}): canasta replay"
            " shows where"]
    return {**data, "views": views, "open_view": views[-1], "steps": steps,
            "mismatches": said if n else []}
