"""A cheating bot (tests/bots/thief.py) against match, tournament and play: it must learn
nothing about the cards its seat cannot see, by any route a same-user bot has.  Positive
controls show that it does learn them where an organiser opts out of a protection (a known
seed, reused bot processes), so a silent thief would not pass for a safe referee."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
THIEF = ROOT / "tests" / "bots" / "thief.py"
CANASTA = shutil.which("canasta", path=os.path.dirname(sys.executable)) or "canasta"


def thief(report: Path, *paths: Path) -> str:
    xdg = [os.environ["XDG_DATA_HOME"], os.environ["XDG_STATE_HOME"]]
    return " ".join([sys.executable, str(THIEF), str(report), *map(str, paths), *xdg])


def notes(tmp_path: Path) -> Path:
    """The thief's report, in the one directory the box lets it write to (--bot-writable);
    nothing the referee writes is there."""
    folder = tmp_path / "notes"
    folder.mkdir()
    return folder / "report.jsonl"


def canasta(*args: str, stdin: str | None = None,
            report: Path | None = None) -> subprocess.CompletedProcess[str]:
    extra = ["--bot-writable", str(report.parent)] if report is not None else []
    done = subprocess.run([CANASTA, *args, *extra], capture_output=True, text=True,
                          timeout=300, input=stdin, check=False)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def reports(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def learned(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Games each route won, and the bot's hits against its tries over all games."""
    out = {route: sum(r["won"][route] for r in rows) for route in rows[0]["won"]}
    out["hits"] = sum(r["hits"] for r in rows)
    out["tries"] = sum(r["tries"] for r in rows)
    return out


def assert_chance(score: dict[str, int], memory: bool = True) -> None:
    """No route won, and draws were predicted no better than chance.  ``memory=False``
    where bot processes rightly play several different deals (a match): the memory route
    recognises a deal by its upcard, which two different deals can share."""
    assert score["proc"] == score["files"] == score["seeds"] == 0, score
    if memory:
        assert score["memory"] == 0, score
    assert score["tries"] >= 10 and score["hits"] / score["tries"] < 0.2, score


def test_thief_learns_nothing_in_a_match(tmp_path: Path) -> None:
    report, rec, trans = notes(tmp_path), tmp_path / "rec", tmp_path / "trans"
    bot = thief(report, rec, trans)
    done = canasta("match", "--seat", bot, "--seat", "builtin:random", "--seat", bot,
                   "--seat", "builtin:random", "--games", "3", "--set", "max_hands=1",
                   "--record", str(rec), "--transcript", str(trans), report=report)
    assert done.returncode == 0, done.stderr
    rows = reports(report)
    assert len(rows) == 6 and all(r["engine"] for r in rows)
    assert_chance(learned(rows), memory=False)


def test_positive_control_a_known_match_seed_gives_everything_away(tmp_path: Path) -> None:
    report = notes(tmp_path)
    bot = thief(report)
    done = canasta("match", "--seat", bot, "--seat", "builtin:random", "--seat", bot,
                   "--seat", "builtin:random", "--games", "2", "--set", "max_hands=1",
                   "--seed", "5", report=report)
    assert done.returncode == 0, done.stderr
    score = learned(reports(report))
    assert score["seeds"] == 4 and score["hits"] == score["tries"] > 0, score


def test_thief_learns_nothing_in_a_tournament(tmp_path: Path) -> None:
    report, out = notes(tmp_path), tmp_path / "out"
    done = canasta("tournament", "--bot", f"t={thief(report, out)}", "--bot",
                   "r=builtin:random", "--games", "4", "--concurrency", "2", "--set",
                   "max_hands=1", "--out", str(out), report=report)
    assert done.returncode == 0, done.stderr
    rows = reports(report)
    assert len(rows) == 16  # 4 deals x 2 seatings x 2 thief seats
    assert_chance(learned(rows))


