"""Tournament results that cannot be forged or doubled: every games.jsonl row is checked
against the schedule and its deal's seed, seed.json is never silently replaced, one
tournament at a time writes to an --out folder, and a full disk loses no row.  Each attack
runs the real ``canasta`` command and checks its exit status and its one-line message."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

CANASTA = shutil.which("canasta", path=os.path.dirname(sys.executable)) or "canasta"
TOURNAMENT = ["tournament", "--bot", "g=builtin:greedy", "--bot", "r=builtin:random",
              "--games", "3", "--concurrency", "1", "--set", "max_hands=1", "--seed", "4"]
HANG_GUARD = 120  # seconds: far beyond what any of these commands needs


def canasta(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([CANASTA, *args], capture_output=True, text=True, timeout=HANG_GUARD,
                          check=False, cwd=cwd)
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    return done


def one_error(done: subprocess.CompletedProcess[str], *words: str) -> str:
    """The command failed with status 2 and said why in one line, naming ``words``."""
    errors = [ln for ln in done.stderr.splitlines() if ln.startswith("error:")]
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert len(errors) == 1, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    for w in words:
        assert w in errors[0], errors[0]
    return errors[0]


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def by_key(path: Path) -> dict[str, dict[str, Any]]:
    return {r["key"]: r for r in rows(path)}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ref")
    done = canasta(*TOURNAMENT, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert len(rows(out / "games.jsonl")) == 6
    return out


def planted(reference: Path, tmp_path: Path, lines: list[str] | None = None,
            seed_text: str | None = None) -> Path:
    """A copy of the reference folder with games.jsonl and seed.json as given."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "seed.json").write_text(seed_text if seed_text is not None else
                                   (reference / "seed.json").read_text())
    text = "\n".join(lines) + "\n" if lines is not None else \
        (reference / "games.jsonl").read_text()
    (out / "games.jsonl").write_text(text)
    return out


# A row as a cheating bot (or a damaged disk) would leave it.  Each keeps the row's key, so
# only the checks against the schedule and the seed can catch it.
def _swap_win(r: dict[str, Any]) -> None:
    r["scores"] = list(reversed(r["scores"]))
    r["winner"] = None if r["winner"] is None else 1 - r["winner"]
    r["seed"] = 12345  # a bot does not know the deal's seed: it derives from seed.json


