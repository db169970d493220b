"""Game records of a tournament (``--records``, implied by ``--html``).

A worker keeps a game's record in memory, never in a file a bot could read while its deal is
still being played in other seatings (the record ends with the deal's seed); the tournament
writes it to ``OUT/records/`` when it writes the deal's rows to ``games.jsonl``.
"""

from __future__ import annotations

import io
from pathlib import Path

from ..hosting.records import RecordWriter
from ..hosting.referee import Referee
from ..util.private_files import write_private

RECORDS = "records"


def record_path(out: Path, index: int) -> Path:
    """The record of the game at ``index`` in the schedule (its record's ``game`` is
    ``index + 1``)."""
    return out / RECORDS / f"game-{index + 1:04d}.jsonl"


class _MemoryRecord(RecordWriter):
    """A record written to memory instead of a file."""

    def __init__(self) -> None:
        self.path = Path("(in memory)")
        self._memory = io.StringIO()
        self._file = self._memory
        self.text = ""

    def close(self) -> None:
        self.text = self._memory.getvalue()
        self._memory.close()


class RecordingReferee(Referee):
    """A referee whose game record stays in memory: ``record_text`` after ``play``."""

    _memory: _MemoryRecord | None = None

    def _open_record(self, game: int, path: Path | None = None) -> RecordWriter | None:
        self._memory = _MemoryRecord()
        return self._memory

    @property
    def record_text(self) -> str | None:
        return self._memory.text if self._memory is not None else None


def write_record(out: Path, index: int, text: str) -> None:
    write_private(record_path(out, index), text)
