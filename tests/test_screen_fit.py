"""A turn, the help, the rules and the end of a hand on one screen: ``canasta`` in a
pseudo-terminal of 80x24, 60x24 and 120x40, read back through a terminal emulator (pyte)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from helpers import SAME_CANASTA

pyte = pytest.importorskip("pyte")

from test_screen import PROMPT, ROOT, Terminal, Xterm, legal_moves_shown  # noqa: E402

SIZES = [(80, 24), (60, 24), (120, 40)]


def _screen(term: Terminal) -> list[str]:
    return [r.rstrip() for r in term.screen.display]


def _whole_turn_on_screen(term: Terminal) -> None:
    """The header, the scores, the pile, the hand and the prompt are all on the screen."""
    rows = _screen(term)
    text = "\n".join(rows)
    assert re.search(r"^== Hand \d+ - seat 0", text, re.M), text
    for part in ("Scores: ", "Stock ", "Pile ", "Your hand ("):
        assert part in text, (part, text)
    last = max(i for i, r in enumerate(rows) if r)
    assert PROMPT.search(rows[last]), text


def _play_turns(term: Terminal, decisions: int) -> None:
    child = term.child
    for _ in range(decisions):
        _whole_turn_on_screen(term)
        moves = legal_moves_shown(term)
        child.sendline(next((m for m in moves if m in ("draw", "yes")), None)
                       or next(m for m in moves if m.startswith("discard")))
        child.expect(r"== Hand \d+ - seat 0")
        child.expect(PROMPT)


@pytest.mark.parametrize(("columns", "lines"), SIZES)
def test_every_decision_of_a_classic_turn_is_on_one_screen(tmp_path: Path, columns: int,
                                                           lines: int) -> None:
    term = Terminal("--seed", "5", "--save-dir", str(tmp_path), columns=columns, lines=lines)
    term.child.expect(PROMPT)
    first = "\n".join(_screen(term))
    assert "'help'" in first  # the first screen says where to start
    _play_turns(term, 8)
    assert all(len(r) <= columns for r in term.everything())
    term.child.sendline("quit")
    term.child.expect(pexpect.EOF)


@pytest.mark.parametrize(("preset", "columns", "lines"),
                         [("six-player", 80, 24), ("six-player", 60, 24),
                          ("six-player-pairs", 80, 24)])
def test_a_six_player_turn_is_on_one_screen(tmp_path: Path, preset: str, columns: int,
                                            lines: int) -> None:
    term = Terminal("-r", preset, "--seed", "4", "--save-dir", str(tmp_path),
                    columns=columns, lines=lines)
    term.child.expect(PROMPT)
    _play_turns(term, 6)
    text = term.text()
    assert "Left 1" in text and "Partner" not in text.split("Scores:")[-1].split("\n")[0]
    term.child.sendline("quit")
    term.child.expect(pexpect.EOF)


def _through_pages(child: pexpect.spawn, until: object) -> int:
    """Enter at each "Enter for more (k of n)" until ``until``; the pauses passed.  Each
    page's number is waited for: prompt-toolkit may draw a pause's line more than once."""
    page = 1
    while child.expect([until, rf"Enter for more \({page} of"]) == 1:
        child.sendline("")
        page += 1
    return page - 1


def _normalised(text: str) -> list[str]:
    return text.split()


def _whole_path(text: str) -> str:
    """``text`` with the rules file's path whole: in an installed copy it is one word longer
    than a narrow screen, which the terminal breaks itself (no word cut by the program)."""
    from canasta_cli.util.package_data import rules_file
    path = str(rules_file())
    return re.sub("\n?".join(re.escape(c) for c in path), path, text)


@pytest.mark.parametrize(("columns", "lines"), [(80, 24), (60, 24)])
def test_help_wraps_between_words_and_pages(tmp_path: Path, columns: int, lines: int) -> None:
    from canasta_cli.seats.human import help_text
    term = Terminal("--seed", "5", "--save-dir", str(tmp_path), columns=columns, lines=lines)
    child = term.child
    child.expect(PROMPT)
    child.sendline("help")
    child.expect("Commands:")
    _through_pages(child, PROMPT)
    rows = term.everything()
    start = max(i for i, r in enumerate(rows) if r.endswith("> help"))
    end = max(i for i, r in enumerate(rows) if PROMPT.search(r))
    shown = [r for r in rows[start + 1:end] if not r.startswith("-- Enter for more")]
    assert _normalised(_whole_path("\n".join(shown))) == _normalised(help_text())  # none cut
    assert all(len(r) <= columns for r in shown)
    child.sendline("quit")
    child.expect(pexpect.EOF)


def _run_in_pty(args: list[str], columns: int, lines: int = 24) -> list[str]:
    screen = Xterm(columns, lines, history=10_000)
    stream = pyte.Stream(screen)
    env = dict(os.environ, TERM="xterm")
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    child = pexpect.spawn(sys.executable, [*SAME_CANASTA, "-m", "canasta_cli.cli", *args], cwd=ROOT,
                          env=env,
                          encoding="utf-8", timeout=60, dimensions=(lines, columns))
    stream.feed(child.read())
    child.close()
    rows = ["".join(line[x].data if x in line else " " for x in range(columns)).rstrip()
            for line in screen.history.top]
    return rows + [r.rstrip() for r in screen.display]


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_rules_wrap_to_the_terminal_between_words(columns: int) -> None:
    piped = subprocess.run([sys.executable, *SAME_CANASTA, "-m", "canasta_cli.cli", "rules"], cwd=ROOT,
                           capture_output=True, text=True, timeout=60).stdout
    rows = _run_in_pty(["rules"], columns)
    assert _normalised(_whole_path("\n".join(rows))) == _normalised(piped)
    assert max(len(r) for r in piped.splitlines()) > 60  # the pipe gets whole lines
    assert all(len(r) <= columns for r in rows)


@pytest.mark.parametrize(("columns", "lines"), [(80, 24), (120, 40)])
def test_the_end_of_a_short_hand_is_on_one_screen(tmp_path: Path, columns: int,
                                                  lines: int) -> None:
    term = Terminal("--seed", "5", "--save-dir", str(tmp_path), "--set", "max_turns=6",
                    columns=columns, lines=lines)
    child = term.child
    child.expect(PROMPT)
    while True:
        moves = legal_moves_shown(term)
        child.sendline(next((m for m in moves if m in ("draw", "yes")), None)
                       or next(m for m in moves if m.startswith("discard")))
        i = child.expect([r"== Hand \d+ - seat 0", "Hand 1 is over"])
        if i == 0:
            child.expect(PROMPT)
            continue
        pages = _through_pages(child, pexpect.EOF)
        assert pages == 0 or columns == 80  # 40 rows: one page
        break
    last = "\n".join(_screen(term))
    for part in ("Hand 1 is over: turn limit", "Cards left:", "Game total", "Game over",
                 "Replay it with: "):
        assert part in last, (part, last)
