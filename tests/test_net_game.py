"""``canasta serve`` with two people at pseudo-terminals (``canasta join``), a bot joined
with ``canasta join --bot``, a built-in player and a spectator: a whole hand over the
loopback, recorded exactly as a local game of the same seed and moves is."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pexpect
from net_helpers import ROOT, TABLE, WAIT, choose, person, record_of, serve

from canasta_cli.core import Ruleset
from canasta_cli.hosting.referee import GameStart, Referee
from canasta_cli.seats.base import Message
from canasta_cli.seats.policy import PolicySeat


def _local_record(lines: list[dict[str, Any]], path: Path) -> list[dict[str, Any]]:
    """The same seed and moves played by a local referee, every seat scripted."""
    header = lines[0]
    rules = Ruleset.from_dict(header["rules"])
    seed = next(ln for ln in lines if ln["type"] == "reveal")["seed"]
    todo: dict[int, list[str]] = {i: [] for i in range(rules.players)}
    for ln in lines:
        if ln["type"] == "move":
            todo[ln["seat"]].append(ln["move"])

    def script(seat: int) -> PolicySeat:
        def policy(msg: Message) -> Message | None:
            if msg.get("type") != "act":
                return None
            return {"type": "move", "id": msg["id"], "move": todo[seat].pop(0)}
        return PolicySeat(f"script{seat}", policy)

    ref = Referee([script(i) for i in range(rules.players)], rules)
    ref.play(1, seed, GameStart(dealer=header["dealer"]), path)
    ref.close()
    return record_of(path)


def _comparable(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A record without what names the seats (and who typed a move) or where files are."""
    out = []
    for ln in lines:
        ln = dict(ln)
        if ln["type"] == "header":
            ln.pop("seats")
            ln.pop("secret", None)
        elif ln["type"] == "move":
            ln.pop("by")
        elif ln["type"] == "result":
            ln.pop("seats")
            ln.pop("record")
        out.append(ln)
    return out


def test_two_people_a_remote_bot_and_a_builtin_play_a_hand(tmp_path: Path) -> None:
    proc, tokens, address = serve(
        "--seed", "21", "--set", "max_hands=1", "--save-dir", str(tmp_path),
        "--seat", "remote:ana", "--seat", "remote:botty", "--seat", "remote:bo",
        "--seat", "builtin:random")
    watcher = subprocess.Popen([sys.executable, "-m", "canasta_cli.cli", "join", address,
                                "--token", tokens["watch"], "--watch"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert watcher.stdout is not None
    assert watcher.stdout.readline().startswith("Watching")
    bot = subprocess.Popen([sys.executable, "-m", "canasta_cli.cli", "join", address,
                            "--token", tokens["1"], "--bot",
                            f"{sys.executable} bots/random_bot.py"], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    people = {0: person(address, tokens["0"]), 2: person(address, tokens["2"])}
    for child in people.values():
        child.expect("Joined seat")
    typed = {0: 0, 2: 0}
    over: set[int] = set()
    rounds = 0
    while len(over) < 2:
        rounds += 1
        assert rounds < 20000, "the hand did not end"
        for seat, child in people.items():
            if seat in over:
                continue
            i = child.expect([TABLE, "Game over", pexpect.EOF, pexpect.TIMEOUT], timeout=0.02)
            if i == 0:
                child.expect(r"(your move|Answer yes or no)>")
                child.sendline(choose(child))
                typed[seat] += 1
            elif i in (1, 2):
                over.add(seat)
    for child in people.values():
        child.expect("the table closed")
        child.expect(pexpect.EOF)
    out, _ = proc.communicate(timeout=WAIT)
    assert proc.returncode == 0, out
    assert "Traceback" not in out, out
    seen, _ = watcher.communicate(timeout=WAIT)
    bot_out, _ = bot.communicate(timeout=WAIT)
    assert "joined seat 1" in bot_out, bot_out
    record = next(tmp_path.glob("*.jsonl"))
    lines = record_of(record)
    by = {(ln["seat"], ln["by"]) for ln in lines if ln["type"] == "move"}
    assert by == {(0, "human"), (1, "bot"), (2, "human"), (3, "bot")}, by
    assert sum(1 for ln in lines if ln["type"] == "move" and ln["seat"] in (0, 2)) == \
        typed[0] + typed[2] > 10
    result = lines[-1]
    assert result["type"] == "result" and result["reason"] == "hand_limit"
    assert all(s["status"] == "OK" for s in result["seats"]), result["seats"]
    assert _comparable(lines) == _comparable(_local_record(lines, tmp_path / "local.jsonl"))
    check = subprocess.run([sys.executable, "-m", "canasta_cli.cli", "replay", "--verify",
                            str(record)], capture_output=True, text=True, timeout=WAIT)
    assert check.stdout.startswith("OK:"), check.stdout
    # The spectator saw the whole hand, in public: no dealt hand, no drawn card named.
    assert "== Game 1:" in seen and "== Game over (hand_limit)" in seen, seen
    assert "draws a card" in seen and " is dealt 11 cards" in seen
    assert "is dealt" not in seen.replace("is dealt 11 cards", "")
    assert re.search(r"upcard \S*[♣♦♥♠★]", seen), seen  # cards as the table writes them
    assert "network round trip median" in out and "a person, joined 1 time(s)" in out


def test_a_match_at_a_table_keeps_the_remote_bot_for_every_game(tmp_path: Path) -> None:
    proc, tokens, address = serve("--games", "2", "--seed", "30", "--set", "max_hands=1",
                                  "--save-dir", str(tmp_path), "--seat", "remote", "--seat",
                                  "builtin:random", "--seat", "builtin:random", "--seat",
                                  "builtin:random")
    bot = subprocess.run([sys.executable, "-m", "canasta_cli.cli", "join", address, "--token",
                          tokens["0"], "--bot", f"{sys.executable} bots/random_bot.py"],
                         cwd=ROOT, capture_output=True, text=True, timeout=WAIT)
    assert bot.returncode == 0, bot.stderr
    out, _ = proc.communicate(timeout=WAIT)
    assert "Game 1 over" in out and "Game 2 over" in out, out
    records = sorted(tmp_path.glob("*.jsonl"))
    assert len(records) == 2
    for record in records:
        lines = record_of(record)
        assert lines[-1]["seats"][0]["status"] == "OK" and lines[-1]["reason"] == "hand_limit"
        assert re.search(rf"\nReplay it with: \S+ replay {re.escape(str(record))}\n", out), out
