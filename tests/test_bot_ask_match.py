"""``bot ask`` on a decision in a later game of a match, from a record and from a transcript:
the bot is played the match's earlier games first, so the request it gets (and every byte it
read before it) is the one it saw in the match.  The bot (tests/bots/tee.py) logs, at each
request, its id and a SHA-256 of every byte it has read so far."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CANASTA = str(Path(sys.executable).parent / "canasta")
TEE = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'tee.py'}"
CRASHY = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'crashy.py'}"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CANASTA, *args], capture_output=True, text=True, timeout=600,
                          check=False)


def _acts(log: str) -> list[str]:
    return [x for x in log.splitlines() if x.startswith("ACT ")]


@pytest.fixture(scope="module")
def match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("match")
    done = run("match", "--seat", TEE, "--seat", "builtin:greedy", "--rules", "two-player",
               "--set", "max_hands=1", "--games", "3", "--seed", "3", "--record",
               str(out / "rec"), "--transcript", str(out / "tr"))
    assert done.returncode == 0, done.stderr
    return out


def _game_acts(match: Path, game: int) -> list[str]:
    """The bot's ACT lines of ``game``, found by the request ids of the game's acts in its
    transcript."""
    ids = [m["msg"]["id"] for m in map(json.loads, (match / "tr" / "seat0.jsonl").open())
           if m["from"] == "referee" and m["msg"]["type"] == "act" and m["msg"]["game"] == game]
    acts = {int(a.split()[1]): a for a in _acts((match / "rec" / "seat0.stderr.log").read_text())}
    return [acts[i] for i in ids]


@pytest.mark.parametrize("source", ["record", "transcript"])
@pytest.mark.parametrize(("game", "k"), [(2, 1), (2, 7), (3, 4)])
def test_bot_ask_in_a_later_game_gives_the_bot_the_bytes_of_the_match(
        match: Path, source: str, game: int, k: int) -> None:
    seen = _game_acts(match, game)
    assert len(seen) >= k
    if source == "record":
        args = [str(match / "rec" / f"game-{game:04d}.jsonl"), "--seat", "0"]
    else:
        args = [str(match / "tr" / "seat0.jsonl"), "--game", str(game)]
    done = run("bot", "ask", TEE, *args, "--decision", str(k), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    got = json.loads(done.stdout)
    mine = _acts(got["stderr"])
    # The same request id and the hash of every byte read up to it, handshake included.
    assert mine[-1] == seen[k - 1], (mine[-1], seen[k - 1])
    assert got["game"] == game and got["earlier_differences"] == []
    assert json.loads(got["request"])["id"] == int(seen[k - 1].split()[1])
    if source == "record":
        assert got["games_before"] == game - 1


def test_without_the_earlier_games_the_bytes_differ(match: Path) -> None:
    """The check above can fail: put as the first game of a match, game 2's request is not
    the one the bot saw."""
    done = run("bot", "ask", TEE, str(match / "rec" / "game-0002.jsonl"), "--seat", "0",
               "--decision", "3", "--alone", "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["games_before"] == 0
    assert _acts(got["stderr"])[-1] != _game_acts(match, 2)[2]


def test_bot_ask_from_a_transcript_reproduces_a_crash_and_refuses_bad_input(
        tmp_path: Path, match: Path) -> None:
    done = run("match", "--seat", f"{CRASHY} nth 30", "--seat", "builtin:greedy", "--rules",
               "two-player", "--set", "max_hands=1", "--games", "2", "--seed", "3",
               "--transcript", str(tmp_path / "tr"))
    assert done.returncode == 3
    lines = [json.loads(x) for x in (tmp_path / "tr" / "seat0.jsonl").read_text().splitlines()]
    acts = [m["msg"]["game"] for m in lines if m["from"] == "referee"
            and m["msg"]["type"] == "act"]
    game, k = acts[29], acts[:30].count(acts[29])  # where the 30th decision fell
    ask = run("bot", "ask", f"{CRASHY} nth 30", str(tmp_path / "tr" / "seat0.jsonl"),
              "--game", str(game), "--decision", str(k))
    assert ask.returncode == 3, ask.stdout + ask.stderr
    assert "no answer: CRASHED" in ask.stdout and "giving up on decision 30" in ask.stdout
    transcript = str(match / "tr" / "seat0.jsonl")
    bad = run("bot", "ask", TEE, transcript, "--game", "9", "--decision", "1")
    assert bad.returncode == 2 and "no game 9" in bad.stderr
    bad = run("bot", "ask", TEE, transcript, "--decision", "100000")
    assert bad.returncode == 2 and "decisions of this seat, not 100000" in bad.stderr
    bad = run("bot", "ask", TEE, transcript, "--decision", "1", "--seat", "1")
    assert bad.returncode == 2 and "seat 0's, not seat 1's" in bad.stderr
