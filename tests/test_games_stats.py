"""``canasta games``, ``canasta play --resume last`` and ``canasta stats``, through the CLI
with a data folder of the test's own."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

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
    assert "Resume the latest with: " in lines and "play --resume last" in lines
    as_json = json.loads(_cli(tmp_path, "games", "--json").stdout)
    assert [g["finished"] for g in as_json] == [False, True]  # newest first
    resumed = _cli(tmp_path, "play", "--resume", "last", stdin="quit\n")
    assert f"Resuming {as_json[0]['path']}" in " ".join(resumed.stdout.split()), resumed.stdout
    assert "You draw" in resumed.stdout or "Your hand (12)" in resumed.stdout


def test_resume_last_with_nothing_saved_says_so(tmp_path: Path) -> None:
    done = _cli(tmp_path, "play", "--resume", "last")
    assert done.returncode == 2 and "no unfinished game saved" in done.stderr
