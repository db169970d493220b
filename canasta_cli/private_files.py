"""Files only their owner may read: records, transcripts, saves, sealed seeds, results."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO


def _owner_only(path: str, flags: int) -> int:
    return os.open(path, flags, 0o600)


def open_private(path: Path) -> IO[str]:
    """``path`` opened for writing (truncated), owner-only; its directory is created
    owner-only if it is new."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    return open(path, "w", encoding="utf-8", opener=_owner_only)  # noqa: SIM115


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to an owner-only file, on disk before this returns."""
    with open_private(path) as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
