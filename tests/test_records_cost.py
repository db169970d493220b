"""``canasta bench tournament --records-cost`` runs (short) and says what it measured; the
switch it measures really drops the record of a game."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from canasta_cli.core import CLASSIC
from canasta_cli.tournament.runner import Config, play_task
from canasta_cli.tournament.schedule import schedule

ROOT = Path(__file__).resolve().parent.parent
CANASTA = str(Path(sys.executable).parent / "canasta")
CRASH = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'crashy.py'} nth 3"


def test_the_switch_drops_only_the_record() -> None:
    rules = CLASSIC.with_options(max_hands=1)
    bots = {"a": CRASH, "b": "builtin:greedy"}
    task = schedule(list(bots), "round-robin", 1, rules, 3)[0]
    kept = play_task(task, Config(bots, rules.to_dict()))
    dropped = play_task(task, Config(bots, rules.to_dict(), failure_records=False))
    assert kept["status"] == dropped["status"] and "CRASHED" in kept["status"]
    assert kept["record"].startswith('{"type":"header"') and dropped["record"] is None
    assert kept["scores"] == dropped["scores"]


def test_the_bench_prints_interleaved_runs_memory_and_load() -> None:
    done = subprocess.run([CANASTA, "bench", "tournament", "--records-cost", "--games", "1",
                           "--rounds", "2"], capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr
    runs = [x for x in done.stdout.splitlines() if x.startswith("run ")]
    assert [("with the records" in x) for x in runs] == [True, False, True, False]
    assert all("peak memory" in x and "load" in x for x in runs)
    assert "largest record 0.0 KiB" in runs[1] and "largest record 0.0 KiB" not in runs[0]
    assert "with/without: time ratio median" in done.stdout and "over 2 rounds" in done.stdout


def test_the_ladder_bench_times_four_arms_and_says_what_the_ladder_adds() -> None:
    done = subprocess.run([CANASTA, "bench", "ladder", "--bot", "builtin:random", "--games",
                           "2", "--rounds", "2"], capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr
    rounds = [x for x in done.stdout.splitlines() if x.startswith("round ")]
    assert len(rounds) == 2
    for line in rounds:
        for arm in ("ladder ", "ladder's games ", "tournament ", "tournament's games "):
            assert arm in line
        assert "load " in line
    assert "a ladder run of 2 games adds" in done.stdout and "median of 2" in done.stdout