def test_positive_control_reused_bots_remember_duplicate_deals(tmp_path: Path) -> None:
    report, out = notes(tmp_path), tmp_path / "out"
    done = canasta("tournament", "--bot", f"t={thief(report, out)}", "--bot",
                   "r=builtin:random", "--games", "3", "--concurrency", "1", "--set",
                   "max_hands=1", "--out", str(out), "--reuse-bots", report=report)
    assert done.returncode == 0, done.stderr
    score = learned(reports(report))
    assert score["memory"] >= 3, score  # the second seating of every deal


def test_thief_learns_nothing_from_canasta_play(tmp_path: Path) -> None:
    report, saves = notes(tmp_path), tmp_path / "saves"
    done = canasta("play", "--seat", "human", "--seat", thief(report, saves),
                   "--seat", "builtin:greedy", "--seat", "builtin:greedy",
                   "--save-dir", str(saves), "--set", "max_hands=1",
                   stdin="quit\n" * 3, report=report)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = reports(report)
    assert rows and rows[0]["engine"]
    score = learned(rows)
    assert score["proc"] == score["files"] == score["seeds"] == score["memory"] == 0, score
    assert str(saves) not in rows[0]["paths_seen"]  # the saves and sealed seeds are out of sight
    assert list(saves.glob("*.jsonl"))  # yet the game was saved


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_sandboxed_thief_sees_no_file_outside_its_directory(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    bot = thief(tmp_path / "report.jsonl", rec, tmp_path)
    done = canasta("match", "--sandbox", "--seat", bot, "--seat", "builtin:random",
                   "--seat", "builtin:random", "--seat", "builtin:random", "--games", "1",
                   "--set", "max_hands=1", "--record", str(rec))
    assert done.returncode == 0, done.stderr
    log = (rec / "seat0.stderr.log").read_text()
    row = json.loads(log.split("THIEF ", 1)[1].splitlines()[0])
    assert not (tmp_path / "report.jsonl").exists()  # it could not write outside either
    own = [str(THIEF), sys.prefix, os.path.realpath(sys.base_prefix)]
    # a private /tmp: empty, but for the mount points of the bot's own directories
    assert set(row["tmp"]) - {".thief-notes.json"} <= {p.split("/")[2] for p in own
                                                        if p.startswith("/tmp/")}
    assert str(rec) not in row["paths_seen"] and str(tmp_path) not in row["paths_seen"]
    assert set(row["root"]) <= {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32",
                                "etc", "proc", "dev", "tmp"} | {p.split("/")[1] for p in own}
    assert row["won"] == {"proc": False, "files": False, "seeds": False, "memory": False}


def test_sandbox_without_bubblewrap_is_a_clear_error(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PATH"}
    env["PATH"] = str(tmp_path)  # no bwrap here
    env["CANASTA_BWRAP"] = "system"  # and not the bundled one
    for args in (["match", "--seat", "builtin:random"] * 1 + ["--seat", "builtin:random"] * 3,
                 ["bot", "check", "true"]):
        done = subprocess.run([CANASTA, *args, "--sandbox"], capture_output=True, text=True,
                              env=env, timeout=60, check=False)
        assert done.returncode == 2, done
        assert "bubblewrap" in done.stderr and "Traceback" not in done.stderr


def test_positive_control_unboxed_bots_keep_notes_between_games(tmp_path: Path) -> None:
    """Fresh processes alone do not stop a bot from remembering a deal: notes in a file beside
    its program do.  Unboxed, they work; boxed (the test above), they do not."""
    own = tmp_path / "bot"
    own.mkdir()
    shutil.copy(THIEF, own / "thief.py")
    report, out = notes(tmp_path), tmp_path / "out"
    bot = thief(report, out).replace(str(THIEF), str(own / "thief.py"))
    try:
        done = canasta("tournament", "--bot", f"t={bot}", "--bot", "r=builtin:random",
                       "--games", "3", "--concurrency", "1", "--set", "max_hands=1",
                       "--out", str(out), "--unboxed", report=report)
    finally:
        Path("/tmp/.thief-notes.json").unlink(missing_ok=True)
    assert done.returncode == 0, done.stderr
    score = learned(reports(report))
    assert score["memory"] >= 3, score  # the second seating of every deal
    assert (own / ".thief-notes.json").exists()
