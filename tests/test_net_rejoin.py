"""People whose connection drops: killed mid-turn, they join again with the same token and
find the game where it was; away too long, a built-in stands in and hands the seat back (its
plays marked as its own in their log, and a hand that ended meanwhile shown to them when they
are back); the server itself stopped and resumed (``--resume FILE``, ``last`` or ``N``),
their client joins it again by itself."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def _stopped(saves: Path, port: str, *args: str) -> tuple[dict[str, str], Path, str]:
    """A table served with a person at seat 0 (spoken by hand), stopped at their first
    decision: its tokens, its save and what it printed."""
    proc, tokens, address = serve("--seed", "17", "--save-dir", str(saves), "--port", port,
                                  *args, "--seat", "remote:ana", "--seat", "builtin:random",
                                  "--seat", "builtin:random", "--seat", "builtin:random")
    ana = Raw(int(port), tokens["0"], "person")
    assert ana.play(stop=lambda m: m["type"] == "act")["type"] == "act"
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=WAIT)
    ana.close()
    assert proc.returncode == 130, out
    return tokens, next(saves.glob("*.jsonl")), out


def _resumed(spec: str, saves: Path, port: str) -> dict[str, str]:
    """``canasta serve --resume SPEC``: the tokens of its join lines (it is stopped while it
    waits for the remote seats: the save is left as it was)."""
    proc, tokens, _ = serve("--resume", spec, "--save-dir", str(saves), "--port", port)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=WAIT)
    return tokens


def test_serve_resume_last_and_n_take_the_table_you_hosted(tmp_path: Path) -> None:
    saves, port = tmp_path / "saves", str(_free_port())
    tokens, record, _ = _stopped(saves, port)
    # A game of canasta play saved after it: the newest save, but not a table's.
    played = subprocess.run([CANASTA, "play", "--seed", "3", "--level", "normal", "--save-dir",
                             str(saves)], input="quit\n", capture_output=True, text=True,
                            timeout=WAIT)
    assert "Game saved to" in played.stdout, played.stdout + played.stderr
    assert _resumed("last", saves, port) == tokens  # the table, not the newer play game
    assert _resumed("2", saves, port) == tokens  # canasta games lists it second
    wrong = subprocess.run([CANASTA, "serve", "--resume", "1", "--save-dir", str(saves)],
                           capture_output=True, text=True, timeout=WAIT)
    assert wrong.returncode == 2 and "a game of canasta play, not of canasta serve" in \
        wrong.stderr, wrong.stderr
    none = subprocess.run([CANASTA, "serve", "--resume", "last", "--save-dir",
                           str(tmp_path / "empty")], capture_output=True, text=True,
                          timeout=WAIT)
    assert none.returncode == 2 and "no unfinished table game" in none.stderr, none.stderr
    assert " games --save-dir " in none.stderr.splitlines()[-1]  # where to look, to copy
    assert record_of(record)[-1]["reason"] == "unfinished"  # the save is as it was


def _hold_seat_1(served: Served, when: Callable[[dict[str, Any]], bool]
                 ) -> tuple[threading.Event, threading.Event]:
    """Seat 1, a bot spoken by hand, that waits at its first request ``when`` says (until
    ``go`` is set): the game stops there while seat 0's person is away."""
    held, go = threading.Event(), threading.Event()

    def bot() -> None:
        raw = Raw(served.port, served.token(1))
        while (msg := raw.read())["type"] not in ("bye", "EOF"):
            if msg["type"] == "act" and not held.is_set() and when(msg):
                held.set()
                go.wait(WAIT)
            raw.answer(msg)

    threading.Thread(target=bot, daemon=True).start()
    return held, go


def test_the_stand_ins_plays_are_marked_in_the_persons_log(tmp_path: Path) -> None:
    served = Served(["remote:ana", "remote", "builtin:random", "builtin:random"], RULES, 9,
                    tmp_path, away_s=0.3)
    hold = threading.Event()
    held, go = _hold_seat_1(served, lambda m: hold.is_set())  # seat 1 plays after seat 0
    where = f"127.0.0.1:{served.port}"
    child = person(where, served.token(0))
    assert _decision(child)
    child.sendline(choose(child))
    assert _decision(child)
    hold.set()
    os.kill(child.pid, signal.SIGKILL)  # at seat 0's prompt: the stand-in plays its turn
    assert held.wait(WAIT)
    again = person(where, served.token(0))
    again.expect("Back at the table")
    go.set()
    assert _decision(again)
    again.sendline("log")  # the hand so far, as this person saw it
    again.expect(r"You (draw|take|discard|meld|add|lay|go)[^\r\n]*\(by the stand-in\)")
    again.sendline("quit")
    again.expect(pexpect.EOF)
    assert served.finish().reason == "hand_limit"
    by = [ln["by"] for ln in served.lines() if ln["type"] == "move" and ln["seat"] == 0]
    assert "stand-in" in by and by[0] == "human"


def test_a_person_back_sees_how_the_hand_they_missed_ended(tmp_path: Path) -> None:
    served = Served(["remote:ana", "remote", "builtin:random", "builtin:random"],
                    CLASSIC.with_options(max_hands=2), 5, tmp_path, away_s=0.3)
    held, go = _hold_seat_1(served, lambda m: m["observation"]["hand_no"] == 2)
    where = f"127.0.0.1:{served.port}"
    child = person(where, served.token(0))
    assert _decision(child)
    os.kill(child.pid, signal.SIGKILL)  # away: the stand-in plays the rest of hand 1
    assert held.wait(WAIT)
    again = person(where, served.token(0))
    again.expect("Back at the table")
    again.expect("While you were away, hand 1 ended:")
    again.expect(r"== Hand 1 is over: ([^\r\n]+) ==")
    again.expect("Game total")  # the scores, as canasta play shows a hand's end
    assert "Hand 2 is over" not in screen(again)
    go.set()
    assert _decision(again)
    assert "Hand 1 is over" not in screen(again)  # shown once
    again.sendline("quit")
    again.expect(pexpect.EOF)
    assert served.finish().reason == "hand_limit"
    ends = [ln for ln in served.lines() if ln["type"] == "event"
            and ln["event"]["type"] == "hand_ended"]
    assert len(ends) == 2
