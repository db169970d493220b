"""Every input bounded, every file written safely: input files are read only if they are
small regular files (a FIFO or a device is refused at once), flags are range-checked, files
are never written through a link, names cannot drive the terminal or a spreadsheet, and a
killed run's leftovers are swept.  Each case runs the real ``canasta`` command and checks
its exit status and its one-line message."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pexpect
import pytest
from typer.testing import CliRunner

from canasta_cli.__main__ import app
from canasta_cli.cli import bounds as limits
from canasta_cli.seats.leftovers import run_dir, sweep_stale
from canasta_cli.util.processes import pid_alive
from canasta_cli.util.safetext import csv_text, visible

CANASTA = shutil.which("canasta", path=os.path.dirname(sys.executable)) or "canasta"
HANG_GUARD = 120  # seconds
FOUR = ["--seat", "builtin:random"] * 4
QUICK = ["--set", "max_hands=1", "--seed", "3"]
TOURNAMENT = ["tournament", "--bot", "a=builtin:random", "--bot", "b=builtin:greedy",
              "--games", "1", "--set", "max_hands=1", "--seed", "2"]


def canasta(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([CANASTA, *args], capture_output=True, text=True, timeout=HANG_GUARD,
                          check=False, cwd=cwd, stdin=subprocess.DEVNULL)
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    return done


def canasta_here(*args: str) -> subprocess.CompletedProcess[str]:
    """The same command run in this process by Typer's test runner.  For a flag refused
    before anything starts, the process adds nothing to what is checked (the same status and
    the same text on each stream: ``test_a_refused_flag_is_refused_the_same_in_a_process``)
    and costs a Python start each."""
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)  # what the command would have shown as a traceback
    return subprocess.CompletedProcess([CANASTA, *args], result.exit_code, result.stdout,
                                       result.stderr)


def one_error(done: subprocess.CompletedProcess[str], *words: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rec = tmp_path_factory.mktemp("rec")
    assert canasta("match", *FOUR, *QUICK, "--record", str(rec)).returncode == 0
    return rec / "game-0001.jsonl"


# Input files ---------------------------------------------------------------------------------

INPUTS: dict[str, Callable[[Path], tuple[str, ...]]] = {
    "--deck": lambda p: ("demo", "--deck", str(p), "--seed", "1"),
    "position --deck": lambda p: ("position", "--deck", str(p)),
    "replay": lambda p: ("replay", str(p)),
    "replay --verify": lambda p: ("replay", "--verify", str(p)),
    "--resume": lambda p: ("play", "--resume", str(p), "--trust-seats"),
}


@pytest.mark.parametrize("use", sorted(INPUTS))
def test_a_fifo_is_refused_at_once(tmp_path: Path, use: str) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    start = time.monotonic()
    one_error(canasta(*INPUTS[use](fifo)), "pipe", "FIFO", "regular file")
    assert time.monotonic() - start < HANG_GUARD  # it used to wait forever for a writer


@pytest.mark.parametrize("use", sorted(INPUTS))
def test_a_device_is_refused(use: str) -> None:
    one_error(canasta(*INPUTS[use](Path("/dev/zero"))), "/dev/zero", "a device")


@pytest.mark.parametrize("use", sorted(INPUTS))
def test_a_huge_sparse_file_is_refused_by_its_size(tmp_path: Path, use: str) -> None:
    big = tmp_path / "big"
    with open(big, "wb") as f:
        f.truncate(1 << 30)  # 1 GiB that takes no disk: read whole, it took the memory
    one_error(canasta(*INPUTS[use](big)), "big: 1.0 GiB, more than", "at most")


@pytest.mark.parametrize(("old", "new"), [('"type":"reveal","seed":', '"type":"reveal","seed":1e400,"x":'),
                                          ('"type":"reveal","seed":', '"type":"reveal","seed":NaN,"x":')])
def test_a_record_number_out_of_range_is_one_line(tmp_path: Path, record: Path, old: str,
                                                  new: str) -> None:
    bad = tmp_path / "bad.jsonl"
    text = record.read_text()
    assert old in text
    bad.write_text(text.replace(old, new))
    one_error(canasta("replay", "--verify", str(bad)), "bad.jsonl:", "not JSON")


def test_a_directory_is_refused(tmp_path: Path) -> None:
    one_error(canasta("replay", str(tmp_path)), "a directory, not a regular file")


# Files written -------------------------------------------------------------------------------

def test_a_symlinked_record_target_is_not_overwritten(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    rec.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (rec / "game-0001.jsonl").symlink_to(victim)
    one_error(canasta("match", *FOUR, *QUICK, "--record", str(rec)), "game-0001.jsonl",
              "symbolic link")
    assert victim.read_text() == "precious\n"


def test_a_symlinked_transcript_target_is_not_overwritten(tmp_path: Path) -> None:
    trans = tmp_path / "trans"
    trans.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (trans / "seat2.jsonl").symlink_to(victim)
    one_error(canasta("match", *FOUR, *QUICK, "--transcript", str(trans)), "seat2.jsonl",
              "symbolic link")
    assert victim.read_text() == "precious\n"


def test_an_existing_record_is_replaced_by_a_new_owner_only_file(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    rec.mkdir()
    old = rec / "game-0001.jsonl"
    old.write_text("old\n")
    os.chmod(old, 0o644)
    linked = tmp_path / "other-name"
    os.link(old, linked)  # a hard link planted at the record's name: its file is kept
    done = canasta("match", *FOUR, *QUICK, "--record", str(rec))
    assert done.returncode == 0, done.stderr
    assert old.stat().st_mode & 0o777 == 0o600
    assert old.stat().st_ino != linked.stat().st_ino and linked.read_text() == "old\n"
    assert canasta("replay", "--verify", str(old)).returncode == 0


def test_a_save_behind_a_symlink_is_not_written_through(tmp_path: Path, record: Path) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    saves = tmp_path / "saves"
    done = subprocess.run([CANASTA, "play", "--seat", "human", "--seat", "builtin:random",
                           "--rules", "two-player", "--seed", "5", "--save-dir", str(saves),
                           "--no-color"], input="draw\nquit\n", capture_output=True, text=True,
                          timeout=HANG_GUARD, env=env, check=False)
    assert done.returncode == 0, done.stderr
    save = next(saves.glob("game-*.jsonl"))
    real = tmp_path / "real.jsonl"
    shutil.move(save, real)
    save.symlink_to(real)
    before = real.read_bytes()
    again = subprocess.run([CANASTA, "play", "--resume", str(save), "--no-color"],
                           input="quit\n", capture_output=True, text=True, timeout=HANG_GUARD,
                           env=env, check=False)
    assert "Traceback" not in again.stderr
    one_error(again, save.name, "symbolic link")
    assert real.read_bytes() == before


# Flags ---------------------------------------------------------------------------------------

BOUNDS = [
    (("tournament", "--bot", "a=builtin:random", "--bot", "b=builtin:random", "--concurrency",
      "100000"), "--concurrency must be from 1 to"),
    (("tournament", "--bot", "a=builtin:random", "--bot", "b=builtin:random", "--games",
      "99999999999999999999"), "--games must be from 1 to 1,000,000"),
    (("tournament", "--bot", "a=builtin:random", "--bot", "b=builtin:random", "--bot",
      "c=builtin:random", "--games", "200000"), "a tournament plays at most 1,000,000"),
    (("tournament", "--bot", "a=builtin:random", "--bot", "b=builtin:random", "--decision-ms",
      "3000000000"), "--decision-ms must be from 1 to 86,400,000"),
    (("tournament", "--bot", "a=builtin:random", "--bot", "b=builtin:random", "--bank-ms",
      "3000000000"), "--bank-ms must be from 0 to"),
    (("tournament", "--bot", "a=builtin:random", "--bot", "b=builtin:random", "--sprt",
      "--elo1", "nan"), "--elo1 must be a finite number"),
    (("tournament", "--bot", "a=builtin:random", "--bot", "b=builtin:random", "--sprt",
      "--elo1", "inf"), "--elo1 must be a finite number"),
    (("tournament", "--bot", "a=python3 'unclosed", "--bot", "b=builtin:random"),
     "cannot be split into words"),
    (("match", *FOUR, "--games", "99999999999999999999"), "--games must be from 1 to"),
    (("match", *FOUR, "--decision-ms", "3000000000"), "--decision-ms must be from 1 to"),
    (("match", *FOUR, "--startup-ms", "3000000000"), "--startup-ms must be from 1 to"),
    (("match", *FOUR, "--bank-ms", "3000000000"), "--bank-ms must be from 0 to"),
    (("match", *FOUR, "--spin-us", "99999999999"), "--spin-us must be from 0 to"),
    (("match", "--seat", "", *FOUR[2:]), "is empty"),
    (("bot", "check", ""), "the bot's command line is empty"),
    (("bot", "check", "   "), "the bot's command line is empty"),
    (("bot", "check", "'"), "cannot be split into words"),
    (("bot", "check", "x", "--timeout-ms", "-5"), "--timeout-ms must be from 1 to"),
    (("bot", "check", "x", "--timeout-ms", "0"), "--timeout-ms must be from 1 to"),
    (("demo", "--delay", "inf"), "--delay must be from 0 to 3600"),
]


@pytest.mark.parametrize(("args", "words"), BOUNDS, ids=[" ".join(a[0][:1] + a[0][-2:])
                                                         for a in BOUNDS])
def test_each_flag_is_bounded(tmp_path: Path, args: tuple[str, ...], words: str) -> None:
    extra = ("--out", str(tmp_path / "out")) if args[0] == "tournament" else ()
    start = time.monotonic()
    one_error(canasta_here(*args, *extra), words)
    assert time.monotonic() - start < HANG_GUARD
    assert not (tmp_path / "out").exists()  # refused before anything is made


@pytest.mark.parametrize("case", [0, 8, 14], ids=["tournament", "match", "bot check"])
def test_a_refused_flag_is_refused_the_same_in_a_process(tmp_path: Path, case: int) -> None:
    args, words = BOUNDS[case]
    extra = ("--out", str(tmp_path / "out")) if args[0] == "tournament" else ()
    real = canasta(*args, *extra)
    here = canasta_here(*args, *extra)
    one_error(real, words)
    assert (here.returncode, here.stdout, here.stderr) == \
        (real.returncode, real.stdout, real.stderr)


def test_concurrency_cap_is_what_the_machine_runs() -> None:
    assert limits.max_concurrency() == limits.CONCURRENCY_PER_CORE * limits.usable_cores()
    limits.check_concurrency(limits.max_concurrency())
    with pytest.raises(limits.LimitError):
        limits.check_concurrency(limits.max_concurrency() + 1)


@pytest.mark.parametrize("flag", ["--record", "--transcript"])
def test_a_directory_flag_naming_a_file_is_one_line(tmp_path: Path, flag: str) -> None:
    target = tmp_path / "file"
    target.write_text("mine\n")
    one_error(canasta("match", *FOUR, *QUICK, flag, str(target)), flag, "names a file")
    assert target.read_text() == "mine\n"


def test_save_dir_naming_a_file_is_one_line(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("mine\n")
    one_error(canasta("play", "--save-dir", str(target)), "--save-dir", "names a file")


# Names on the console and in spreadsheets ------------------------------------------------------

EVIL = {
    "+HYPERLINK(\"http://evil.example\";\"x\")": "builtin:random",
    "@SUM(1+1)*cmd|' /C calc'!A0": "builtin:greedy",
    "-2+3": "builtin:random",
    "\x1b]0;pwned\x07\x1b[2Jwiped\u202e": "builtin:greedy",
}


def on_terminal(*args: str) -> tuple[int, str]:
    """Run ``canasta`` with a pseudo-terminal as its stdout and stderr, as a person would:
    escape codes are only stripped (by click) when the output is not a terminal."""
    child = pexpect.spawn(CANASTA, list(args), encoding="utf-8", timeout=HANG_GUARD,
                          env={**os.environ, "TERM": "xterm"}, dimensions=(50, 200))
    child.expect(pexpect.EOF)
    child.close()
    text = child.before or ""
    assert "Traceback" not in text, text
    return int(child.exitstatus if child.exitstatus is not None else -1), text


@pytest.fixture(scope="module")
def evil_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("evil")
    args = ["tournament", "--games", "1", "--set", "max_hands=1", "--seed", "1", "--out",
            str(out)]
    for name, command in EVIL.items():
        args += ["--bot", f"{name}={command}"]
    status, console = on_terminal(*args)
    assert status == 0, console
    return out, console


def test_csv_cells_are_never_formulas(evil_run: tuple[Path, str]) -> None:
    out, _ = evil_run
    for name in ("standings.csv", "crosstable.csv"):
        with open(out / name, newline="", encoding="utf-8") as f:
            cells = [c for row in csv.reader(f) for c in row]
        texts = [c for c in cells if c and not _number(c)]
        assert texts, name
        for cell in texts:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (name, cell)
        assert "'+HYPERLINK(\"http://evil.example\";\"x\")" in cells
        assert "'@SUM(1+1)*cmd|' /C calc'!A0" in cells and "'-2+3" in cells


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return "/" in cell  # a cross-table cell: points/games
    return True


def test_ci95_is_never_inf(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert canasta(*TOURNAMENT, "--out", str(out)).returncode == 0
    with open(out / "standings.csv", newline="", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert table and all(r["ci95"] == "" for r in table)  # one deal each: no interval yet
    assert "inf" not in (out / "standings.csv").read_text().lower()
    assert "nan" not in (out / "standings.csv").read_text().lower()


def test_escape_codes_in_names_are_shown_not_run(evil_run: tuple[Path, str]) -> None:
    out, console = evil_run
    assert "\x1b" not in console and "\x07" not in console and "\u202e" not in console
    assert "\\x1b]0;pwned\\x07" in console
    # The files keep the name itself (JSON escapes it).
    names = json.loads((out / "results.json").read_text())["bots"]
    assert "\x1b]0;pwned\x07\x1b[2Jwiped\u202e" in names


def test_match_shows_seat_names_escaped(tmp_path: Path) -> None:
    status, console = on_terminal("match", "--seat", "builtin:random", "--seat",
                                  "Ev\x1b]0;title\x07il=builtin:random", "--seat",
                                  "builtin:random", "--seat", "builtin:random", *QUICK)
    # Not a NAME=: a command that cannot start, so a seat failed (exit code 3).
    assert status == 3 and "\x1b" not in console and "\x07" not in console, console
    assert "Ev\\x1b]0;title\\x07il=builtin:random, builtin:random" in console


def test_visible_and_csv_text() -> None:
    assert visible("plain name") == "plain name"
    assert visible("a\x1bb\u202ec\nd\\") == "a\\x1bb\\u202ec\\x0ad\\\\"
    assert csv_text("=1+1") == "'=1+1" and csv_text("\rX") == "'\rX"
    assert csv_text("bob") == "bob"


# Leftovers of a killed run -----------------------------------------------------------------

KILLED_RUN = """
import os, sys, time
from canasta_cli.seats.leftovers import run_dir
d = run_dir(sys.argv[1])
os.makedirs(d / "home" / "deep")
(d / "home" / "notes").write_text("bot state")
os.chmod(d / "home", 0o500)
print(d, flush=True)
time.sleep(600)
"""


def test_a_killed_runs_directory_is_swept_only_when_its_process_is_gone(
        tmp_path: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(tmp_path)],
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    stale = Path(child.stdout.readline().strip())
    assert stale.is_dir()
    assert sweep_stale(tmp_path) == []  # its process is alive: left alone
    assert stale.is_dir()
    child.kill()  # as a SIGKILLed referee: nothing of it could clean up
    child.wait()
    assert not pid_alive(child.pid)
    mine = run_dir(tmp_path)  # this process's own: alive
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("x")
    link = tmp_path / f"canasta-run-{child.pid}-link"
    link.symlink_to(outside)
    other = tmp_path / "unrelated-999999-dir"
    other.mkdir()
    assert sweep_stale(tmp_path) == [stale]
    assert not stale.exists() and mine.is_dir() and other.is_dir()
    assert link.is_symlink() and (outside / "keep").exists()


def test_sweep_leaves_another_users_directory(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a directory to another user needs root")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    theirs = tmp_path / f"canasta-run-{dead.pid}-theirs"
    theirs.mkdir()
    os.chown(theirs, 65534, 65534)
    assert sweep_stale(tmp_path) == [] and theirs.is_dir()
