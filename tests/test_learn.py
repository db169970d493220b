"""``canasta learn``: every lesson's situation, its right answer, a wrong one explained,
refusals by the rules core, and the progress kept between runs."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from canasta_cli.core import PRESETS, format_move, legal_moves
from canasta_cli.table.coach import PRAISE
from canasta_cli.table.lessons import LESSONS
from canasta_cli.ui.render import PAIRS_LABELS, SIX_LABELS, seat_labels

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = f"{shlex.quote(sys.executable)} -m canasta_cli.cli"  # as the lessons name it here
RIGHT = {"draw": "draw\ndiscard J\n", "meld": "meld K K K; meld A A A\n",
         "wild": "meld 7 7 2\n", "redthree": "draw\nmeld K K K; meld A A A\n",
         "pile": "pile K K\n", "frozen": "pile Q Q\n", "blackthree": "discard 3\n",
         "keep": "meld 9 9 9; discard 5\n", "canasta": "add K\n",
         "out": "ask\nmeld 9 9 9; add K; discard 6\n",
         "concealed": "meld Q Q Q Q Q Q Q; meld 10 10 10 10; discard 5\n", "score": "710\n",
         "minimum": "meld A A A; meld K K K\n",
         "game": "meld Q Q Q Q; meld J J J J; meld 9 9 9; discard 5\n5635\n"}


def _learn(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_DATA_HOME=str(home))
    return subprocess.run([sys.executable, "-m", "canasta_cli.cli", "learn", *args],
                          input=stdin, capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env=env)


def test_every_lesson_starts_on_the_learners_turn() -> None:
    assert [les.key for les in LESSONS] == list(RIGHT)
    for les in LESSONS:
        state = les.start()
        assert not state.is_over and state.rules == PRESETS["classic"], les.key
        if les.key == "score":
            assert state.results and state.results[-1].went_out == 0
            continue
        assert state.actor == 0 and legal_moves(state), les.key


@pytest.mark.parametrize("key", list(RIGHT))
def test_the_right_answer_passes_the_lesson(tmp_path: Path, key: str) -> None:
    done = _learn(tmp_path, key, stdin=RIGHT[key])
    assert done.returncode == 0, done.stderr
    assert PRAISE in done.stdout and "Not quite" not in done.stdout, done.stdout[-1500:]
    number = list(RIGHT).index(key) + 1
    assert f"Lesson {number} passed." in done.stdout
    if number < len(RIGHT):
        assert done.stdout.endswith(f"Next: {PROGRAM} learn {number + 1}\n"), done.stdout[-300:]
    else:  # the last lesson: how to start a game, the command named as it can be typed here
        assert done.stdout.endswith("That was the last lesson: you know the whole game.\n"
                                    f"Start a game with: {PROGRAM} play\n"), done.stdout[-300:]


def test_a_lesson_passed_and_one_failed_are_remembered(tmp_path: Path) -> None:
    passed = _learn(tmp_path, "2", stdin="meld K K K; meld A A A\n")
    assert "Lesson 2 passed." in passed.stdout and f"Next: {PROGRAM} learn 3" in passed.stdout
    failed = _learn(tmp_path, "1", stdin="draw\ndiscard 9\ndiscard K\n")
    out = failed.stdout
    assert out.count("Not quite: you hold 2 of those: a pair is half a meld") == 2
    assert f"Lesson 1 is not passed yet: try it again with {PROGRAM} learn 1" in out
    listing = _learn(tmp_path).stdout
    assert "1. Drawing and discarding" in listing and "not passed yet" in listing
    assert "2. Melds and the minimum" in listing and " passed" in listing
    assert f"Next: {PROGRAM} learn 1" in listing
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
    state = next(les for les in LESSONS if les.key == "frozen").start()
    assert state.pile_frozen and "pile Q Q" in [format_move(m) for m in legal_moves(state)]


def test_an_unknown_lesson_is_a_clear_error(tmp_path: Path) -> None:
    done = _learn(tmp_path, "99")
    assert done.returncode == 2 and "no lesson '99'" in done.stderr


def test_the_lessons_teach_the_whole_game() -> None:
    """Every part of the game a newcomer needs has its lesson, said in its intro."""
    intros = {les.key: " ".join(step.intro for step in les.steps) for les in LESSONS}
    lower = {key: text.lower() for key, text in intros.items()}
    for key, words in {"redthree": ["red three", "800", "against"],
                       "blackthree": ["black three", "stop", "going out"],
                       "keep": ["keep at least two cards", "discard", "canasta"],
                       "minimum": ["15", "50", "90", "120", "1,500", "3,000"],
                       "concealed": ["concealed", "100 more", "200 instead of 100",
                                     "no minimum"],
                       "game": ["5,000", "higher total"]}.items():
        for word in words:
            assert word.lower() in lower[key], (key, word)
    asking = [key for key, text in intros.items() if "may I go out" in text]
    assert asking == ["out"]  # the question, where it applies: with a partner only
    assert "partner (four or six players)" in intros["out"]
    assert "With two or three players there is no such question" in intros["out"]


def test_the_praise_reads_as_no_player_name() -> None:
    """A right answer is greeted with words that no seat is called, so that it cannot read
    as somebody speaking ('Right: ...' did, Right being the player on your right)."""
    names = {"You", "Left", "Right", "Partner", "Opponent", "Across", *PAIRS_LABELS,
             *SIX_LABELS}
    for players, partners, sides in ((2, False, 2), (3, False, 3), (4, True, 2), (6, True, 2),
                                     (6, True, 3)):
        names.update(seat_labels(0, ["builtin:random"] * players, partners, sides))
    said = PRAISE.strip().rstrip(":")
    assert said and not any(re.match(rf"{re.escape(n)}\b", said, re.I) for n in names), said
    assert not set(said.lower().split()) & {w.lower() for n in names for w in n.split()}


def test_wrong_answers_in_the_new_lessons_are_explained(tmp_path: Path) -> None:
    stop = _learn(tmp_path, "blackthree", stdin="discard 8\ndiscard 3\n").stdout
    assert "Not quite: Left's side has melded 8s: Left lays your 8 on them" in stop
    kept = _learn(tmp_path, "keep", stdin="meld 9 9 9 9\nmeld 9 9 9; discard 5\n").stdout
    assert "refused: 'meld 9 9 9 9' is not allowed: you must keep at least two cards" in kept
    assert "Not quite" not in kept and "Lesson 8 passed." in kept
    added = _learn(tmp_path, "concealed", stdin="meld Q Q Q; add Q; add Q; add Q; add Q;"
                   " meld 10 10 10 10; discard 5\nmeld Q Q Q Q Q Q Q; meld 10 10 10 10;"
                   " discard 5\n").stdout
    assert "Not quite: you went out concealed (200), but you built the queens by additions" \
        in added and "Lesson 11 passed." in added
    short = _learn(tmp_path, "minimum", stdin="meld K K K; meld 9 9 9\nmeld A A A; meld K K K\n")
    assert "Not quite: meld K K K; meld 9 9 9 makes only 60 of 90" in short.stdout
    total = _learn(tmp_path, "game", stdin=RIGHT["game"].replace("5635", "935\n5635")).stdout
    assert "Not quite: your side has 5635: the 4700 it had and this hand's 935" in total
    assert "your side has reached 5,000, so the game is over" in total


def test_asking_where_the_lesson_does_not_teach_it_is_answered_yes(tmp_path: Path) -> None:
    done = _learn(tmp_path, "concealed", stdin="ask\n" + RIGHT["concealed"]).stdout
    assert "Your partner answers yes: you must go out this turn." in done
    assert "Not quite" not in done and "Lesson 11 passed." in done


def test_with_every_lesson_passed_the_list_says_how_to_start_a_game(tmp_path: Path) -> None:
    (tmp_path / "canasta").mkdir()
    (tmp_path / "canasta" / "lessons.json").write_text(
        json.dumps({"passed": list(RIGHT), "failed": []}))
    listing = _learn(tmp_path).stdout
    assert listing.endswith("Every lesson is passed. Well played!\n"
                            f"Start a game with: {PROGRAM} play\n"), listing
