"""``canasta games``, ``canasta play --resume last`` and ``canasta stats``, through the CLI
with a data folder of the test's own."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHORT = ["--seat", "human", "--seat", "builtin:normal", "-r", "two-player", "--set",
         "max_turns=2"]


def _cli(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_DATA_HOME=str(home / "data"), XDG_STATE_HOME=str(home / "state"))
    return subprocess.run([sys.executable, "-m", "canasta_cli.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)


def _finished_game(home: Path, seed: int, who: str = "human") -> None:
    seats = ["--seat", who, *SHORT[2:]]
    done = _cli(home, "play", "--seed", str(seed), *seats,
                stdin="draw\ndiscard 4\ndiscard 5\ndiscard 6\ndiscard 7\n")
    assert "Replay it with: " in done.stdout, done.stdout[-800:] + done.stderr


def test_statistics_after_three_games(tmp_path: Path) -> None:
    for seed in (5, 6):
        _finished_game(tmp_path, seed)
    _finished_game(tmp_path, 7, "human:Ann")
    db = tmp_path / "data" / "canasta" / "stats.sqlite3"
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT player, preset, level, hands, margin FROM games").fetchall()
    assert len(rows) == 3 and {r[0] for r in rows} == {"you", "Ann"}
    assert all(r[1] == "two-player" and r[2] == "normal" and r[3] == 1 for r in rows)
    shown = _cli(tmp_path, "stats")
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert out.startswith("Games: 3 ")
    assert "Players: Ann " in out and "/1 won, you " in out  # hot-seat names kept apart
    assert "two-player" in out and "normal" in out and "points/hand" in out
    assert "Margins of the last 3 games" in out
    margins = [r[4] for r in rows]
    assert f"{max(margins):+d}" in out.split("Best game: ")[1].split()[0]
    only_ann = json.loads(_cli(tmp_path, "stats", "--player", "Ann", "--json").stdout)
    assert [r["player"] for r in only_ann] == ["Ann"]


def test_games_lists_the_saves_and_resume_last_takes_the_latest_unfinished(
        tmp_path: Path) -> None:
    _finished_game(tmp_path, 5)
    saved = _cli(tmp_path, "play", "--seed", "8", "--level", "normal", stdin="draw\nquit\n")
    assert "Resume with: " in saved.stdout, saved.stdout[-800:]
    listing = _cli(tmp_path, "games")
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout
    assert "classic: you, 3 x builtin:normal; score 0 / 0; not finished" in lines
    assert "two-player: you, builtin:normal; score" in lines and "; finished" in lines
    assert "Resume the game you played last (1) with: " in lines
    assert "play --resume last" in lines and "; played last" in lines
    as_json = json.loads(_cli(tmp_path, "games", "--json").stdout)
    assert [g["finished"] for g in as_json] == [False, True]  # newest first
    resumed = _cli(tmp_path, "play", "--resume", "last", stdin="quit\n")
    assert f"Resuming {as_json[0]['path']}" in " ".join(resumed.stdout.split()), resumed.stdout
    assert "You draw" in resumed.stdout or "Your hand (12)" in resumed.stdout


def test_resume_last_with_nothing_saved_says_so(tmp_path: Path) -> None:
    done = _cli(tmp_path, "play", "--resume", "last")
    assert done.returncode == 2 and "no unfinished game saved" in done.stderr


def _quit_at_once(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = _cli(home, "play", *args, stdin="quit\n")
    assert "Game saved to " in done.stdout, done.stdout[-800:] + done.stderr
    return done


def test_resume_last_is_the_game_played_last_and_a_number_is_the_one_games_prints(
        tmp_path: Path) -> None:
    """'last' is the unfinished game played last (resumed after a newer one was started),
    'N' the N-th game of canasta games; over, the game is replayed with a command to copy."""
    # A second apart at least: games started in the same second are listed by their last
    # change, and the resumed one would move up the list.
    _quit_at_once(tmp_path, "--seed", "8", "--level", "normal")
    older = json.loads(_cli(tmp_path, "games", "--json").stdout)[0]["path"]
    time.sleep(1.1)
    _quit_at_once(tmp_path, "--seed", "9", "--level", "normal")
    time.sleep(1.1)
    _finished_game(tmp_path, 5)
    listed = json.loads(_cli(tmp_path, "games", "--json").stdout)
    assert [g["number"] for g in listed] == [1, 2, 3] and listed[2]["path"] == older
    assert [g["finished"] for g in listed] == [True, False, False]  # newest first
    # The older game, by the number canasta games gives it, played a little and left.
    resumed = _quit_at_once(tmp_path, "--resume", "3")
    assert f"Resuming {older}" in " ".join(resumed.stdout.split()), resumed.stdout
    listing = _cli(tmp_path, "games").stdout
    assert "Resume the game you played last (3) with: " in listing
    assert next(x for x in listing.splitlines() if x.startswith("  3. ")).endswith(
        "; played last")
    last = _quit_at_once(tmp_path, "--resume", "last")
    assert f"Resuming {older}" in " ".join(last.stdout.split()), last.stdout
    over = _cli(tmp_path, "play", "--resume", "1")
    assert over.returncode == 2 and "that game is already over" in over.stderr
    replay = next(x for x in over.stderr.splitlines() if x.startswith("Replay it with: "))
    shown = subprocess.run(replay.removeprefix("Replay it with: "), shell=True,
                           capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert shown.returncode == 0 and "game over" in shown.stdout, shown.stdout + shown.stderr
    missing = _cli(tmp_path, "play", "--resume", "4")
    assert missing.returncode == 2 and "no game number 4" in missing.stderr
    assert "List them with: " in missing.stderr and missing.stderr.rstrip().endswith(" games")


def test_resolve_keeps_the_saves_of_play_and_serve_apart(tmp_path: Path) -> None:
    """``saved_games.resolve`` (play's and serve's --resume): 'last' is the last game of the
    kind asked for; a number naming a game of the other kind says which command takes it."""
    from canasta_cli.table.saves import PLAY, SERVE, NoSuchSave, resolve
    _quit_at_once(tmp_path, "--seed", "8", "--level", "normal")
    games = tmp_path / "data" / "canasta" / "games"
    played = next(games.glob("*.jsonl"))
    lines = played.read_text().splitlines()
    header = json.loads(lines[0])
    header["seats"][1] = "remote:ana"  # a table of canasta serve, started earlier
    table = games / "game-20000101-000000-aaaaaa.jsonl"
    table.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert resolve("last", PLAY, games) == played and resolve("last", SERVE, games) == table
    assert resolve("1", PLAY, games) == played and resolve("2", SERVE, games) == table
    with pytest.raises(NoSuchSave, match="game 2 .* is a game of canasta serve"):
        resolve("2", PLAY, games)
    assert resolve(str(table), PLAY, games) == table  # a file is taken as it is
    listing = _cli(tmp_path, "games").stdout
    assert "(a canasta serve table)" in listing and "played last (1)" in listing
