"""People whose connection drops: killed mid-turn, they join again with the same token and
find the game where it was; away too long, a built-in stands in and hands the seat back; the
server itself stopped and resumed, their client joins it again by itself."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
from pathlib import Path

import pexpect
from net_helpers import CANASTA, PROMPT, TABLE, WAIT, Raw, Served, choose, person, record_of, screen, serve

from canasta_cli.core import CLASSIC

RULES = CLASSIC.with_options(max_hands=1)


def _hand(text: str) -> str:
    return next(ln for ln in text.splitlines() if ln.startswith("Your hand"))


def _decision(child: pexpect.spawn) -> bool:
    """The next table and prompt (True), or the end of the game (False)."""
    i = int(child.expect([TABLE, "Game over"]))
    if i == 0:
        child.expect(PROMPT)
    return i == 0


def _play_out(child: pexpect.spawn, at_prompt: bool = True) -> int:
    """Play to the end of the game (from the prompt shown, or from the next one)."""
    turns = 0
    if not at_prompt and not _decision(child):
        return 0
    while True:
        child.sendline(choose(child))
        turns += 1
        assert turns < 500
        if not _decision(child):
            return turns


def test_killed_mid_turn_rejoins_and_finishes(tmp_path: Path) -> None:
    proc, tokens, address = serve("--seed", "11", "--set", "max_hands=1", "--save-dir",
                                  str(tmp_path), "--seat", "remote:ana", "--seat",
                                  "builtin:random", "--seat", "builtin:random", "--seat",
                                  "builtin:random")
    child = person(address, tokens["0"])
    for _ in range(4):
        assert _decision(child)
        child.sendline(choose(child))
    assert _decision(child)
    before = screen(child)
    os.kill(child.pid, signal.SIGKILL)  # at the prompt: the server waits on this turn
    child.expect(pexpect.EOF)
    again = person(address, tokens["0"])
    again.expect("Joined seat 0 as remote:ana. Back at the table.")
    assert _decision(again)
    assert _hand(screen(again)) == _hand(before)  # the same turn, the same hand
    assert "Hand 1 is over" not in screen(again)
    _play_out(again)
    again.expect(pexpect.EOF)
    out, _ = proc.communicate(timeout=WAIT)
    assert proc.returncode == 0, out
    assert "seat 0 (remote:ana) lost their connection" in out
    assert "seat 0 (remote:ana) is back" in out and "joined 2 time(s)" in out
    lines = record_of(next(tmp_path.glob("*.jsonl")))
    assert {ln["by"] for ln in lines if ln["type"] == "move" and ln["seat"] == 0} == {"human"}
    assert lines[-1]["reason"] == "hand_limit"


def test_away_too_long_a_builtin_stands_in_and_hands_back(tmp_path: Path) -> None:
    served = Served(["remote:ana", "remote", "builtin:random", "builtin:random"], RULES, 9,
                    tmp_path, away_s=0.3)
    watcher = Raw(served.port, served.spectator, "watch")
    hold, held, go = threading.Event(), threading.Event(), threading.Event()

    def bot() -> None:
        raw = Raw(served.port, served.token(1))
        while (msg := raw.read())["type"] not in ("bye", "EOF"):
            if msg["type"] == "act" and hold.is_set():
                held.set()
                go.wait(WAIT)
                hold.clear()
            raw.answer(msg)

    threading.Thread(target=bot, daemon=True).start()
    where = f"127.0.0.1:{served.port}"
    child = person(where, served.token(0))
    for _ in range(3):
        assert _decision(child)
        child.sendline(choose(child))
    assert _decision(child)
    hold.set()  # seat 1 plays right after seat 0: it waits until seat 0's person is back
    os.kill(child.pid, signal.SIGKILL)
    assert held.wait(WAIT)  # seat 0's turn was played by the stand-in
    again = person(where, served.token(0))
    again.expect("Back at the table")
    go.set()
    _play_out(again, at_prompt=False)
    served.finish()
    notices = []
    while (msg := watcher.read())["type"] != "EOF":
        if msg["type"] == "notice":
            notices.append(msg["text"])
    assert notices == [
        "seat 0 (remote:ana) lost their connection",
        "seat 0 (remote:ana) is away: their turn waits up to 0.3 s",
        "seat 0 (remote:ana) is still away: builtin:normal plays for them until they are back",
        "seat 0 (remote:ana) is back: the stand-in steps aside"], notices
    by = [ln["by"] for ln in served.lines() if ln["type"] == "move" and ln["seat"] == 0]
    first_in = by.index("stand-in")
    back = by.index("human", first_in)
    assert set(by[:first_in]) == {"human"} and set(by[first_in:back]) == {"stand-in"}
    assert set(by[back:]) == {"human"} and len(by) - back >= 2


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_server_restarts_and_the_person_joins_the_resumed_game(tmp_path: Path) -> None:
    port = str(_free_port())
    args = ("--save-dir", str(tmp_path), "--port", port)
    proc, tokens, address = serve("--seed", "13", "--set", "max_hands=1", *args, "--seat",
                                  "remote:ana", "--seat", "builtin:random", "--seat",
                                  "builtin:random", "--seat", "builtin:random")
    child = person(address, tokens["0"])
    for _ in range(3):
        assert _decision(child)
        child.sendline(choose(child))
    assert _decision(child)
    before = screen(child)
    proc.send_signal(signal.SIGTERM)  # the host stops the table
    out, _ = proc.communicate(timeout=WAIT)
    assert proc.returncode == 130, out
    assert "Traceback" not in out
    record = next(tmp_path.glob("*.jsonl"))
    assert f"--resume {record}" in out
    child.expect("the table stopped")
    child.expect("joining again")
    again, tokens2, _ = serve("--resume", str(record), *args)
    assert tokens2 == tokens  # the same tokens: the waiting client gets in again
    child.expect("Back at the table")
    assert _decision(child)
    assert _hand(screen(child)) == _hand(before)
    _play_out(child)
    child.expect(pexpect.EOF)
    out2, _ = again.communicate(timeout=WAIT)
    assert again.returncode == 0, out2
    check = subprocess.run([CANASTA, "replay", "--verify", str(record)],
                           capture_output=True, text=True, timeout=WAIT)
    assert check.stdout.startswith("OK:"), check.stdout + check.stderr
