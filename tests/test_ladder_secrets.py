"""The ladder's master seed is out of every bot's sight: it is kept beside the ladder file in
an owner-only file (never in the database), the ladder's folder is hidden from the bots and
refused when it holds a bot's own files, and a deal's seed goes into the database only once
the deal is over.  A ladder file from before (the seed in its ``meta`` table) is migrated when
first opened, and its deals go on as they would have."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from canasta_cli.ladder.store import deal_seed

CANASTA = str(Path(sys.executable).parent / "canasta")
RULES = ["--rules", "two-player", "--set", "max_hands=1"]


def whole_lines() -> dict[str, str]:
    """The environment as the test session has it (conftest.py's own data folders), without
    COLUMNS: errors on one line, as a script gets them."""
    return {k: v for k, v in os.environ.items() if k != "COLUMNS"}


# A bot that, at its first request, lists the folders named (in hex, so that its command
# names no file there) and every whole number of 15 digits or more in the files it can read
# there, says so on stderr and crashes: the ladder keeps the failure with its stderr.
PEEK = r'''
import json, os, re, sys
folders = [bytes.fromhex(x).decode() for x in sys.argv[1:]]
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "ready", "protocol": "canasta/1", "name": "peek"}), flush=True)
    elif msg["type"] == "act":
        names, found = [], []
        for folder in folders:
            try:
                here = [os.path.join(folder, n) for n in sorted(os.listdir(folder))]
            except OSError as exc:
                here = []
            names += here
            for path in here:
                try:
                    with open(path, "rb") as f:
                        found += re.findall(rb"[0-9]{15,}", f.read())
                except OSError:
                    pass
        print("SAW " + json.dumps({"names": names,
                                   "numbers": [x.decode() for x in found]}),
              file=sys.stderr, flush=True)
        sys.exit(1)
'''


def ladder(db: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([CANASTA, "ladder", *args, "--db", str(db)], capture_output=True,
                          text=True, timeout=600, check=False, cwd=cwd, env=whole_lines())
    assert "Traceback" not in done.stderr, done.stderr
    return done


def sealed() -> Path:
    """The sealed seeds' folder (conftest.py gives each test session its own)."""
    return Path(os.environ["XDG_STATE_HOME"]) / "canasta" / "secrets"


def file_bytes(db: Path) -> bytes:
    """The ladder file and the log and index SQLite keeps beside it."""
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))


def seed_file(db: Path) -> Path | None:
    """The master seed's file, as the ladder file names it."""
    with sqlite3.connect(db) as con:
        row = con.execute("SELECT value FROM meta WHERE key='secret'").fetchone()
    return None if row is None else sealed() / row[0]


def test_a_bot_beside_the_ladder_folder_sees_no_seed(tmp_path: Path) -> None:
    bot = tmp_path / "peek.py"
    bot.write_text(PEEK)
    db = tmp_path / "ladder" / "l.sqlite"  # the bot's own folder holds the ladder's folder
    command = f"{sys.executable} {bot} {str(db.parent).encode().hex()} {str(sealed()).encode().hex()}"
    assert ladder(db, "add", "peek", command).returncode == 0
    assert ladder(db, "add", "greedy", "builtin:greedy").returncode == 0
    done = ladder(db, "run", "--games", "1", *RULES)
    assert done.returncode == 3, done.stderr  # the bot crashes on purpose, after peeking
    listed = ladder(db, "failures", "peek", "--last", "1")
    saw = json.loads(next(x for x in listed.stdout.splitlines() if "| SAW " in x)
                     .split("| SAW ", 1)[1])
    assert saw == {"names": [], "numbers": []}  # the folder is hidden: nothing in it
    secret = seed_file(db)
    assert secret is not None and secret.parent == sealed()
    master = json.loads(secret.read_text())["seed"]
    assert secret.stat().st_mode & 0o777 == 0o600 and db.stat().st_mode & 0o777 == 0o600
    assert str(master).encode() not in file_bytes(db) and str(master) not in secret.name


def test_a_ladder_beside_a_bot_is_refused(tmp_path: Path) -> None:
    bot = tmp_path / "peek.py"
    bot.write_text(PEEK)
    db = tmp_path / "l.sqlite"  # in the bot's own folder
    assert ladder(db, "add", "peek", f"{sys.executable} {bot} 00").returncode == 0
    assert ladder(db, "add", "greedy", "builtin:greedy").returncode == 0
    done = ladder(db, "run", "--games", "1", *RULES)
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "a file of bot 'peek'" in line and str(bot) in line
    assert seed_file(db) is None  # nothing drawn, nothing played
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM deals").fetchone()[0] == 0


