"""Signals to the referee: SIGTERM, SIGINT and SIGKILL to ``canasta match`` and ``canasta
tournament`` while subprocess bots play leave no process running: not the bots, not the
children they moved out of their process group, not the tournament's workers."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_hostile_bots import HOSTILE, left_running, running

CANASTA = shutil.which("canasta", path=os.path.dirname(sys.executable)) or "canasta"


def sigint_as_at_a_terminal() -> None:
    """Ctrl-C as a person at a terminal sends it.  A suite started in the background by a
    shell without job control inherits SIGINT ignored (POSIX), and so would every referee it
    starts: Python keeps an ignored SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` now (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _wait_for_pids(pidfile: Path, n: int, proc: subprocess.Popen[bytes]) -> None:
    """Wait until ``n`` processes name the marker (boxed bots cannot write the file)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if len(left_running(pidfile, wait=0)) >= n:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("the bots did not start")


def _wait_for(path: Path, text: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120  # a hang guard only
    while not (path.exists() and text in path.read_text(encoding="utf-8", errors="replace")):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{text!r} never appeared in {path}"
        time.sleep(0.05)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGKILL],
                         ids=["SIGTERM", "SIGINT", "SIGHUP", "SIGKILL"])
@pytest.mark.parametrize("command", ["match", "tournament"])
def test_nothing_outlives_a_signalled_referee(tmp_path: Path, command: str,
                                              sig: signal.Signals) -> None:
    pidfile = tmp_path / "pids"
    bot = f"{sys.executable} {HOSTILE} escape-slow {pidfile}"
    if command == "match":
        argv = [CANASTA, "match", "--seat", bot, "--seat", "builtin:random", "--seat", bot,
                "--seat", "builtin:random", "--games", "50", "--record", str(tmp_path / "rec")]
        wanted = 6  # two bots, each with two escaped children
    else:
        # Short games (16 turns: each bot seat plays, is frozen and thawed): what is signalled
        # is the processes, and a whole game to 5000 points (a minute at the slow bot's pace)
        # proves nothing more.  Seven deals (14 games) are few enough that each worker is handed
        # one game at a time (so the first deal's rows come after its two games, not after a
        # batch) and many enough that games are still being played when the signal comes.
        argv = [CANASTA, "tournament", "--bot", f"a={bot}", "--bot", "b=builtin:random",
                "--games", "7", "--concurrency", "2", "--set", "max_turns=16",
                "--out", str(tmp_path / "out")]
        wanted = 12  # two workers, each with two bot processes (a side is two seats)
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, preexec_fn=sigint_as_at_a_terminal)
    try:
        _wait_for_pids(pidfile, wanted, proc)
        # A game under way, as the referee's own files tell (boxed bots cannot write): a move
        # recorded in the match's first game, or the tournament's first deal done (of 7)
        # and then both workers' bots of the games after it running (the finished game's bots
        # are ended before its row is written, so these are the next games' bots).
        if command == "match":
            _wait_for(tmp_path / "rec" / "game-0001.jsonl", '"type":"move"', proc)
        else:
            _wait_for(tmp_path / "out" / "games.jsonl", "\n", proc)
            _wait_for_pids(pidfile, wanted, proc)
        below = descendants(proc.pid)
        assert below
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0
    assert b"Traceback" not in err, err.decode(errors="replace")[-2000:]
    assert left_running(pidfile) == []
    deadline = time.monotonic() + 10
    while any(running(p) for p in below) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p for p in below if running(p)] == []
    if command == "match" and sig != signal.SIGKILL:
        last = sorted((tmp_path / "rec").glob("game-*.jsonl"))[-1]
        lines = [json.loads(x) for x in last.read_text().splitlines()]
        assert lines[-1]["type"] == "result"  # the game cut short still has its result line
