"""``canasta learn``: every lesson's situation, its right answer, a wrong one explained,
refusals by the rules core, and the progress kept between runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from canasta_cli.core import format_move, legal_moves
from canasta_cli.lessons import LESSONS

ROOT = Path(__file__).resolve().parent.parent
RIGHT = {"draw": "draw\ndiscard J\n", "meld": "meld K K K; meld A A A\n",
         "wild": "meld 7 7 2\n", "pile": "pile K K\n", "frozen": "pile Q Q\n",
         "canasta": "add K\n", "out": "ask\nmeld 9 9 9; add K; discard 6\n", "score": "710\n"}


def _learn(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_DATA_HOME=str(home))
    return subprocess.run([sys.executable, "-m", "canasta_cli.cli", "learn", *args],
                          input=stdin, capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env=env)


def test_every_lesson_starts_on_the_learners_turn() -> None:
    assert [les.key for les in LESSONS] == list(RIGHT)
    for les in LESSONS:
        state = les.start()
        if les.key == "score":
            assert state.results and state.results[-1].went_out == 0
            continue
        assert state.actor == 0 and legal_moves(state), les.key


@pytest.mark.parametrize("key", list(RIGHT))
def test_the_right_answer_passes_the_lesson(tmp_path: Path, key: str) -> None:
    done = _learn(tmp_path, key, stdin=RIGHT[key])
    assert done.returncode == 0, done.stderr
    assert "Right: " in done.stdout and "Not quite" not in done.stdout, done.stdout[-1500:]
    assert f"Lesson {list(RIGHT).index(key) + 1} passed." in done.stdout


def test_a_lesson_passed_and_one_failed_are_remembered(tmp_path: Path) -> None:
    passed = _learn(tmp_path, "2", stdin="meld K K K; meld A A A\n")
    assert "Lesson 2 passed." in passed.stdout and "Next: canasta learn 3" in passed.stdout
    failed = _learn(tmp_path, "1", stdin="draw\ndiscard 9\ndiscard K\n")
    out = failed.stdout
    assert out.count("Not quite: you hold 2 of those: a pair is half a meld") == 2
    assert "Lesson 1 is not passed yet: try it again with canasta learn 1." in out
    listing = _learn(tmp_path).stdout
    assert "1. Drawing and discarding" in listing and "not passed yet" in listing
    assert "2. Melds and the minimum" in listing and " passed" in listing
    assert "Next: canasta learn 1" in listing
    progress = json.loads((tmp_path / "canasta" / "lessons.json").read_text())
    assert progress == {"passed": ["meld"], "failed": ["draw"]}
    again = _learn(tmp_path, "next", stdin=RIGHT["draw"])  # repeated, and passed this time
    assert "Lesson 1 passed." in again.stdout
    assert json.loads((tmp_path / "canasta" / "lessons.json").read_text())["failed"] == []


def test_an_opening_short_of_the_minimum_is_explained_with_its_total(tmp_path: Path) -> None:
    done = _learn(tmp_path, "meld", stdin="meld K K K\nmeld K K K; meld A A A\n")
    assert "Not quite: meld K K K makes only 30 of 50" in done.stdout
    assert "Lesson 2 passed." in done.stdout


def test_an_illegal_move_is_refused_by_the_rules_core(tmp_path: Path) -> None:
    done = _learn(tmp_path, "wild", stdin="meld 7 2 2\nmeld 7 7 2\n")
    assert "refused: " in done.stdout and "Lesson 3 passed." in done.stdout
    assert done.stdout.count("Not quite") == 0  # a refused move is no answer


def test_the_frozen_pile_is_taken_only_with_a_natural_pair() -> None:
    state = LESSONS[4].start()
    assert state.pile_frozen and "pile Q Q" in [format_move(m) for m in legal_moves(state)]


def test_an_unknown_lesson_is_a_clear_error(tmp_path: Path) -> None:
    done = _learn(tmp_path, "99")
    assert done.returncode == 2 and "no lesson '99'" in done.stderr
