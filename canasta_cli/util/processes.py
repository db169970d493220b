"""Processes: whether one still runs, told from its pid alone (what a run's leftovers and a
ladder's claimed games are kept or reclaimed by), and the process table in /proc, read here
only (the seats reap their bots' leftover processes and find a box's own with it)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import NamedTuple


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (one of another user's counts as alive, and so does a
    pid no process can have: never a reason to delete or reclaim what it holds)."""
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OverflowError:
        return False
    return True


class Proc(NamedTuple):
    """A process as /proc/PID/stat gives it: its state letter, parent and process group."""

    pid: int
    state: str
    ppid: int
    pgid: int


def processes() -> Iterator[Proc]:
    """Every process this one can see in /proc (none where there is no /proc); the one
    place the package reads the process table."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()  # after the command's name
        except (OSError, IndexError):
            continue
        yield Proc(int(entry), fields[0], int(fields[1]), int(fields[2]))


def reap(pids: list[int]) -> None:
    """Wait for those of ``pids`` that are this process's children and have ended."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


def processes_of(uid: int) -> int:
    """How many processes user ``uid`` runs (of those this one can see)."""
    n = 0
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError):
                    if os.stat(f"/proc/{entry}").st_uid == uid:
                        n += 1
    return n


def children_running(pid: int, program: str) -> list[int]:
    """``pid`` and its children that run ``program`` (its real path); empty where unknown."""
    real = os.path.realpath(program)
    found: list[int] = []
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as f:
            candidates = [pid, *(int(p) for p in f.read().split())]
    except (OSError, ValueError):
        return []
    for p in candidates:
        with contextlib.suppress(OSError):
            if os.path.realpath(f"/proc/{p}/exe") == real:
                found.append(p)
    return found
