"""Keeping bot processes contained: whatever a bot starts ends with it, and with the referee.

Every bot runs in a box (``box.py``) with its own PID namespace: its first process waits for
the bot, and when the bot ends the kernel kills every process left in the namespace, so
children that left the bot's process group (``setsid``, a double fork) end too; the launcher
dies with the referee (the kernel's parent-death signal), and the namespace with it.  This
module keeps what is the referee's side of that: the directories bots must not see, and the
referee's own process settings.
"""

from __future__ import annotations

import contextlib
import os
import sys

from ..util.processes import children_running

_HIDDEN: set[str] = set()


def hide(*paths: str | os.PathLike[str]) -> None:
    """Keep these directories out of every bot's sight from now on (they appear empty to
    a boxed bot).  The referee's records, saves and results."""
    for p in paths:
        os.makedirs(p, mode=0o700, exist_ok=True)  # it must exist to be covered
        _HIDDEN.add(os.path.realpath(p))


def hidden() -> list[str]:
    """The directories hidden from bots, deepest last."""
    return sorted(_HIDDEN)


_SUBREAPER: list[bool] = []


def become_subreaper() -> None:
    """Before the first bot starts (Linux): have orphaned descendants of bots reparent to
    this process, so that they are reaped here and not left as zombies under an init that may
    not reap (containers); and make this process non-dumpable, so that a bot running as the
    same user cannot open its memory, files or environment through /proc."""
    if _SUBREAPER or not sys.platform.startswith("linux"):
        return
    _SUBREAPER.append(True)
    with contextlib.suppress(OSError, AttributeError):
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE


def die_with_parent() -> None:
    """Ask the kernel to kill this process when its parent dies (tournament workers)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        import ctypes
        import signal
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG



def box_helpers(pid: int, program: str) -> list[int]:
    """The box's own processes of the bot started as ``pid``: ``pid`` and its children that
    run ``program`` (bubblewrap's outer process and the namespace's first, which only wait;
    the bot is the next generation, so nothing here can be its).  Empty where unknown."""
    return children_running(pid, program)
