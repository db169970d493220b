"""``canasta ladder``: ratings from every deal across runs, the same after an interruption
(even a SIGKILL) as after one uninterrupted run, and two runs at once on one file."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from canasta_cli.ladder.rating import ratings

ROOT = Path(__file__).resolve().parent.parent
CANASTA = str(Path(sys.executable).parent / "canasta")
FIRST = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'crashy.py'} nth 1000000"  # first move
RULES = ["--rules", "two-player", "--set", "max_hands=1"]


def ladder(db: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CANASTA, "ladder", *args, "--db", str(db)], capture_output=True,
                          text=True, timeout=600, check=False, cwd=cwd)


def setup(db: Path) -> None:
    for name, command in (("first@1", FIRST), ("greedy", "builtin:greedy"),
                          ("random", "builtin:random")):
        assert ladder(db, "add", name, command).returncode == 0


def deals(db: Path) -> list[tuple[int, str, str, int, float]]:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT k, a, b, seed, score FROM deals WHERE finished IS NOT NULL"
                           " ORDER BY k").fetchall()


def run(db: Path, n: int, *extra: str) -> subprocess.CompletedProcess[str]:
    done = ladder(db, "run", "--games", str(n), *RULES, *extra)
    assert done.returncode == 0, done.stderr
    return done


def table(db: Path) -> list[str]:
    return [line for line in ladder(db, "show").stdout.splitlines() if line[:1].isdigit()]


def test_two_runs_give_the_ratings_of_one(tmp_path: Path) -> None:
    one, two = tmp_path / "one.sqlite", tmp_path / "two.sqlite"
    for db in (one, two):
        setup(db)
    run(one, 6, "--seed", "11")
    run(two, 2, "--seed", "11")
    run(two, 4, "--concurrency", "2")
    assert deals(one) == deals(two) and len(deals(one)) == 6
    assert table(one) == table(two)
    history = ladder(two, "history", "first").stdout.splitlines()
    assert len(history) == 3 and history[1].split()[0] == "1" and history[2].split()[-1] == "4"
    # Each pair got two deals: the pairs that most need deals come first.
    pairs = [(a, b) for _, a, b, _, _ in deals(one)]
    assert all(pairs.count(p) == 2 for p in set(pairs)) and len(set(pairs)) == 3


def test_a_sigkilled_run_loses_nothing(tmp_path: Path) -> None:
    whole, cut = tmp_path / "whole.sqlite", tmp_path / "cut.sqlite"
    for db in (whole, cut):
        setup(db)
    run(whole, 8, "--seed", "5")
    proc = subprocess.Popen([CANASTA, "ladder", "run", "--games", "8", *RULES, "--seed", "5",
                             "--db", str(cut)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            if cut.exists() and len(deals(cut)) >= 2:
                break
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    left = 8 - len(deals(cut))
    if left:
        run(cut, left)
    assert deals(cut) == deals(whole)
    assert table(cut) == table(whole)


def test_two_runs_at_once_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "l.sqlite"
    setup(db)
    run(db, 1, "--seed", "9")
    procs = [subprocess.Popen([CANASTA, "ladder", "run", "--games", "5", *RULES, "--db",
                               str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    got = deals(db)
    assert len(got) == 11 and [d[0] for d in got] == list(range(1, 12))


def test_usage_errors(tmp_path: Path) -> None:
    db = tmp_path / "l.sqlite"
    assert ladder(db, "add", "bad name", "builtin:random").returncode == 2
    assert ladder(db, "run").returncode == 2  # no bots
    setup(db)
    again = ladder(db, "add", "first@1", FIRST)
    assert again.returncode == 2 and "first@2" in again.stderr
    run(db, 1, "--seed", "1")
    other = ladder(db, "run", "--rules", "classic")
    assert other.returncode == 2 and "rules of its first run" in other.stderr


def test_the_rating_model() -> None:
    even = ratings(["a", "b"], [("a", "b", 0.5)] * 10)
    assert [round(r.elo) for r in even] == [0, 0]
    strong = ratings(["a", "b", "c"], [("a", "b", 1.0)] * 5 + [("b", "c", 1.0)] * 5)
    assert [r.name for r in strong] == ["a", "b", "c"]
    assert strong[0].elo > 0 > strong[2].elo and all(r.error > 0 for r in strong)
    # The order of the deals does not matter.
    assert ratings(["a", "b"], [("a", "b", 1.0), ("a", "b", 0.0), ("a", "b", 1.0)]) == \
        ratings(["a", "b"], [("a", "b", 1.0), ("a", "b", 1.0), ("a", "b", 0.0)])


@pytest.mark.parametrize("score", [1.0, 0.0])
def test_a_clean_sweep_has_a_finite_rating(score: float) -> None:
    r = ratings(["a", "b"], [("a", "b", score)] * 20)
    assert all(abs(x.elo) < 2000 for x in r)


SOMETIMES = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'crashy.py'} nth 50"  # long games


def test_failed_games_are_kept_bounded_with_record_stderr_and_replay(tmp_path: Path) -> None:
    """A bot that crashes in the games that reach its 50th decision (not in the short ones):
    the ladder keeps the latest failures of each bot, each with its reason, stderr tail,
    record (bot ask reproduces the crash from it) and a replay command that reproduces it."""
    db = tmp_path / "l.sqlite"
    assert ladder(db, "add", "crashy@1", SOMETIMES).returncode == 0
    assert ladder(db, "add", "greedy", "builtin:greedy").returncode == 0
    done = ladder(db, "run", "--games", "4", *RULES, "--seed", "4", "--keep-failures", "3",
                  cwd=tmp_path)  # the replay commands play there
    assert done.returncode == 3, done.stderr  # as match and tournament: a seat failed
    with sqlite3.connect(db) as con:
        failed = sum(n for (n,) in con.execute("SELECT failed FROM deals"))
        kept = con.execute("SELECT bot, status FROM failures").fetchall()
    assert 3 < failed < 8, failed  # sometimes, and more than are kept
    assert kept == [("crashy@1", "CRASHED")] * 3  # bounded: the latest 3 of the bot
    assert f"a seat got a status in {failed} games" in done.stderr
    assert "3 failed games kept" in ladder(db, "show").stdout
    out = tmp_path / "kept"
    listed = ladder(db, "failures", "crashy", "--last", "1", "--out", str(out))
    assert listed.returncode == 0, listed.stderr
    text = listed.stdout
    assert text.count(" CRASHED: ") == 1 and "| crashy: giving up on decision 50" in text
    replay = next(x for x in text.splitlines() if x.startswith("  replay: "))[10:]
    again = subprocess.run(replay.replace("canasta match", f"{CANASTA} match", 1), shell=True,
                           capture_output=True, text=True, timeout=600, check=False,
                           cwd=tmp_path)
    assert again.returncode == 3 and "CRASHED" in again.stdout + again.stderr
    # The replayed game is the kept one, line for line (its seats named as on the ladder).
    record = next(out.glob("ladder-failure-*.jsonl"))
    folder = Path(replay.split(" && ", 1)[0][3:]) / replay.rsplit(" ", 1)[1]
    assert folder.parent == tmp_path
    replayed = next(folder.glob("game-*.jsonl"))
    assert record.read_text().splitlines()[:-1] == replayed.read_text().splitlines()[:-1]
    ask = next(x for x in text.splitlines() if "canasta bot ask" in x).split("again: ", 1)[1]
    asked = subprocess.run(ask.replace("canasta bot ask", f"{CANASTA} bot ask", 1), shell=True,
                           capture_output=True, text=True, timeout=600, check=False)
    assert asked.returncode == 3 and "giving up on decision 50" in asked.stdout
    assert ladder(db, "failures", "greedy").stdout.startswith("no failed games kept")
