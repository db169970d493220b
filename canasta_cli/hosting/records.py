"""Game records: the one place that knows their format, writing and reading.

A record is JSON Lines, owner-only: a ``header``, then ``event``, ``move``, ``failure`` and
``late`` lines as the game goes, a ``reveal`` (seed, dealer and decks) once the game is over
(the record is sealed until then: it holds only what every seat may see), and a ``result``.
Each line is flushed as it is written, so a crash loses at most the line being written
(``load_record(torn_ok=True)`` leaves that one out).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ..core.errors import CanastaError
from ..util.private_files import open_private, read_input


class RecordError(CanastaError):
    """A record that cannot be read; the message names the line."""



MAX_RECORD_LINE = 1 << 22  # bytes: a record's lines are far shorter; longer is damage
MAX_RECORD = 1 << 26  # bytes (64 MiB): the longest game (200 hands) writes a few MiB


class RecordLines(list[dict[str, Any]]):
    """A record's lines, with the file line number of each (for messages)."""

    numbers: list[int]


def load_record(path: Path, torn_ok: bool = False) -> RecordLines:
    """The lines of a game record.  Damage is a RecordError naming the file and line; with
    ``torn_ok`` a last line cut short by a crash (no newline, not JSON) is left out."""
    try:
        data = read_input(path, MAX_RECORD, "a game record")
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None
    return parse_record(data, str(path), torn_ok)


def parse_record(data: bytes, name: str, torn_ok: bool = False) -> RecordLines:
    """The lines of a record's bytes (read from a file, or kept elsewhere, as the ladder keeps
    failed games), checked as ``load_record`` checks a file's; ``name`` names it in messages."""
    raw_lines = data.split(b"\n")
    torn = raw_lines.pop() if raw_lines else b""  # after the last newline: empty unless torn
    lines = RecordLines()
    lines.numbers = []
    for no, raw in enumerate(raw_lines + ([torn] if torn.strip() else []), start=1):
        if not raw.strip():
            continue
        last = no == len(raw_lines) + 1
        try:
            obj = _record_line(raw)
        except ValueError as exc:
            if last and torn_ok:
                break  # the line being written when the game stopped
            raise RecordError(f"{name}:{no}: {exc}") from None
        lines.append(obj)
        lines.numbers.append(no)
    if not lines or lines[0]["type"] != "header":
        raise RecordError(f"{name}:1: the first line must be the record header")
    return lines


def _finite(text: str) -> float:
    """A number of a record: 1e400 (infinity) and NaN are damage, not numbers."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]} is out of range")
    return value


def _record_line(raw: bytes) -> dict[str, Any]:
    if len(raw) > MAX_RECORD_LINE:
        raise ValueError(f"a line of {len(raw)} bytes is not a record line")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("not text (the file is not a game record)") from None
    try:
        obj = json.loads(text, parse_float=_finite, parse_constant=_finite)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"not JSON ({str(exc)[:80]})") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise ValueError("each line must be an object with a string 'type'")
    return obj


def sealed_parts(lines: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The seed, dealer and stacked decks of a record: in its header (records written before
    records were sealed) or in the ``reveal`` line written when the game was over."""
    header = lines[0]
    if not header.get("sealed"):
        return header
    return next((ln for ln in lines if ln["type"] == "reveal"), None)


class RecordWriter:
    """A game record being written, one line per call, each on disk as soon as it is flushed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = open_private(path)

    @property
    def name(self) -> str:
        return str(self.path)

    def write(self, line: dict[str, Any]) -> None:
        """Any record line (a ``type`` and its fields), e.g. a failure noted before the game."""
        try:
            self._file.write(json.dumps(line, separators=(",", ":")) + "\n")
            self._file.flush()
        except OSError as exc:  # a full disk: say which file
            exc.filename = exc.filename or str(self.path)
            raise

    def header(self, **fields: Any) -> None:
        self.write({"type": "header", **fields})

    def event(self, public_view: dict[str, Any]) -> None:
        self.write({"type": "event", "event": public_view})

    def move(self, seat: int, move: str, by: str) -> None:
        self.write({"type": "move", "seat": seat, "move": move, "by": by})

    def failure(self, seat: int, status: str, reason: str) -> None:
        self.write(failure_line(seat, status, reason))

    def late(self, seat: int, note: str) -> None:
        self.write({"type": "late", "seat": seat, "note": note})

    def reveal(self, secret: dict[str, Any]) -> None:
        self.write({"type": "reveal", **secret})

    def result(self, result: dict[str, Any], sealed: bool) -> None:
        """The last line; ``sealed``: the game may go on later, so its seed is not told."""
        line = {"type": "result", **result}
        if sealed:
            line["seed"] = None
        self.write(line)

    def close(self) -> None:
        self._file.close()


def failure_line(seat: int, status: str, reason: str) -> dict[str, Any]:
    return {"type": "failure", "seat": seat, "status": status, "reason": reason}
