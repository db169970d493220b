"""The bounds of every number and path the commands take from a person, checked before any
work starts: a value out of range is a one-line error, never a traceback, a fork storm or a
list of a billion seeds built first.

The limits (also in docs/security.md):

* ``--concurrency``: at most ``CONCURRENCY_PER_CORE`` games per usable core of this machine
  (on a Dask cluster, at most ``MAX_CLUSTER_CONCURRENCY`` games in flight);
* ``--games``: at most ``MAX_GAMES`` games in a match, and a tournament of at most
  ``MAX_GAMES`` games in all (duplicate deals x seatings x pairings), so at most that many
  deals per pairing;
* times in milliseconds (``--decision-ms``, ``--bank-ms``, ``--startup-ms``,
  ``--timeout-ms``): from 1 (0 for a bank) to ``MAX_MS``, a day: the referee's clock waits in
  ``poll``, whose timeout is a C int of milliseconds (about 24.8 days);
* ``--elo1`` (and an ``--elo0``): finite, from -``MAX_ELO`` to ``MAX_ELO``;
* ``--spin-us``: at most ``MAX_SPIN_US``; ``--delay``: finite, at most ``MAX_DELAY_S``.
"""

from __future__ import annotations

import math
import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import CanastaError
from ..util.safetext import visible
from .options import fail

if TYPE_CHECKING:
    from ..hosting.match import MatchPlan

CONCURRENCY_PER_CORE = 4
MAX_CLUSTER_CONCURRENCY = 1024
MAX_GAMES = 1_000_000
MAX_MS = 86_400_000
MAX_ELO = 1000.0
MAX_SPIN_US = 1_000_000
MAX_DELAY_S = 3600.0
MAX_COMMAND = 1 << 16  # characters in one bot command line


class LimitError(CanastaError):
    """A flag's value out of its documented range; the message is one line."""


def enforce(check: Callable[..., None], *args: Any) -> None:
    """Run one of the checks below: a value out of bounds is a one-line error (exit 2)."""
    try:
        check(*args)
    except LimitError as exc:
        raise fail(visible(str(exc))) from None


def usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def max_concurrency(cluster: bool = False) -> int:
    return MAX_CLUSTER_CONCURRENCY if cluster else CONCURRENCY_PER_CORE * usable_cores()


def check_concurrency(value: int | None, cluster: bool = False) -> None:
    if value is None:
        return
    top = max_concurrency(cluster)
    if not 1 <= value <= top:
        where = ("on a cluster" if cluster else
                 f"on this machine ({CONCURRENCY_PER_CORE} per core, {usable_cores()} cores)")
        raise LimitError(f"--concurrency must be from 1 to {top} {where}, got {_short(value)}")


def check_games(value: int, flag: str = "--games") -> None:
    if not 1 <= value <= MAX_GAMES:
        raise LimitError(f"{flag} must be from 1 to {MAX_GAMES:,}, got {_short(value)}")


def check_tournament_size(deals: int, pairings: int, seatings: int) -> None:
    """A tournament's whole schedule, counted before it is built."""
    check_games(deals)
    total = deals * pairings * seatings
    if total > MAX_GAMES:
        raise LimitError(f"--games {deals} makes {total:,} games ({pairings} pairing(s) x"
                         f" {seatings} seatings each); a tournament plays at most"
                         f" {MAX_GAMES:,}: at most {MAX_GAMES // (pairings * seatings):,}"
                         " deals per pairing")


def check_ms(flag: str, value: int, low: int = 1) -> None:
    if not low <= value <= MAX_MS:
        raise LimitError(f"{flag} must be from {low} to {MAX_MS:,} ms (a day), got"
                         f" {_short(value)}")


def check_elo(flag: str, value: float) -> None:
    if not math.isfinite(value) or abs(value) > MAX_ELO:
        raise LimitError(f"{flag} must be a finite number from {-MAX_ELO:g} to {MAX_ELO:g},"
                         f" got {value}")


def check_spin(value: int) -> None:
    if not 0 <= value <= MAX_SPIN_US:
        raise LimitError(f"--spin-us must be from 0 to {MAX_SPIN_US:,}, got {_short(value)}")


def check_delay(value: float) -> None:
    if not math.isfinite(value) or not 0 <= value <= MAX_DELAY_S:
        raise LimitError(f"--delay must be from 0 to {MAX_DELAY_S:g} seconds, got {value}")


def check_command(command: str, what: str = "the bot's command line") -> None:
    """A bot command that can be started: not empty, quotes balanced, of a sane length."""
    if len(command) > MAX_COMMAND:
        raise LimitError(f"{what} is {len(command):,} characters long (at most"
                         f" {MAX_COMMAND:,})")
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise LimitError(f"{what} {command[:60]!r} cannot be split into words: {exc}") from None
    if not argv:
        raise LimitError(f"{what} is empty: give the program to run, e.g. 'python3 my_bot.py'")


def check_directory(flag: str, path: Path | None) -> None:
    """A flag that names a directory canasta writes into: an existing file there is an
    error (not a traceback, not a file overwritten)."""
    if path is not None and (path.exists() or path.is_symlink()) and not path.is_dir():
        raise LimitError(f"{flag} {str(path)!r} names a file; it takes a directory (new or"
                         " existing)")


def _short(value: int) -> str:
    text = str(value)
    return text if len(text) <= 24 else f"{text[:8]}...({len(text)} digits)"


def check_tournament(bots: dict[str, str], deals: int, size: tuple[int, int],
                     concurrency: int | None, cluster: bool) -> None:
    """The bots and the size of ``canasta tournament``, before the schedule is built:
    ``size`` is the schedule's own count of its groups and their seatings
    (``tournament.schedule.size``)."""
    for name, command in bots.items():
        if not command.startswith("builtin:"):
            check_command(command, f"--bot {name!r}: the command line")
    check_tournament_size(deals, max(1, size[0]), size[1])
    check_concurrency(concurrency, cluster)


def check_clock(decision_ms: int, bank_ms: int) -> None:
    check_ms("--decision-ms", decision_ms)
    check_ms("--bank-ms", bank_ms, low=0)


def check_match(plan: MatchPlan) -> None:
    """Every bound of ``canasta match``, on the plan its options made."""
    from ..util.seat_names import split_name
    for i, spec in enumerate(plan.seats):
        command = split_name(spec.strip())[1]
        if not command.startswith("builtin:"):
            check_command(command, f"--seat {i}: the command line")
    check_games(plan.games)
    check_ms("--startup-ms", plan.time_control.startup_ms)
    check_clock(plan.time_control.decision_ms, plan.time_control.bank_ms)
    check_spin(plan.spin_us)
    check_directory("--record", plan.record_dir)
    check_directory("--transcript", plan.transcript_dir)
