"""No file canasta writes is written through a symbolic link planted at its name, and a FIFO
planted there is refused at once, never waited on (private_files.py): the link's target is
left as it was, and the run either says so in one line or puts a fresh file in the link's
place.  Each case runs the real ``canasta`` command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

CANASTA = shutil.which("canasta", path=os.path.dirname(sys.executable)) or "canasta"
ROOT = Path(__file__).resolve().parent.parent
HANG_GUARD = 60  # seconds: a FIFO waited on would hang the run past it
RANDOM_BOT = f"python3 {ROOT / 'bots' / 'random_bot.py'}"
MATCH = ["match", "--seat", RANDOM_BOT, "--seat", "builtin:greedy", "--seat", RANDOM_BOT,
         "--seat", "builtin:greedy", "--games", "1", "--seed", "3", "--set", "max_hands=1"]
TOURNAMENT = ["tournament", "--bot", "a=builtin:random", "--bot", "b=builtin:greedy",
              "--games", "1", "--set", "max_hands=1", "--seed", "2"]


def canasta(*args: str, home: Path | None = None,
            stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("COLUMNS", None)  # errors whole on one line, as a script gets them
    if home is not None:
        env.update(XDG_DATA_HOME=str(home / "data"), XDG_STATE_HOME=str(home / "state"),
                   XDG_CONFIG_HOME=str(home / "config"))
    done = subprocess.run([CANASTA, *args], input=stdin, capture_output=True, text=True,
                          timeout=HANG_GUARD, check=False, env=env)
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    return done


def one_error(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout[-500:], done.stderr)
    lines = [ln for ln in done.stderr.strip().splitlines() if not ln.startswith("warning: ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    for w in words:
        assert w in lines[0], lines[0]


def plant(path: Path, kind: str, victim: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:  # "link" to the victim; "dangling": to a victim that does not exist yet
        path.symlink_to(victim)


@pytest.mark.parametrize("kind", ["link", "dangling", "fifo"])
def test_a_planted_stderr_log_is_refused_before_any_game(tmp_path: Path, kind: str) -> None:
    """``match --record DIR`` with a real bot in seat 0: its ``seat0.stderr.log`` (appended
    to) is never opened through a link, nor waited on as a FIFO."""
    rec = tmp_path / "rec"
    victim = tmp_path / "victim"
    if kind == "link":
        victim.write_text("precious\n")
    plant(rec / "seat0.stderr.log", kind, victim)
    done = canasta(*MATCH, "--record", str(rec))
    one_error(done, "seat 0", "seat0.stderr.log",
              "FIFO" if kind == "fifo" else "symbolic link")
    assert not (rec / "game-0001.jsonl").exists()  # said before any game
    if kind == "link":
        assert victim.read_text() == "precious\n"
    else:
        assert not victim.exists()


def test_a_stderr_log_already_there_is_appended_to_owner_only(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    rec.mkdir()
    log = rec / "seat0.stderr.log"
    log.write_text("an earlier run's\n")
    os.chmod(log, 0o644)
    assert canasta(*MATCH, "--record", str(rec)).returncode == 0
    assert log.read_text().startswith("an earlier run's\n")
    assert log.stat().st_mode & 0o777 == 0o600
    new = rec / "seat2.stderr.log"
    assert not new.is_symlink() and new.stat().st_mode & 0o777 == 0o600


# Files at a name known in advance.  Each case plants a link at the name, runs the command
# and says what is expected: "refused" (a one-line error naming the file) or "replaced" (the
# file is written whole: a fresh regular file takes the link's place).

def _report(tmp: Path, page: Path) -> subprocess.CompletedProcess[str]:
    out = tmp / "t"
    assert canasta(*TOURNAMENT, "--out", str(out)).returncode == 0
    return canasta("report", str(out), "--html", str(page))


def _finished_play(tmp: Path, _: Path) -> subprocess.CompletedProcess[str]:
    return canasta("play", "--seat", "human", "--seat", "builtin:normal", "-r", "two-player",
                   "--set", "max_turns=2", "--seed", "5", home=tmp,
                   stdin="draw\ndiscard 4\ndiscard 5\ndiscard 6\ndiscard 7\n")


Run = Callable[[Path, Path], "subprocess.CompletedProcess[str]"]
CASES: dict[str, tuple[Callable[[Path], Path], Run, str]] = {
    "match --record": (lambda t: t / "rec" / "game-0001.jsonl",
                       lambda t, p: canasta(*MATCH, "--record", str(p.parent)), "refused"),
    "match --transcript": (lambda t: t / "tr" / "seat1.jsonl",
                           lambda t, p: canasta(*MATCH, "--transcript", str(p.parent)),
                           "refused"),
    "tournament --out": (lambda t: t / "out" / "results.json",
                         lambda t, p: canasta(*TOURNAMENT, "--out", str(p.parent)),
                         "replaced"),
    "report --html": (lambda t: t / "page.html", _report, "replaced"),
    "play: the statistics": (lambda t: t / "data" / "canasta" / "stats.sqlite3",
                             _finished_play, "noted"),
    "play --four-color: the settings": (
        lambda t: t / "config" / "canasta" / "settings.json",
        lambda t, p: canasta("play", "--four-color", "--seat", "human", "--seat",
                             "builtin:normal", "-r", "two-player", home=t, stdin="quit\n"),
        "replaced"),
    "learn: the progress": (lambda t: t / "data" / "canasta" / "lessons.json",
                            lambda t, p: canasta("learn", "--reset", home=t),
                            "replaced"),
    "ladder --db": (lambda t: t / "ladder.sqlite",
                    lambda t, p: canasta("ladder", "add", "x", "builtin:random", "--db",
                                         str(p)), "refused"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_link_at_a_written_file_is_never_written_through(tmp_path: Path, case: str) -> None:
    where, run, expected = CASES[case]
    path = where(tmp_path)
    victim = tmp_path / "victim"
    victim.write_bytes(b"")  # empty: SQLite too would make a database of it
    os.chmod(victim, 0o644)
    plant(path, "link", victim)
    done = run(tmp_path, path)
    assert victim.read_bytes() == b"" and victim.stat().st_mode & 0o777 == 0o644
    if expected == "refused":
        one_error(done, path.name, "symbolic link")
        assert path.is_symlink()
    elif expected == "replaced":
        assert done.returncode == 0, done.stderr
        assert not path.is_symlink() and path.stat().st_mode & 0o777 == 0o600
    else:  # the game is played and saved; the statistics are not kept, and it is said
        assert done.returncode == 0 and "Replay it with: " in done.stdout, done.stderr
        assert "statistics" in done.stderr and "symbolic link" in done.stderr, done.stderr


@pytest.mark.parametrize("name", [".lock", "games.rejected.jsonl"])
def test_a_fifo_in_out_is_refused_at_once(tmp_path: Path, name: str) -> None:
    """A tournament's lock (held open) and rejected rows (appended to): a FIFO planted at
    either name is one line, never a run that waits on it for ever."""
    out = tmp_path / "out"
    if name == "games.rejected.jsonl":  # a row to reject, in an earlier run's folder
        assert canasta(*TOURNAMENT, "--out", str(out)).returncode == 0
        with (out / "games.jsonl").open("a") as f:
            f.write('{"key":"no such game"}\n')
    plant(out / name, "fifo", tmp_path / "unused")
    one_error(canasta(*TOURNAMENT, "--out", str(out)), name, "FIFO")
