"""``canasta replay --step --each-event --seat N`` in a pseudo-terminal: one pause per event
(not per move), the seat's table after each move's last event."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pexpect
from typer.testing import CliRunner

from canasta_cli.__main__ import app
from canasta_cli.hosting.records import load_record
from canasta_cli.hosting.replay import replay

ROOT = Path(__file__).resolve().parent.parent
PAUSE = "[Enter: next step, q: quit]"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_each_event_pauses_once_per_event_from_a_seat(tmp_path: Path) -> None:
    done = CliRunner().invoke(app, ["match", "-r", "two-player", "--seat", "builtin:greedy",
                                    "--seat", "builtin:random", "--set", "max_hands=1",
                                    "--set", "max_turns=12", "--seed", "3", "--record",
                                    str(tmp_path)])
    assert done.exit_code == 0, done.output
    record = tmp_path / "game-0001.jsonl"
    steps = replay(load_record(record)).steps
    events = sum(len(evs) for _, _, evs in steps)
    moves = sum(1 for _, move, _ in steps if move is not None)
    assert any(len(evs) > 1 for _, move, evs in steps if move is not None)  # the point
    env = dict(os.environ, TERM="xterm")
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    child = pexpect.spawn(sys.executable, ["-m", "canasta_cli.cli", "replay", "--step",
                                           "--each-event", "--seat", "1", str(record)],
                          cwd=ROOT, env=env, encoding="utf-8", timeout=60,
                          dimensions=(24, 80))
    chunks = []
    while child.expect_exact([PAUSE, pexpect.EOF]) == 0:
        chunks.append(ANSI.sub("", child.before))
        assert len(chunks) <= events, "more pauses than events"
        child.sendline("")
    chunks.append(ANSI.sub("", child.before))
    child.close()
    assert child.exitstatus == 0
    # A pause after every event but the last, and each stretch between two pauses tells one
    # event: a line of four spaces then words (a wrapped event goes on indented further),
    # before the table, if one is shown.
    assert len(chunks) == events
    told = [[x for x in re.split(r"^== Hand", c, flags=re.M)[0].splitlines()
             if re.match(r" {4}\S", x)] for c in chunks]
    assert all(len(t) == 1 for t in told), [t for t in told if len(t) != 1][:3]
    # The seat's table is shown once per step (the deal, each move), after its last event.
    tables = [c for c in chunks if re.search(r"^== Hand \d+ - seat 1", c, re.M)]
    assert len(tables) == len(steps) - 1  # after the deal and each move but the last
    assert sum("--> " in c for c in chunks) == moves
    # Hidden cards stay hidden: seat 1 never sees seat 0's hand dealt.
    assert "Opponent is dealt 15 cards" in "".join(chunks)
