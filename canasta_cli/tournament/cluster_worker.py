"""What a Dask worker runs for a tournament.

Each share of games is played in a fresh interpreter started for it (``python -m
canasta_cli.tournament.cluster_worker``), not in the long-lived worker process: whatever a
game does to the referee's memory (a bot that found a flaw in it, say) ends with that process,
so nothing a game changes can carry over to the next game or the next tournament on the
worker.  The worker process itself only starts that interpreter and hands back its answer
(about 0.1 s a share).  Games between built-in players only, which start no bot process, are
played in the worker process.

Before any bot starts, the games process hides from every bot the directories the client
named (the tournament's ``--out`` and certificate directory, where they exist on this
machine) and the worker's own: its certificates and keys, and its scratch directory.  With
``--reuse-bots`` (trusted bots only) the games are played in the worker process itself, so
that bot processes can be kept between games.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import asdict
from typing import Any

from ..core.errors import CanastaError
from ..seats.box import BoxPolicy
from ..seats.contain import die_with_parent, hide
from .runner import Config, play_tasks
from .schedule import Task

MODULE = "canasta_cli.tournament.cluster_worker"
MAX_PAYLOAD = 64 << 20
_RUNNING: dict[str, set[subprocess.Popen[bytes]]] = {}
# Tournaments stopped on this worker, oldest first: a share of one that starts after its stop
# (it was queued, or its thread was slow to start) plays nothing.
_STOPPED: dict[str, None] = {}
_STOPPED_KEPT = 4096
_LOCK = threading.Lock()


class GamesFailed(CanastaError, RuntimeError):
    """The games process on a worker did not give an answer."""


def _not_dumpable() -> None:
    """Bots, even outside a namespace, cannot read this process's memory (the keys, the
    deals of queued games) through /proc or ptrace."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE


def worker_private() -> list[str]:
    """This worker's directories that no bot may see: those of its TLS files and its local
    (scratch) directory.  Empty outside a Dask worker."""
    try:
        from distributed import get_worker
        worker = get_worker()
    except (ImportError, ValueError):
        return []
    dirs: list[str] = []
    security = getattr(worker, "security", None)
    for attr in ("tls_ca_file", "tls_worker_cert", "tls_worker_key", "tls_client_cert",
                 "tls_client_key", "tls_scheduler_cert", "tls_scheduler_key"):
        value = getattr(security, attr, None)
        if isinstance(value, str) and value and "\n" not in value:  # a path, not a PEM
            dirs.append(os.path.dirname(os.path.abspath(value)))
    local = getattr(worker, "local_directory", None)
    if isinstance(local, str) and local:
        dirs.append(os.path.abspath(local))
    return dirs


def _hide_existing(paths: list[str]) -> None:
    hide(*sorted({p for p in paths if os.path.isabs(p) and os.path.isdir(p)}))


def play_fresh(tasks: list[Task], config: Config, hidden: list[str],
               run: str) -> list[dict[str, Any]]:
    """Play ``tasks`` in a fresh games process on this worker (see the module's doc)."""
    _not_dumpable()
    _refuse_stopped(run)
    private = [*hidden, *worker_private()]
    if config.reuse_bots or all(c.startswith("builtin:") for c in config.bots.values()):
        _hide_existing(private)  # kept bot processes (trusted bots), or no bot process at all
        return play_tasks(tasks, config)
    payload = json.dumps({"tasks": [asdict(t) for t in tasks], "config": asdict(config),
                          "hide": private}).encode()
    home = tempfile.mkdtemp(prefix="canasta-games-")  # its working directory: nothing on it
    try:
        with _LOCK:  # started and listed at once: a stop in between would miss it
            _refuse_stopped(run)
            proc = subprocess.Popen([sys.executable, "-m", MODULE], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=home,
                                    close_fds=True)
            _RUNNING.setdefault(run, set()).add(proc)
        try:
            out, err = proc.communicate(payload)
        finally:
            with _LOCK:
                _RUNNING.get(run, set()).discard(proc)
                if not _RUNNING.get(run):
                    _RUNNING.pop(run, None)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    if proc.returncode != 0:
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise GamesFailed(f"the games process ended with status {proc.returncode}:"
                          f" {last[0][:300]}")
    rows: list[dict[str, Any]] = json.loads(out)
    return rows


def _refuse_stopped(run: str) -> None:
    if run in _STOPPED:
        raise GamesFailed("the tournament was stopped; its games are not played")


def stop_games(run: str) -> int:
    """End this tournament's games processes on this worker (the tournament was stopped);
    their bots end with them, and none of its games starts here afterwards.  Returns how many
    there were."""
    with _LOCK:
        _STOPPED[run] = None
        while len(_STOPPED) > _STOPPED_KEPT:
            del _STOPPED[next(iter(_STOPPED))]
        procs = list(_RUNNING.pop(run, set()))
    for proc in procs:
        with contextlib.suppress(OSError):
            proc.terminate()
    return len(procs)


def _config(data: dict[str, Any]) -> Config:
    """The tournament's configuration from its JSON form (``asdict``)."""
    box = dict(data.get("box", {}))
    if "writable" in box:
        box["writable"] = tuple(box["writable"])
    return Config(**{**data, "box": BoxPolicy(**box)})


def main() -> None:
    """The games process: tasks and configuration as JSON on stdin, rows as JSON on stdout."""
    results = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything else printed goes to stderr, never into the answer
    die_with_parent()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # bots are closed on the way out
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    payload = json.loads(sys.stdin.buffer.read(MAX_PAYLOAD))
    _hide_existing([p for p in payload["hide"] if isinstance(p, str)])
    tasks = [Task(int(t["index"]), tuple(str(x) for x in t["pair"]), int(t["deal"]),
                  tuple(str(s) for s in t["seating"]), int(t["seed"])) for t in payload["tasks"]]
    rows = play_tasks(tasks, _config(payload["config"]))
    results.write(json.dumps(rows, separators=(",", ":")).encode())
    results.flush()


if __name__ == "__main__":
    main()
