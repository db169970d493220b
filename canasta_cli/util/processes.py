"""Whether a process still runs, told from its pid alone: what a run's leftovers and a
ladder's claimed games are kept or reclaimed by."""

from __future__ import annotations

import os


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
