"""Exit codes of ``match``, ``tournament``, ``ladder run`` and ``bot check``, for scripts and CI.

* 0: every game finished and no seat failed (``bot check``: every check passed);
* 2: a usage error (a bad option or file), nothing played;
* 3: a bot failed: a seat got a status (CRASHED, TIMEOUT, PROTOCOL_ERROR, ILLEGAL_MOVE) in
  some game, or a check failed; the count is on stderr.
"""

from __future__ import annotations

from collections import Counter

import typer

from ..util.words import plural

OK = 0
USAGE = 2
SEAT_FAILED = 3


def seat_failed(games: int, statuses: Counter[str], what: str = "game") -> typer.Exit:
    """One line on stderr saying how many seats failed in how many games; raise what this
    returns to exit with ``SEAT_FAILED``."""
    seats = sum(statuses.values())
    kinds = ", ".join(f"{k} x{v}" for k, v in sorted(statuses.items()))
    typer.echo(f"failed: {plural(seats, 'seat')} got a status in {plural(games, what)}"
               f" ({kinds})", err=True)
    return typer.Exit(SEAT_FAILED)
