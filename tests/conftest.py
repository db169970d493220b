"""Every test runs with its own data and state directories, so that saved games and their
sealed seeds never land in the real home directory.  ``-n auto`` starts two test processes
per core (see ``pytest_xdist_auto_num_workers``)."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


def _private_bytecode_cache() -> None:
    """Where PYTHONDONTWRITEBYTECODE is set, every ``canasta`` the suite starts (some hundreds)
    would compile the package's sources again (the test processes and many commands import
    the checkout's), a third of its start-up.  The suite keeps bytecode in a directory of its
    own in the virtual environment (nothing lands beside the sources), kept for the next run:
    a directory made afresh each run had every process of the first minute compile the
    standard library and every dependency again too (Python reads no other bytecode once a
    prefix is set), about 20 s of a run.  Outside a virtual environment it is made for the
    run and removed.  The test processes and every command they start share it."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    cache = Path(sys.prefix) / "canasta-test-bytecode"
    try:
        if sys.prefix == sys.base_prefix:
            raise PermissionError("not a virtual environment: the system's Python is not ours")
        cache.mkdir(exist_ok=True)
    except OSError:  # an environment that is not ours to write: one for this run only
        cache = Path(tempfile.mkdtemp(prefix="canasta-test-bytecode-"))
        atexit.register(shutil.rmtree, cache, ignore_errors=True)
    os.environ.pop("PYTHONDONTWRITEBYTECODE")
    os.environ["PYTHONPYCACHEPREFIX"] = str(cache)


_private_bytecode_cache()  # before pytest-xdist starts the test processes, which inherit it


def _no_terminal_size() -> None:
    """No COLUMNS or LINES for the commands the suite starts, unless a test gives them: the
    text commands wrap piped output to COLUMNS when it is set (ui/screen.stream_width), and
    pytest imports readline early (_pytest/capture.py), which puts COLUMNS=80 and LINES=24
    into this process's environment behind os.environ's back (GNU readline's
    rl_change_environment): every command started, and every test process, inherited them."""
    for name in ("COLUMNS", "LINES"):
        os.environ.pop(name, None)
        os.unsetenv(name)


_no_terminal_size()  # in the test processes too: each imports readline and this file anew

WORKERS_PER_CORE = 2


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """Two test processes per core for ``-n auto``: about half of this suite's time is spent
    waiting (on bots, sockets, terminals and the processes it starts), so with one process
    per core the cores sit idle half the time.  ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still
    decides when set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own reading of it
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, cores) * WORKERS_PER_CORE


@pytest.fixture(autouse=True, scope="session")
def _private_xdg_dirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    base = tmp_path_factory.mktemp("xdg")
    saved = {k: os.environ.get(k) for k in ("XDG_DATA_HOME", "XDG_STATE_HOME")}
    os.environ["XDG_DATA_HOME"] = str(base / "data")
    os.environ["XDG_STATE_HOME"] = str(base / "state")
    yield base
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
