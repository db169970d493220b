"""The bot author's workbench: failures kept with stderr, reason and a replay command; exit
codes of match, tournament and bot check; plain timeout and stdout hints (real subprocess
bots throughout)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from canasta_cli.core import PRESETS
from canasta_cli.tournament.rows import row_problem
from canasta_cli.tournament.schedule import schedule

ROOT = Path(__file__).resolve().parent.parent
CANASTA = str(Path(sys.executable).parent / "canasta")
CRASHY = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'crashy.py'}"
GOOD = f"{sys.executable} {ROOT / 'bots' / 'random_bot.py'}"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CANASTA, *args], capture_output=True, text=True, timeout=600,
                          check=False, cwd=cwd)


def test_a_tournament_keeps_each_failed_game_and_its_replay_reproduces_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["tournament", "--bot", f"crash={CRASHY} refuse", "--bot", "g=builtin:greedy",
            "--games", "2", "--rules", "two-player", "--set", "max_hands=1", "--out", str(out),
            "--concurrency", "1", "--seed", "5"]
    done = run(*args)
    assert done.returncode == 3, done.stderr
    rows = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    bad = [r for r in rows if "status" in r]
    assert bad, "the refusing bot never failed"
    assert f"failed: {len(bad)} seat" in done.stderr and f"in {len(bad)} game" in done.stderr
    row = bad[0]
    seat = row["seating"].index("crash")
    assert row["status"][seat] == "CRASHED" and row["status"][1 - seat] == "OK"
    assert "exited with code 3" in row["why"][seat] and row["why"][1 - seat] is None
    failure = json.loads((out / "failures" / f"game-{row['index'] + 1:04d}.json").read_text())
    assert "declining the pile" in failure["seats"][seat]["stderr_tail"]
    assert (out / failure["record"]).is_file()  # kept without --records
    # The replay command, pasted into a shell as it is, plays the same game: same scores,
    # same crash (it names this canasta by its path: it is not on the PATH here).
    command = failure["replay"]
    again = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=600,
                           check=False, cwd=tmp_path)
    assert again.returncode == 3, again.stderr
    folder = out / "replays" / f"game-{row['index'] + 1:04d}"
    record = [json.loads(x) for x in (folder / f"game-{row['index'] + 1:04d}.jsonl")
              .read_text().splitlines()]
    result = next(x for x in record if x["type"] == "result")
    assert result["scores"] == row["scores"]
    assert "declining the pile" in (folder / f"seat{seat}.stderr.log").read_text()
    # The report lists the game with its command on one line of its own.
    report = run("report", str(out))
    assert failure["replay"] in report.stdout.splitlines()
    # A rerun resumes: every row (with its status and reason) is accepted as it is.
    resumed = run(*args)
    assert resumed.returncode == 3 and "played again" not in resumed.stderr


def test_status_and_reason_in_a_row_are_checked_and_old_rows_stay_valid() -> None:
    rules = PRESETS["two-player"].with_options(max_hands=1)
    task = schedule(["a", "b"], "round-robin", 1, rules, 7)[0]
    row = {"key": task.key, "index": task.index, "pair": list(task.pair), "deal": task.deal,
           "seating": list(task.seating), "seed": task.seed, "scores": [100, 50], "winner": 0,
           "reason": "hand_limit", "hands": 1, "forfeit": None, "failures": [{}, {}]}
    assert row_problem(row, task, rules) is None
    assert row_problem({**row, "status": ["OK", "CRASHED"], "why": [None, "gone"]},
                       task, rules) is None
    assert "status" in str(row_problem({**row, "status": ["OK"], "why": [None]}, task, rules))
    assert "status" in str(row_problem({**row, "status": ["ok", "X"], "why": [None, None]},
                                       task, rules))
    assert "why" in str(row_problem({**row, "status": ["OK", "OK"], "why": [1, None]},
                                    task, rules))


def test_match_exit_codes(tmp_path: Path) -> None:
    fine = run("match", "--seat", "builtin:random", "--seat", "builtin:greedy", "--rules",
               "two-player", "--set", "max_hands=1", "--seed", "3")
    assert fine.returncode == 0, fine.stderr
    usage = run("match", "--seat", "builtin:random", "--rules", "two-player")
    assert usage.returncode == 2
    missing = run("match", "--seat", "./no-such-bot", "--seat", "builtin:greedy", "--rules",
                  "two-player", "--set", "max_hands=1", "--games", "2", "--seed", "3",
                  cwd=tmp_path)
    assert missing.returncode == 3
    assert "failed: 2 seats got a status in 2 games (CRASHED x2)" in missing.stderr
    crash = run("match", "--seat", f"{CRASHY} nth 3", "--seat", "builtin:greedy", "--rules",
                "two-player", "--set", "max_hands=1", "--seed", "3", "--json")
    assert crash.returncode == 3 and "failed: 1 seat got a status in 1 game" in crash.stderr


def test_tournament_exit_code_zero_when_no_seat_failed(tmp_path: Path) -> None:
    done = run("tournament", "--bot", f"r={GOOD}", "--bot", "g=builtin:greedy", "--games", "1",
               "--rules", "two-player", "--set", "max_hands=1", "--out", str(tmp_path / "o"),
               "--concurrency", "1", "--seed", "1")
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "o" / "failures").exists()


@pytest.mark.parametrize(("mode", "hint"), [
    ("silent", "the bot took too long (it wrote nothing)"),
    ("chatty", "only protocol messages may go to stdout"),
])
def test_a_timeout_or_a_debug_print_says_what_it_usually_means(mode: str, hint: str) -> None:
    done = run("match", "--seat", f"{CRASHY} {mode} 2", "--seat", "builtin:greedy", "--rules",
               "two-player", "--set", "max_hands=1", "--seed", "3", "--decision-ms", "300",
               "--bank-ms", "0", "--json")
    assert done.returncode == 3, done.stderr
    seat = json.loads(done.stdout)["games"][0]["seats"][0]
    assert any(hint in e for e in seat["errors"]), seat["errors"]


def test_bot_check_exit_codes_and_the_real_games(tmp_path: Path) -> None:
    good = run("bot", "check", GOOD, "--games", "2", "--rules", "two-player")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "PASS  real games: 6 games without a failure" in good.stdout  # 4 stacked, 2 dealt
    assert run("bot", "check", GOOD, "--rules", "no-such").returncode == 2
    # Passes every scripted check (classic), then fails in a real game: caught, with stderr
    # and replay.
    late = run("bot", "check", f"{CRASHY} players 3", "--games", "4", "--rules",
               "three-player", cwd=tmp_path)  # three-player: dealt games only (no stacked deals)
    assert late.returncode == 3, late.stdout
    assert "FAIL  real games" in late.stdout and "a table of 3 players" in late.stdout
    assert "failed: 1 check" in late.stderr
    replay = next(line for line in late.stdout.splitlines()
                  if line.startswith("cd ") and " match --seat " in line)
    command = replay  # as printed: it names this canasta (not on the PATH here)
    again = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=600,
                           check=False)
    assert again.returncode == 3
    folder = Path(shlex.split(replay.split(" && ", 1)[1])[-1])
    assert os.path.isdir(folder)
    assert any("a table of 3 players" in p.read_text()
               for p in folder.glob("seat*.stderr.log"))


def test_statistics_say_what_they_mean(tmp_path: Path) -> None:
    done = run("tournament", "--bot", "a=builtin:random", "--bot", "b=builtin:random",
               "--games", "3", "--rules", "two-player", "--set", "max_hands=1", "--sprt",
               "--out", str(tmp_path / "o"), "--concurrency", "1", "--seed", "2")
    assert done.returncode == 0, done.stderr
    sprt = json.loads((tmp_path / "o" / "results.json").read_text())["sprt"]
    assert sprt["lower"] == pytest.approx(-2.944, abs=1e-3)
    assert sprt["upper"] == pytest.approx(2.944, abs=1e-3)
    assert f"LLR {sprt['llr']:.2f} (-2.94, 2.94)" in done.stdout
    assert "counts half" in done.stdout
    # No -0 or +0 in the figures (the output folder's path is left out: pytest's first
    # temporary folder on a machine is .../pytest-0/).
    figures = done.stdout.replace(str(tmp_path), "OUT")
    assert not re.search(r"(?<![+\d])[-+]0(?![\d.])", figures), done.stdout
    deals = json.loads((tmp_path / "o" / "results.json").read_text())["deals"][0]
    share = (deals["a"] + 0.5 * deals["tied"]) / deals["deals"]
    assert f"(a: {share:.0%};" in done.stdout


TEE = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'tee.py'}"


def test_bot_ask_gives_the_bot_the_same_bytes_it_saw_in_the_game(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    game = run("match", "--seat", TEE, "--seat", "builtin:greedy", "--rules", "two-player",
               "--set", "max_hands=1", "--seed", "3", "--record", str(rec))
    assert game.returncode == 0, game.stderr
    acts = [x for x in (rec / "seat0.stderr.log").read_text().splitlines()
            if x.startswith("ACT ")]
    assert len(acts) >= 6
    for k in (1, 6):
        done = run("bot", "ask", TEE, str(rec / "game-0001.jsonl"), "--decision", str(k),
                   "--seat", "0", "--json")
        assert done.returncode == 0, done.stderr
        got = json.loads(done.stdout)
        # The hash of every byte the bot read, at the request asked for, is the game's.
        mine = [x for x in got["stderr"].splitlines() if x.startswith("ACT ")]
        assert mine[-1] == acts[k - 1] and len(mine) == k
        assert got["answer"]["index"] == 0 and got["earlier_differences"] == []
        assert json.loads(got["request"])["id"] == int(acts[k - 1].split()[1])


def test_bot_ask_reproduces_a_crash_from_the_record(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    game = run("match", "--seat", f"{CRASHY} refuse", "--seat", "builtin:greedy", "--rules",
               "two-player", "--set", "max_hands=1", "--seed", "3", "--record", str(rec))
    assert game.returncode == 3
    lines = [json.loads(x) for x in (rec / "game-0001.jsonl").read_text().splitlines()]
    moves = 0
    for line in lines:
        if line["type"] == "failure":
            break
        moves += line["type"] == "move"
    k = moves + 1  # the move the referee played for the crashed bot
    done = run("bot", "ask", f"{CRASHY} refuse", str(rec / "game-0001.jsonl"), "--decision",
               str(k))
    assert done.returncode == 3, done.stdout + done.stderr
    assert "no answer: CRASHED" in done.stdout and "declining the pile" in done.stdout
    bad = run("bot", "ask", TEE, str(rec / "game-0001.jsonl"), "--decision", "100000")
    assert bad.returncode == 2 and "--decision must be a move of the game" in bad.stderr


def test_bot_check_plays_on_to_a_rare_decision(tmp_path: Path) -> None:
    """A bot that breaks only when it must go out after its partner's yes answers the
    scripted decision itself (it asks); the check plays the hand on, the partner says yes, and
    the bot's crash there fails the check, which names the request, with its stderr.  (Once
    a check failed, --games plays no games.)"""
    bot = f"{CRASHY} afteryes"
    done = run("bot", "check", bot, "--games", "1", "--rules", "classic", cwd=tmp_path)
    assert done.returncode == 3, done.stdout
    lines = done.stdout.splitlines()
    going_out = next(line for line in lines if "going out is possible" in line)
    assert going_out.startswith("FAIL") and "its request 2 in this hand, kind meld" in going_out
    assert "CRASHED" in going_out
    assert "my partner said yes" in done.stdout
    assert not any("real games" in line for line in lines)