DAMAGE: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "forged win": (_swap_win, "'seed' is not this deal's seed"),
    "mismatched seating": (lambda r: r.update(seating=list(reversed(r["seating"]))),
                           "'seating'"),
    "short scores": (lambda r: r.update(scores=r["scores"][:1]), "'scores' must hold 2"),
    "non-integer failures": (lambda r: r["failures"][0].update(TIMEOUT=1.5), "whole counts"),
    "string failures": (lambda r: r["failures"][1].update(CRASHED="3"), "whole counts"),
    "negative failures": (lambda r: r["failures"][1].update(CRASHED=-3), "whole counts"),
    "failures not per seat": (lambda r: r.update(failures=r["failures"][:2]), "4 entries"),
    "wrong seed": (lambda r: r.update(seed=r["seed"] + 1), "'seed'"),
    "negative deal": (lambda r: r.update(deal=-1), "'deal'"),
    "impossible winner": (lambda r: r.update(winner=7), "'winner' must be a side"),
    "winner against the scores": (
        lambda r: r.update(winner=r["scores"].index(min(r["scores"]))), "'winner' is"),
    "boolean index": (lambda r: r.update(index=True), "'index'"),
    "negative hands": (lambda r: r.update(hands=-1), "'hands'"),
    "unknown reason": (lambda r: r.update(reason="bribed"), "'reason'"),
    "huge score": (lambda r: r["scores"].__setitem__(0, 10**30), "whole numbers a game"),
    "forfeit of no seat": (lambda r: r.update(forfeit=9, reason="forfeit"), "'forfeit'"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_or_forged_row_is_named_and_its_game_played_again(
        reference: Path, tmp_path: Path, damage: str) -> None:
    change, words = DAMAGE[damage]
    lines = (reference / "games.jsonl").read_text().splitlines()
    row = json.loads(lines[2])
    change(row)
    lines[2] = json.dumps(row)
    out = planted(reference, tmp_path, lines)
    done = canasta(*TOURNAMENT, "--out", str(out))
    assert done.returncode == 0, done.stderr
    warning = [ln for ln in done.stderr.splitlines() if "games.jsonl:3:" in ln]
    assert len(warning) == 1 and words in warning[0], done.stderr
    assert "played again" in warning[0]
    assert by_key(out / "games.jsonl") == by_key(reference / "games.jsonl")
    assert json.loads((out / "results.json").read_text())["games"] == 6


@pytest.mark.parametrize(("line", "words"), [
    ('{"key": "g|r|0|g/r/g/r", "scores": [NaN, 0]}', "not a JSON line"),
    ("[" * 5000 + "]" * 5000, "not a JSON line"),
    ("x" * 20000, "a line over"),
    ('"just a string"', "not an object"),
    ('{"key": ["g"]}', "'key'"),
    ('{"key": "g|r|99|g/r/g/r"}', "does not schedule"),
])
def test_lines_that_are_no_row_are_named(reference: Path, tmp_path: Path, line: str,
                                         words: str) -> None:
    lines = (reference / "games.jsonl").read_text().splitlines()
    out = planted(reference, tmp_path, [*lines[:1], line, *lines[1:]])
    done = canasta(*TOURNAMENT, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert any("games.jsonl:2:" in ln and words in ln for ln in done.stderr.splitlines()), \
        done.stderr
    assert by_key(out / "games.jsonl") == by_key(reference / "games.jsonl")


def test_a_second_row_for_a_game_is_not_counted_twice(reference: Path, tmp_path: Path) -> None:
    lines = (reference / "games.jsonl").read_text().splitlines()
    out = planted(reference, tmp_path, [*lines, lines[0]])
    done = canasta(*TOURNAMENT, "--out", str(out))
    assert done.returncode == 0 and "games.jsonl:7: a second row" in done.stderr, done.stderr
    assert len(rows(out / "games.jsonl")) == 6
    assert json.loads((out / "results.json").read_text())["games"] == 6


def test_planted_results_without_seed_json_are_refused(reference: Path,
                                                       tmp_path: Path) -> None:
    # The attack of the issue: a bot plants a games.jsonl in a folder of its making.  The
    # run used to draw a new seed in silence and accept the rows.
    out = tmp_path / "out"
    out.mkdir()
    forged = rows(reference / "games.jsonl")
    for r in forged:
        _swap_win(r)
    (out / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in forged))
    before = (out / "games.jsonl").read_bytes()
    done = canasta(*TOURNAMENT[:-2], "--out", str(out))  # no --seed: it would draw one
    one_error(done, "games.jsonl holds results", "seed.json is missing")
    assert not (out / "seed.json").exists()
    assert (out / "games.jsonl").read_bytes() == before


def test_a_changed_seed_json_is_an_error(reference: Path, tmp_path: Path) -> None:
    out = planted(reference, tmp_path, seed_text='{"seed": 5}\n')
    before = (out / "games.jsonl").read_bytes()
    done = canasta(*TOURNAMENT[:-2], "--out", str(out))
    one_error(done, "none of its rows has its deal's seed", "seed.json was changed")
    assert (out / "games.jsonl").read_bytes() == before
    # With the tournament's own seed given, the folder's other seed is named.
    one_error(canasta(*TOURNAMENT, "--out", str(out)), "another seed (5)")


@pytest.mark.parametrize(("text", "words"), [
    ('{"seed": 1e400}', "is damaged"),
    ('{"seed": 4.0}', "is damaged"),
    ('{"seed": Infinity}', "is damaged"),
    ('{"seed": true}', "is damaged"),
    ('{"seed": "4"}', "is damaged"),
    ('{"seed": 340282366920938463463374607431768211456}', "is damaged"),  # 2**128
    ('{"seed": ' + "[" * 2000 + "]" * 2000 + "}", "is damaged"),
    ("[" * 100000, "more than a tournament's seed file can be"),
    ("\xff\xfe", "is damaged"),
    ("", "is damaged"),
])
def test_a_damaged_seed_json_is_one_line(reference: Path, tmp_path: Path, text: str,
                                         words: str) -> None:
    out = planted(reference, tmp_path, seed_text=text)
    one_error(canasta(*TOURNAMENT, "--out", str(out)), "seed.json", words)


def test_seed_json_must_be_a_regular_file(reference: Path, tmp_path: Path) -> None:
    out = planted(reference, tmp_path)
    seed = out / "seed.json"
    seed.unlink()
    os.mkfifo(seed)
    one_error(canasta(*TOURNAMENT, "--out", str(out)), "seed.json", "FIFO")
    seed.unlink()
    (tmp_path / "elsewhere.json").write_text((reference / "seed.json").read_text())
    seed.symlink_to(tmp_path / "elsewhere.json")
    one_error(canasta(*TOURNAMENT, "--out", str(out)), "seed.json", "symbolic link")
    seed.unlink()
    with open(seed, "wb") as f:
        f.truncate(1 << 30)  # 1 GiB, sparse
    one_error(canasta(*TOURNAMENT, "--out", str(out)), "seed.json", "1.0 GiB")


def test_games_jsonl_must_be_a_small_regular_file(reference: Path, tmp_path: Path) -> None:
    out = planted(reference, tmp_path)
    games = out / "games.jsonl"
    games.unlink()
    with open(games, "wb") as f:
        f.truncate(1 << 30)  # 1 GiB, sparse: read whole, it took minutes and the memory
    one_error(canasta(*TOURNAMENT, "--out", str(out)), "games.jsonl", "1.0 GiB",
              "more than the results of this tournament can be")
    games.unlink()
    os.mkfifo(games)
    start = time.monotonic()
    one_error(canasta(*TOURNAMENT, "--out", str(out)), "games.jsonl", "FIFO")
    assert time.monotonic() - start < HANG_GUARD
    games.unlink()
    victim = tmp_path / "victim.jsonl"
    victim.write_text((reference / "games.jsonl").read_text())
    games.symlink_to(victim)
    one_error(canasta(*TOURNAMENT, "--out", str(out)), "games.jsonl", "symbolic link")
    assert victim.read_text() == (reference / "games.jsonl").read_text()


def test_files_in_out_are_new_owner_only_files(reference: Path, tmp_path: Path) -> None:
    """Symbolic links planted for results.json and the CSV files are replaced, never written
    through; an old 0644 games.jsonl (or a hard link to another file) is not reused."""
    out = planted(reference, tmp_path)
    victims = {}
    for name in ("results.json", "standings.csv", "crosstable.csv"):
        victims[name] = tmp_path / f"victim-{name}"
        victims[name].write_text("precious\n")
        (out / name).symlink_to(victims[name])
    os.chmod(out / "games.jsonl", 0o644)
    linked = tmp_path / "linked.jsonl"
    os.link(out / "games.jsonl", linked)
    before = linked.read_bytes()
    done = canasta(*TOURNAMENT, "--out", str(out))
    assert done.returncode == 0, done.stderr
    for name, victim in victims.items():
        assert victim.read_text() == "precious\n"
        assert not (out / name).is_symlink() and (out / name).stat().st_mode & 0o777 == 0o600
    games = out / "games.jsonl"
    assert games.stat().st_mode & 0o777 == 0o600
    assert games.stat().st_ino != linked.stat().st_ino and linked.read_bytes() == before


def test_out_naming_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    one_error(canasta(*TOURNAMENT, "--out", str(tmp_path / "file")), "--out", "names a file")
    assert (tmp_path / "file").read_text() == "x"


def test_out_holding_the_bot_is_refused(tmp_path: Path) -> None:
    bot = Path(__file__).resolve().parent.parent / "bots" / "random_bot.py"
    shutil.copy(bot, tmp_path / "bot.py")
    done = canasta("tournament", "--bot", f"mine={sys.executable} bot.py", "--bot",
                   "g=builtin:greedy", "--games", "1", "--set", "max_hands=1", "--out", ".",
                   cwd=tmp_path)
    one_error(done, "--out '.' holds 'bot.py'", "bot 'mine'", "seed")
    assert not (tmp_path / "seed.json").exists()


GATED_BOT = """
import os, sys, time
gate = os.path.join(os.path.dirname(os.path.abspath(__file__)), "go")
while not os.path.exists(gate):
    time.sleep(0.02)
sys.argv[0] = {bot!r}
exec(compile(open({bot!r}).read(), {bot!r}, "exec"))
"""


def test_two_tournaments_on_one_out_never_double_rows(tmp_path: Path) -> None:
    botdir = tmp_path / "bot"
    botdir.mkdir()
    real = botdir / "random_bot.py"  # beside it: a boxed bot sees its own folder only
    shutil.copy(Path(__file__).resolve().parent.parent / "bots" / "random_bot.py", real)
    (botdir / "gated.py").write_text(GATED_BOT.format(bot=str(real)))
    out = tmp_path / "out"
    args = [CANASTA, "tournament", "--bot", f"gated={sys.executable} {botdir / 'gated.py'}",
            "--bot", "g=builtin:greedy", "--games", "4", "--concurrency", "1", "--set",
            "max_hands=1", "--seed", "9", "--out", str(out)]
    first = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        deadline = time.monotonic() + HANG_GUARD
        lock = out / ".lock"
        while time.monotonic() < deadline and not (
                lock.exists() and lock.read_text().strip() == str(first.pid)):
            assert first.poll() is None, first.communicate()
            time.sleep(0.02)
        # The first holds the folder, its bot waiting at the gate: the second must not start.
        second = canasta(*args[1:])
        one_error(second, str(out), "in use by another tournament", f"pid {first.pid}")
        (botdir / "go").write_text("")
        _, err = first.communicate(timeout=HANG_GUARD)
        assert first.returncode == 0, err
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
    got = rows(out / "games.jsonl")
    assert len(got) == 8 and len({r["key"] for r in got}) == 8
    # Once the first has ended, the folder is free again: the rerun resumes, plays nothing.
    again = canasta(*args[1:])
    assert again.returncode == 0 and len(rows(out / "games.jsonl")) == 8, again.stderr


@pytest.fixture
def small_disk(tmp_path: Path) -> Any:
    """A tmpfs of 256 KiB mounted for the test (root only)."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("a full disk is simulated with a tmpfs mount, which needs root")
    where = tmp_path / "disk"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs",
                           str(where)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _fill(disk: Path, leave: int) -> Path:
    """A file that leaves about ``leave`` bytes free on ``disk``."""
    filler = disk / "filler"
    with open(filler, "wb") as f:
        chunk = b"\0" * 4096
        while True:
            st = os.statvfs(disk)
            if st.f_bavail * st.f_frsize <= leave:
                break
            try:
                f.write(chunk)
                f.flush()
            except OSError:
                break
    return filler


def test_a_full_disk_under_out_keeps_every_row_and_resumes(small_disk: Path) -> None:
    args = ["tournament", "--bot", "g=builtin:greedy", "--bot", "r=builtin:random", "--games",
            "40", "--concurrency", "1", "--set", "max_hands=1", "--seed", "4"]
    ref = small_disk.parent / "ref"
    assert canasta(*args, "--out", str(ref)).returncode == 0
    out = small_disk / "out"
    filler = _fill(small_disk, 3 * 4096)  # seed.json, .lock and one page of rows
    done = canasta(*args, "--out", str(out))
    errors = [ln for ln in done.stderr.splitlines() if ln.startswith("error:")]
    assert done.returncode == 2 and len(errors) == 1, done.stderr
    assert "games.jsonl" in errors[0] and "No space left on device" in errors[0]
    kept = (out / "games.jsonl").read_text()
    assert kept.endswith("\n")  # no line cut short
    kept_rows = [json.loads(x) for x in kept.splitlines()]
    assert 0 < len(kept_rows) < 80
    reference = by_key(ref / "games.jsonl")
    assert all(reference[r["key"]] == r for r in kept_rows)
    filler.unlink()  # space freed: the same command resumes and completes
    again = canasta(*args, "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert "warning" not in again.stderr
    assert by_key(out / "games.jsonl") == reference


def test_a_full_disk_under_record_is_one_line(small_disk: Path) -> None:
    rec = small_disk / "rec"
    _fill(small_disk, 8 * 4096)  # a game's record is far larger than 32 KiB
    done = canasta("match", "--seat", "builtin:greedy", "--seat", "builtin:random", "--seat",
                   "builtin:greedy", "--seat", "builtin:random", "--seed", "1", "--record",
                   str(rec))
    error = one_error(done, "game-0001.jsonl", "No space left on device")
    assert error.startswith("error: cannot write")
    lines = (rec / "game-0001.jsonl").read_bytes().split(b"\n")
    assert len(lines) > 10
    for raw in lines[:-2]:  # every line before the one the disk cut short
        json.loads(raw)
