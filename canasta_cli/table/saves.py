"""The games ``canasta play`` (and ``canasta serve``) saved: what each holds (when, rules,
seats, score, over or not), read from the records themselves, for ``canasta games`` and
``--resume last`` / ``--resume N`` (``resolve``)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import CanastaError
from ..core.reasons import GOES_ON
from ..hosting.records import RecordError, load_record
from ..util.seat_names import is_person

MAX_LISTED = 500  # the newest saves listed; older ones stay on disk, untouched

PLAY, SERVE = "play", "serve"  # the kinds of saves: a game at the prompt, a network table's


class FinishedGame(RecordError):
    """A save to resume whose game is already over (it can be replayed)."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path}: that game is already over; replay it with canasta replay")
        self.path = path


class NoSuchSave(CanastaError):
    """``--resume last`` or ``--resume N`` names no save of the kind asked for."""


@dataclass(frozen=True)
class SavedGame:
    path: Path
    started: float            # seconds since the epoch (the file's name, else its mtime)
    rules: str
    seats: list[str]
    scores: list[int]
    hands: int
    finished: bool
    winner: int | None = None
    sides: int = 2  # partnerships kept score of (three: six players in pairs)
    changed: int = 0  # the file's last change (ns since the epoch): when it was last played

    @property
    def kind(self) -> str:
        """``serve`` for a network table's game (a seat is remote), else ``play``."""
        return kind_of(self.seats)


def kind_of(seats: list[str]) -> str:
    """The kind of a save from its seats: a remote seat makes it a ``canasta serve`` game."""
    return SERVE if any(s == "remote" or s.startswith("remote:") for s in seats) else PLAY


def _started(path: Path) -> float:
    """``game-20261201-162658-411ada.jsonl`` was started at 2026-12-01 16:26:58."""
    parts = path.stem.split("-")
    if len(parts) >= 3:
        try:
            return time.mktime(time.strptime(f"{parts[1]}-{parts[2]}", "%Y%m%d-%H%M%S"))
        except ValueError:
            pass
    return path.stat().st_mtime


def _changed(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def summary(path: Path) -> SavedGame:
    """One save, read whole (a torn last line is left out); a RecordError if it is no
    record at all."""
    lines = load_record(path, torn_ok=True)
    header = lines[0]
    rules = header.get("rules") or {}
    start = header.get("start") or {}
    results = [ln for ln in lines if ln.get("type") == "result"]
    ends = [ln["event"] for ln in lines if ln.get("type") == "event"
            and isinstance(ln.get("event"), dict) and ln["event"].get("type") == "hand_ended"]
    scores: list[int] = list(start.get("scores") or [])
    if ends:
        scores = [int(x) for x in ends[-1].get("totals", [])]
    finished = bool(results) and results[-1].get("reason") not in GOES_ON
    if results and isinstance(results[-1].get("scores"), list):
        scores = [int(x) for x in results[-1]["scores"]]
    winner = results[-1].get("winner") if finished else None
    return SavedGame(path=path, started=_started(path), rules=str(rules.get("name", "?")),
                     seats=[str(s) for s in header.get("seats", [])], scores=scores,
                     hands=len(ends), finished=finished,
                     winner=winner if isinstance(winner, int) else None,
                     sides=3 if rules.get("three_partnerships") else 2, changed=_changed(path))


def saved_games(directory: Path) -> tuple[list[SavedGame], list[str]]:
    """The saves in ``directory``, newest first, and one line per file that could not be
    read (it is left as it is)."""
    if not directory.is_dir():
        return [], []
    paths = sorted(directory.glob("*.jsonl"), key=lambda p: p.name, reverse=True)[:MAX_LISTED]
    games, problems = [], []
    for path in paths:
        try:
            games.append(summary(path))
        except (RecordError, OSError, ValueError, TypeError, KeyError) as exc:
            problems.append(f"{path.name}: {exc}"[:200])
    # A name tells the second a game started; two started in one second go by their files'
    # last change (the random part of the name would order them by chance).
    games.sort(key=lambda g: (g.started, g.changed, g.path.name), reverse=True)
    return games, problems


def last_played(games: list[SavedGame], kind: str = PLAY) -> SavedGame | None:
    """Of ``games``, the unfinished one of ``kind`` played last: the one whose save changed
    last (a game resumed yesterday comes before one started and left the day before)."""
    waiting = [g for g in games if not g.finished and g.kind == kind]
    return max(waiting, key=lambda g: (g.changed, g.started, g.path.name), default=None)


def resolve(spec: str | Path, kind: str, directory: Path) -> Path:
    """The save that ``--resume SPEC`` names: a file (as given), ``last`` (the unfinished
    game of ``kind`` played last, in ``directory``) or ``N`` (the N-th game ``canasta games``
    lists for ``directory``).  A NoSuchSave says what is wrong; an existing file is taken as
    it is (its game is checked when it is loaded)."""
    text = str(spec)
    path = Path(spec)
    if path.exists() or not (text == "last" or (text.isdigit() and len(text) <= 6)):
        return path
    command = "canasta serve" if kind == SERVE else "canasta play"
    games, _ = saved_games(directory)
    if text == "last":
        game = last_played(games, kind)
        if game is None:
            what = "table game (canasta serve)" if kind == SERVE else "game"
            raise NoSuchSave(f"no unfinished {what} saved in {directory}")
        return game.path
    number = int(text)
    if not 1 <= number <= len(games):
        listed = f"canasta games lists {len(games)}" if games else "none is saved there"
        raise NoSuchSave(f"no game number {number} in {directory} ({listed})")
    game = games[number - 1]
    if game.kind != kind:
        other = "canasta serve" if game.kind == SERVE else "canasta play"
        raise NoSuchSave(f"game {number} ({game.path.name}) is a game of {other}, not of"
                         f" {command}: resume it with {other} --resume")
    return game.path


def describe_seats(seats: list[str]) -> str:
    """``you, 3 x builtin:hard``: the people by name, the others counted."""
    people = [s.split(":", 1)[1] if s.startswith("human:") else "you"
              for s in seats if is_person(s)]
    others: dict[str, int] = {}
    for s in seats:
        if not is_person(s):
            others[s] = others.get(s, 0) + 1
    bits = people + [f"{n} x {s}" if n > 1 else s for s, n in others.items()]
    return ", ".join(bits)


def winner_name(game: SavedGame) -> str:
    """``you``, ``builtin:hard``, or with partners ``side 0 (you, builtin:hard)``."""
    w = game.winner
    if w is None:
        return "nobody"
    n = len(game.seats)
    if n in (4, 6):
        team = [s for i, s in enumerate(game.seats) if i % game.sides == w]
        return f"side {w} ({describe_seats(team)})"
    return describe_seats([game.seats[w]]) if 0 <= w < n else f"seat {w}"


def row(game: SavedGame) -> dict[str, Any]:
    """A save as JSON (``canasta games --json``)."""
    return {"path": str(game.path), "started": time.strftime("%Y-%m-%d %H:%M",
                                                             time.localtime(game.started)),
            "rules": game.rules, "seats": game.seats, "scores": game.scores,
            "hands": game.hands, "finished": game.finished, "winner": game.winner}
