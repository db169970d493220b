"""Damaged files: results, records and saves survive faults, and every damage is named by its
file line with no traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

CANASTA = shutil.which("canasta", path=os.path.dirname(sys.executable)) or "canasta"
TOURNAMENT = ["tournament", "--bot", "g=builtin:greedy", "--bot", "r=builtin:random",
              "--games", "3", "--concurrency", "1", "--set", "max_hands=1", "--seed", "4"]


def canasta(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    # Tests play against the quick 'normal' level (the default 'hard' thinks ~0.4 s a move).
    if args[:1] == ("play",) and "--resume" not in args and "--seat" not in args:
        args = (*args, "--level", "normal")
    done = subprocess.run([CANASTA, *args], capture_output=True, text=True, timeout=300,
                          input=stdin, check=False)
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    return done


def rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ref")
    assert canasta(*TOURNAMENT, "--out", str(out)).returncode == 0
    return out


def _by_key(path: Path) -> dict[object, dict[str, object]]:
    return {r["key"]: r for r in rows(path)}


def test_a_torn_last_row_is_repaired_and_its_game_played_again(reference: Path,
                                                               tmp_path: Path) -> None:
    lines = (reference / "games.jsonl").read_text().splitlines()
    (tmp_path / "seed.json").write_text((reference / "seed.json").read_text())
    (tmp_path / "games.jsonl").write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:40])
    done = canasta(*TOURNAMENT, "--out", str(tmp_path))
    assert done.returncode == 0
    assert f"games.jsonl:{len(lines)}: a line cut short" in done.stderr
    again = rows(tmp_path / "games.jsonl")
    assert len(again) == len(lines) and len({r["key"] for r in again}) == len(lines)
    assert _by_key(tmp_path / "games.jsonl") == _by_key(reference / "games.jsonl")


def test_malformed_rows_are_named_by_line_and_played_again(reference: Path,
                                                           tmp_path: Path) -> None:
    lines = (reference / "games.jsonl").read_text().splitlines()
    (tmp_path / "seed.json").write_text((reference / "seed.json").read_text())
    damaged = list(lines)
    damaged[1] = "{}"
    damaged[2] = json.dumps({**json.loads(lines[2]), "scores": "many"})
    damaged[3] = "\x00garbage\xff"
    (tmp_path / "games.jsonl").write_text("\n".join(damaged) + "\n", errors="surrogateescape")
    for _ in range(2):  # the second run finds a clean file: nothing to report
        done = canasta(*TOURNAMENT, "--out", str(tmp_path))
        assert done.returncode == 0
        if _ == 0:
            for no in (2, 3, 4):
                assert f"games.jsonl:{no}:" in done.stderr, done.stderr
        else:
            assert "warning" not in done.stderr
    assert _by_key(tmp_path / "games.jsonl") == _by_key(reference / "games.jsonl")
    assert len((tmp_path / "games.rejected.jsonl").read_bytes().splitlines()) == 3


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rec = tmp_path_factory.mktemp("rec")
    done = canasta("match", "--seat", "builtin:greedy", "--seat", "builtin:random", "--seat",
                   "builtin:greedy", "--seat", "builtin:random", "--set", "max_hands=1",
                   "--record", str(rec))
    assert done.returncode == 0
    path = rec / "game-0001.jsonl"
    assert canasta("replay", "--verify", str(path)).returncode == 0
    return path


@pytest.mark.parametrize(("damage", "words"), [
    ("cut", "ends before its result line"),
    ("protocol", "line 1: protocol 'canasta/7'"),
    ("binary", ":5: not text"),
    ("nested", ":5: JSON nested too deeply"),
    ("sealed", "no 'reveal' line"),
])
def test_replay_verify_fails_on_a_damaged_record(record: Path, tmp_path: Path, damage: str,
                                                 words: str) -> None:
    lines = record.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    if damage == "cut":
        reveal = next(i for i, x in enumerate(lines) if '"type":"reveal"' in x)
        # a game cut short whose record is otherwise whole: the seed revealed, no result
        text = "\n".join(lines[:reveal // 2] + [lines[reveal]]) + "\n"
    elif damage == "protocol":
        text = "\n".join([lines[0].replace("canasta/1", "canasta/7"), *lines[1:]]) + "\n"
    elif damage == "binary":
        text = "\n".join(lines[:4]) + "\n\udcff\udcfe\x00\x01\n"
    elif damage == "nested":
        text = "\n".join(lines[:4]) + "\n" + "[" * 100_000 + "\n"
    else:
        text = "\n".join(x for x in lines if '"type":"reveal"' not in x
                         and '"type":"result"' not in x) + "\n"
    bad.write_text(text, errors="surrogateescape")
    done = canasta("replay", "--verify", str(bad))
    assert done.returncode != 0
    assert words in done.stdout + done.stderr, done.stdout + done.stderr


def _save(tmp_path: Path) -> Path:
    """A game saved after a few moves (the person draws, then quits)."""
    done = canasta("play", "--seed", "5", "--save-dir", str(tmp_path), "--set", "max_hands=1",
                   stdin="draw\nquit\n")
    assert done.returncode == 0, done.stdout + done.stderr
    return next(tmp_path.glob("game-*.jsonl"))


def test_resume_skips_a_torn_last_line(tmp_path: Path) -> None:
    save = _save(tmp_path)
    lines = save.read_text().splitlines()
    moves = sum('"type":"move"' in x for x in lines)
    last_move = max(i for i, x in enumerate(lines) if '"type":"move"' in x)
    save.write_text("\n".join(lines[:last_move]) + "\n" + lines[last_move][:25])
    done = canasta("play", "--resume", str(save), stdin="quit\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"({moves - 1} moves so far)" in done.stdout
    assert "Game over" not in done.stdout


def test_resume_leaves_a_save_whose_moves_do_not_replay_untouched(tmp_path: Path) -> None:
    save = _save(tmp_path)
    lines = save.read_text().splitlines()
    first = next(i for i, x in enumerate(lines) if '"type":"move"' in x)
    lines[first] = json.dumps({"type": "move", "seat": 0, "move": "meld K K K K K", "by": "bot"})
    save.write_text("\n".join(lines) + "\n")
    before = save.read_bytes()
    done = canasta("play", "--resume", str(save), stdin="quit\n")
    assert done.returncode == 2 and "the save is left as it is" in done.stderr
    assert f"line {first + 1}" in done.stderr
    assert save.read_bytes() == before
    assert "Game over" not in done.stdout


def test_a_save_never_starts_a_program_by_itself(tmp_path: Path) -> None:
    save = _save(tmp_path)
    lines = save.read_text().splitlines()
    header = json.loads(lines[0])
    marker = Path(tempfile.mkdtemp()) / "started"  # outside the saves, which bots cannot see
    header["seats"][1] = f"{sys.executable} -c \"open('{marker}', 'w')\""
    save.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    done = canasta("play", "--resume", str(save), stdin="quit\n")
    assert done.returncode == 2 and "--trust-seats" in done.stderr
    assert header["seats"][1] in done.stderr
    assert not marker.exists()
    done = canasta("play", "--resume", str(save), "--trust-seats", "--bot-writable",
                   str(marker.parent), stdin="quit\n")
    assert marker.exists()  # trusted, it ran (where its box lets it write; being no bot,
    # the game does not begin)
    assert done.returncode == 2 and "could not start" in done.stderr


def test_play_stops_before_the_deal_when_a_bot_seat_cannot_start(tmp_path: Path) -> None:
    done = canasta("play", "--seat", "human", "--seat", "/nonexistent/bot", "--seat",
                   "builtin:greedy", "--seat", "builtin:greedy", "--save-dir", str(tmp_path),
                   stdin="quit\n")
    assert done.returncode == 2
    lines = [x for x in done.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "seat 1 (/nonexistent/bot) could not start" in lines[0]
    assert "Your hand" not in done.stdout and not list(tmp_path.glob("*.jsonl"))


def test_the_resume_hint_works_as_printed_without_the_venv_on_the_path(tmp_path: Path) -> None:
    env = dict(os.environ, PATH="/usr/bin:/bin")
    done = subprocess.run([CANASTA, "play", "--seed", "3", "--save-dir", str(tmp_path)],
                          input="quit\n", capture_output=True, text=True, env=env, timeout=120,
                          check=False)
    hint = done.stdout.split("Resume with: ", 1)[1].splitlines()[0]
    again = subprocess.run(hint, shell=True, input="quit\n", capture_output=True, text=True,
                           env=env, timeout=120, check=False)
    assert again.returncode == 0 and "Resuming" in again.stdout, again.stdout + again.stderr


def test_records_transcripts_and_results_are_owner_only(tmp_path: Path) -> None:
    rec, trans, out = tmp_path / "rec", tmp_path / "trans", tmp_path / "out"
    assert canasta("match", "--seat", "builtin:random", "--seat", "builtin:random", "--seat",
                   "builtin:random", "--seat", "builtin:random", "--set", "max_hands=1",
                   "--record", str(rec), "--transcript", str(trans)).returncode == 0
    assert canasta(*TOURNAMENT, "--games", "1", "--out", str(out)).returncode == 0
    private = [rec / "game-0001.jsonl", trans / "seat0.jsonl", out / "seed.json"]
    for path in private:
        assert path.stat().st_mode & 0o077 == 0, path
