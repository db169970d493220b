"""Seats from command-line specs: ``builtin:NAME`` or a command line for a bot process."""

from __future__ import annotations

import os
from pathlib import Path

from ..util.private_files import open_append, os_message
from ..util.seat_names import split_name
from .base import Seat
from .box import DEFAULT_POLICY, BoxPolicy
from .policy import builtin_seat
from .subprocess_seat import SubprocessSeat


def make_seat(spec: str, index: int, seed: int, log_dir: Path | None,
              spin_us: int = 300, box: BoxPolicy = DEFAULT_POLICY) -> Seat:
    """A seat from ``builtin:NAME``, a bot command line, or either behind ``NAME=``; the
    seat keeps the whole spec as its name (records and saves hold what starts it)."""
    full = spec.strip()
    spec = split_name(full)[1]
    if not spec:
        raise ValueError(f"seat {index}: empty command")
    if spec.startswith("builtin:"):
        seat = builtin_seat(spec, seed * 7919 + index)
        seat.name = full
        return seat
    log = None
    if log_dir is not None:
        log_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        log = log_dir / f"seat{index}.stderr.log"
        try:  # said now, before any game: never written through a link, never a FIFO
            os.close(open_append(log))
        except OSError as exc:
            raise ValueError(f"seat {index}: cannot write its stderr log"
                             f" {os_message(exc)}") from None
    return SubprocessSeat(spec, name=full, stderr_log=log, spin_us=spin_us, box=box)
