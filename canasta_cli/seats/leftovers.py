"""What a killed run leaves in the temporary folder, removed by the next run.

Each run keeps its bots' homes and logs under one directory named for the run's process,
``canasta-run-<pid>-<random>`` (``run_dir``).  A run that ends cleanly removes its own; one
killed by SIGKILL cannot, so every run first sweeps (``sweep_stale``) the run directories
whose process is gone.  A directory is removed only if it is a real directory (not a
symbolic link), owned by this user, and its pid is not alive: a live run's, another
user's, or one whose owner cannot be told (a pid we may not signal) is left alone.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..util.processes import pid_alive

PREFIX = "canasta-run-"
_NAME = re.compile(r"canasta-run-(\d{1,10})-[A-Za-z0-9_]+")


def run_dir(tmp_root: str | os.PathLike[str] | None = None) -> Path:
    """A new owner-only directory for this run's bot homes and logs."""
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=tmp_root))


def _writable_then_retry(func: Callable[..., object], path: str, exc: BaseException) -> None:
    """rmtree's error handler: a bot may have left a directory read-only; make its parent
    writable and try once more (a file that still cannot go is left)."""
    if not isinstance(exc, PermissionError):
        return
    with contextlib.suppress(OSError):
        os.chmod(os.path.dirname(path), 0o700)
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, 0o700)
            shutil.rmtree(path, ignore_errors=True)
        else:
            func(path)


def sweep_stale(tmp_root: str | os.PathLike[str] | None = None) -> list[Path]:
    """Remove the run directories under ``tmp_root`` (default: the temporary folder) whose
    process is gone; the ones removed."""
    root = Path(tmp_root if tmp_root is not None else tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    uid = os.getuid()
    for entry in entries:
        match = _NAME.fullmatch(entry.name)
        if match is None or int(match.group(1)) == os.getpid():
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid or pid_alive(int(match.group(1))):
            continue
        path = Path(entry.path)
        try:
            if sys.version_info >= (3, 12):
                shutil.rmtree(path, onexc=_writable_then_retry)
            else:
                shutil.rmtree(path, onerror=lambda f, p, info: _writable_then_retry(f, p, info[1]))
        except OSError as exc:
            if exc.errno != errno.ENOENT:
                continue
        if not os.path.lexists(path):
            removed.append(path)
    return removed
