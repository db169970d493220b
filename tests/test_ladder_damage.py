"""A ladder file edited by hand or by anyone who could write it: every command that reads it
says in one line that it is damaged (exit 2), trusts nothing of it and changes nothing in it;
never a traceback."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from canasta_cli.core import preset
from canasta_cli.ladder.store import Ladder

CANASTA = str(Path(sys.executable).parent / "canasta")
RULES = preset("two-player").with_options(max_hands=1)
RULE_ARGS = ["--rules", "two-player", "--set", "max_hands=1"]


def whole_lines() -> dict[str, str]:
    """The environment as the test session has it (conftest.py's own data folders), without
    COLUMNS: errors on one line, as a script gets them."""
    return {k: v for k, v in os.environ.items() if k != "COLUMNS"}


ALL = ("show", "run", "history", "failures", "report")
READING = ("show", "run", "history", "report")  # the commands that rate the deals


def good_ladder(path: Path) -> None:
    """Two bots, a finished deal, a kept failure: a ladder as ``ladder run`` leaves one."""
    ladder = Ladder(path)
    ladder.add("a", "builtin:random")
    ladder.add("b", "builtin:greedy")
    _, master = ladder.settings(RULES.to_dict(), 5)
    run = ladder.start_run()
    deal = ladder.reserve(run, master)
    assert deal is not None
    record = zlib.compress(b'{"type":"header"}\n')
    ladder.finish(deal, 1.0, 30.0, 1, [{"bot": "a", "deal": 1, "game": 1, "seat": 0,
                                        "status": "CRASHED", "reason": "it fell over",
                                        "stderr": "oops", "record": record,
                                        "replay": "canasta match ..."}])
    ladder.release(run)
    ladder.close()


DAMAGE = {
    "an infinite score": ("UPDATE deals SET score=1e309", READING, "the score of deal 1"),
    "a score in words": ("UPDATE deals SET score='high'", READING, "the score of deal 1"),
    "a score of 2": ("UPDATE deals SET score=2", READING, "the score of deal 1"),
    "a score of 0.25": ("UPDATE deals SET score=0.25", READING, "not 0, 0.5 or 1"),
    "a seed of nan": ("UPDATE deals SET seed='nan'", READING, "the seed of deal 1"),
    "a deal of a bot not on the ladder": ("UPDATE deals SET a='ghost'", READING, "'ghost'"),
    "a name that is a blob": ("UPDATE bots SET name=x'ff' WHERE name='b'", READING,
                              "a bot's name"),
    "a command that is a blob": ("UPDATE bots SET command=x'00ff' WHERE name='b'", READING,
                                 "the command of 'b'"),
    "a start in words": ("UPDATE runs SET started='yesterday'", ("run", "history", "report"),
                         "the start of run 1"),
    "a replaced table": ("DROP TABLE deals; CREATE TABLE deals (x)", ALL, "table 'deals'"),
    "a missing table": ("DROP TABLE runs", ALL, "table 'runs' is missing"),
    "a view": ("DROP TABLE bots; CREATE VIEW bots AS SELECT 'a' AS name, 'x' AS command,"
               " 0 AS added", ALL, "view 'bots'"),
    "a trigger": ("CREATE TRIGGER t AFTER INSERT ON runs BEGIN DELETE FROM deals; END", ALL,
                  "trigger 't'"),
    "an unknown format": ("UPDATE meta SET value='9' WHERE key='format'", ALL, "format '9'"),
    "a master seed inside": ("INSERT INTO meta VALUES ('seed', '5')", ALL, "master seed"),
    "a seed file named as a path": ("UPDATE meta SET value='../../x.json' WHERE key='secret'",
                                    ("run",), "its seed file's name"),
    "rules that are not JSON": ("UPDATE meta SET value='[' WHERE key='rules'", ("run",),
                                "its rules"),
    "a failure's unknown status": ("UPDATE failures SET status='PWNED'", ("failures",),
                                   "the status of failure #1"),
    "a failure's seat out of range": ("UPDATE failures SET seat=99", ("failures",),
                                      "the seat of failure #1"),
    "a failure's time of infinity": ("UPDATE failures SET at=-1e309", ("failures",),
                                     "the time of failure #1"),
    "a failure's record not compressed": ("UPDATE failures SET record=x'0102'",
                                          ("failures",), "the record of failure #1"),
    "a failure's record nested deep": (
        "UPDATE failures SET record=?", ("failures",), "the record of failure #1"),
}
BLOBS = {"a failure's record nested deep": (zlib.compress(b"[" * 100_000 + b"\n"),)}


def seed_file(db: Path) -> Path:
    """The master seed's file, as the ladder file names it."""
    with sqlite3.connect(db) as con:
        (name,) = con.execute("SELECT value FROM meta WHERE key='secret'").fetchone()
    return Path(os.environ["XDG_STATE_HOME"]) / "canasta" / "secrets" / str(name)


def command(name: str, db: Path, out: Path) -> list[str]:
    return {"show": ["ladder", "show", "--db", str(db)],
            "run": ["ladder", "run", "--games", "1", *RULE_ARGS, "--db", str(db)],
            "history": ["ladder", "history", "a", "--db", str(db)],
            "failures": ["ladder", "failures", "--db", str(db), "--out", str(out)],
            "report": ["report", "--ladder", "--db", str(db)]}[name]


def dump(db: Path) -> list[str]:
    with sqlite3.connect(db) as con:
        return list(con.iterdump())


@pytest.mark.parametrize("what", list(DAMAGE))
def test_a_damaged_ladder_file_is_one_line_and_stays_as_it_was(tmp_path: Path,
                                                                what: str) -> None:
    db = tmp_path / "ladder" / "l.sqlite"
    good_ladder(db)
    sql, commands, words = DAMAGE[what]
    with sqlite3.connect(db) as con:
        if what in BLOBS:
            con.execute(sql, BLOBS[what])
        else:
            con.executescript(sql)
    before = dump(db)
    for name in commands:
        done = subprocess.run([CANASTA, *command(name, db, tmp_path / "out")],
                              capture_output=True, text=True, timeout=300, check=False,
                              env=whole_lines())
        assert "Traceback" not in done.stderr, (name, done.stderr)
        assert done.returncode == 2, (name, done.returncode, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, (name, done.stderr)
        assert lines[0].startswith(f"error: the ladder file {db} is damaged: "), (name, lines)
        assert words in lines[0], (name, lines)
        assert dump(db) == before, name  # nothing of it changed, nothing played
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


@pytest.mark.parametrize("text", ['{"seed": "5", "bits": 63}', '{"seed": 5, "bits": 64}',
                                  '{"seed": 1e999, "bits": 63}', "[" * 3000, ""])
def test_a_damaged_seed_file_is_one_line(tmp_path: Path, text: str) -> None:
    db = tmp_path / "ladder" / "l.sqlite"
    good_ladder(db)
    where = seed_file(db)
    where.write_text(text)
    before = dump(db)
    done = subprocess.run([CANASTA, *command("run", db, tmp_path)], capture_output=True,
                          text=True, timeout=300, check=False, env=whole_lines())
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert str(where) in line and "is damaged" in line, line
    assert dump(db) == before


def test_a_missing_seed_file_is_one_line_never_a_new_seed(tmp_path: Path) -> None:
    db = tmp_path / "ladder" / "l.sqlite"
    good_ladder(db)
    where = seed_file(db)
    where.unlink()
    done = subprocess.run([CANASTA, *command("run", db, tmp_path)], capture_output=True,
                          text=True, timeout=300, check=False, env=whole_lines())
    assert done.returncode == 2 and "which is missing" in done.stderr, done.stderr
    assert not where.exists() and seed_file(db) == where


def test_a_ladder_file_that_is_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    db = tmp_path / "l.sqlite"
    os.mkfifo(db)
    for name in ("show", "report"):
        done = subprocess.run([CANASTA, *command(name, db, tmp_path)], capture_output=True,
                              text=True, timeout=60, check=False, env=whole_lines())
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