def test_a_deal_seed_is_in_the_file_only_once_the_deal_is_over(tmp_path: Path) -> None:
    db = tmp_path / "ladder" / "l.sqlite"
    for name, command in (("a", "builtin:random"), ("b", "builtin:greedy")):
        assert ladder(db, "add", name, command).returncode == 0
    assert ladder(db, "run", "--games", "2", *RULES, "--seed", "77").returncode == 0
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT k, seed, finished FROM deals ORDER BY k").fetchall()
        # A run killed after reserving deal 3: its seed is not in the file.
        con.execute("INSERT INTO runs (id, pid, started) VALUES (9, 1, 0)")
        con.execute("INSERT INTO deals (k, a, b, seed, run) VALUES (3, 'a', 'b', NULL, 9)")
    assert [(k, s) for k, s, _ in rows] == [(1, str(deal_seed(77, 1))), (2, str(deal_seed(77, 2)))]
    assert str(deal_seed(77, 3)).encode() not in file_bytes(db)


OLD_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE bots (name TEXT PRIMARY KEY, command TEXT NOT NULL, added REAL NOT NULL);
CREATE TABLE runs (id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, started REAL NOT NULL,
                   ended REAL);
CREATE TABLE deals (k INTEGER PRIMARY KEY, a TEXT NOT NULL, b TEXT NOT NULL,
                    seed INTEGER NOT NULL, run INTEGER NOT NULL,
                    score REAL, diff REAL, failed INTEGER, finished REAL);
"""
OLD_MASTER = 987654321987654321


def old_ladder(path: Path) -> None:
    """A ladder file as the first versions wrote it (no failures table): the master seed in
    ``meta``, deal 1 finished, deal 2 reserved by a run that is gone."""
    rules = subprocess.run([sys.executable, "-c", "import json; from canasta_cli.core import"
                            " preset; print(json.dumps(preset('two-player').with_options("
                            "max_hands=1).to_dict()))"], capture_output=True, text=True,
                           check=True).stdout.strip()
    gone = subprocess.Popen(["true"])
    gone.wait()
    with sqlite3.connect(path) as con:
        con.executescript(OLD_SCHEMA)
        con.execute("INSERT INTO meta VALUES ('rules', ?)", (rules,))
        con.execute("INSERT INTO meta VALUES ('seed', ?)", (str(OLD_MASTER),))
        con.execute("INSERT INTO bots VALUES ('a', 'builtin:random', 0)")
        con.execute("INSERT INTO bots VALUES ('b', 'builtin:greedy', 0)")
        con.execute("INSERT INTO runs VALUES (1, ?, ?, NULL)", (gone.pid, time.time()))
        con.execute("INSERT INTO deals VALUES (1, 'a', 'b', ?, 1, 1.0, 40, 0, ?)",
                    (deal_seed(OLD_MASTER, 1), time.time()))
        con.execute("INSERT INTO deals VALUES (2, 'a', 'b', ?, 1, NULL, NULL, NULL, NULL)",
                    (deal_seed(OLD_MASTER, 2),))


def test_an_old_ladder_file_is_migrated_and_goes_on(tmp_path: Path) -> None:
    db = tmp_path / "ladder" / "old.sqlite"
    db.parent.mkdir()
    old_ladder(db)
    assert str(OLD_MASTER).encode() in db.read_bytes()
    shown = ladder(db, "show")
    assert shown.returncode == 0, shown.stderr
    secret = seed_file(db)
    assert secret is not None
    assert "moved the master seed" in shown.stderr and str(secret) in shown.stderr
    assert [x.split()[1] for x in shown.stdout.splitlines() if x[:1].isdigit()] == ["a", "b"]
    assert json.loads(secret.read_text()) == {"seed": OLD_MASTER, "bits": 63}
    assert secret.stat().st_mode & 0o777 == 0o600
    data = file_bytes(db)
    assert str(OLD_MASTER).encode() not in data  # wiped, not only deleted
    assert str(deal_seed(OLD_MASTER, 2)).encode() not in data  # a deal not yet played
    again = ladder(db, "show")
    assert again.returncode == 0 and "moved" not in again.stderr  # once
    # The run plays the left-over deal 2 first, with its seed of old, then deal 3.
    done = ladder(db, "run", "--games", "2", *RULES, "--seed", str(OLD_MASTER))
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT k, seed FROM deals ORDER BY k").fetchall()
    assert rows == [(k, str(deal_seed(OLD_MASTER, k))) for k in (1, 2, 3)]
