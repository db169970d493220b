"""The end of a hand at 60x24 and with six players at 80x24, and the one Enter between two
hands of a hot-seat game: ``canasta play`` in a pseudo-terminal read through pyte."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import pexpect
import pytest

pyte = pytest.importorskip("pyte")

from test_screen import PROMPT, Terminal, legal_moves_shown  # noqa: E402

MORE = re.compile(r"Enter for more \((\d+) of (\d+)\)")
HANDED = re.compile(r"Hand 2: seat \d \(human:(Ann|Bob)\) plays first: press Enter")
TURN = re.compile(r"press Enter when nobody else can see")


def _play(term: Terminal, decisions: int = 300) -> None:
    """Draw and throw the first discard listed until the hand is over."""
    child = term.child
    child.expect(PROMPT)
    for _ in range(decisions):
        moves = legal_moves_shown(term)
        child.sendline(next((m for m in moves if m in ("draw", "yes")), None)
                       or next(m for m in moves if m.startswith("discard")))
        if child.expect([r"== Hand \d+ - seat 0", r"== Hand 1 is over"]) == 1:
            return
        child.expect(PROMPT)
    raise AssertionError("the hand did not end")


def _through_the_end(term: Terminal, columns: int) -> int:
    """Enter at each "Enter for more" of the hand's end, checking that each page shows the
    hand's header and its pause line whole; the pages passed.  Each page's number is waited
    for: prompt-toolkit draws a pause's line again when Enter is pressed."""
    child = term.child
    pages = 0
    while child.expect([pexpect.EOF, rf"Enter for more \({pages + 1} of \d+\) --"]) == 1:
        pages += 1
        shown = [r.rstrip() for r in term.screen.display]
        assert any(r.startswith("== Hand 1 is over: ") for r in shown), shown  # its top
        assert MORE.search(next(r for r in reversed(shown) if r)), shown  # and its bottom
        child.sendline("")
    last = "\n".join(r.rstrip() for r in term.screen.display)
    for part in ("== Hand 1 is over: ", "Cards left:", "Game total", "Game over"):
        assert part in last, (part, last)
    assert all(len(r) <= columns for r in term.everything())
    return pages


def test_the_end_of_a_hand_at_60x24_fits_or_pages() -> None:
    # A save folder of a fixed, short length: the replay hint printed after the last page is
    # one unwrapped line (to be copied whole) that the terminal folds, so a long folder (the
    # length of pytest's tmp_path varies from run to run) would scroll that page's top away.
    saves = Path(tempfile.mkdtemp(prefix="end60-", dir="/tmp"))
    try:
        term = Terminal("--seed", "5", "--save-dir", str(saves), "--set", "max_turns=12",
                        columns=60, lines=24)
        _the_end_at_60(term)
    finally:
        shutil.rmtree(saves, ignore_errors=True)


def _the_end_at_60(term: Terminal) -> None:
    _play(term)
    _through_the_end(term, 60)
    text = term.text()
    story = text[text.index("== Hand 1 is over: "):]
    for who in ("You", "Left", "Partner", "Right"):
        assert re.search(rf"^  {who} ", story, re.M), who  # every player's cards left


@pytest.mark.parametrize(("preset", "who"), [
    ("six-player", ("You", "Left 1", "Left 2", "Across", "Right 2", "Right 1")),
    ("six-player-pairs", ("You", "Left 1", "Left 2", "Partner", "Right 2", "Right 1"))])
def test_a_six_player_hand_end_at_80x24(tmp_path: Path, preset: str,
                                        who: tuple[str, ...]) -> None:
    term = Terminal("-r", preset, "--seed", "4", "--save-dir", str(tmp_path), "--set",
                    "max_turns=18", columns=80, lines=24)
    _play(term)
    _through_the_end(term, 80)
    text = term.text()
    story = text[text.rindex("== Hand 1 is over: "):]
    for name in who:
        assert re.search(rf"^  {name} ", text[text.index("== Hand 1 is over: "):], re.M), \
            (name, story)


def test_one_enter_between_two_hands_of_a_hot_seat_game(tmp_path: Path) -> None:
    """Ann (seat 0) goes out on her first turn; Bob (seat 2) is the first person to play in
    hand 2: after the summary, one line asks for the screen to be handed over, once, and one
    Enter brings Bob's table."""
    deck = tmp_path / "deck.txt"
    deck.write_text("seat0: Kh Kd Kc Ks Kh Kd Kc Ah Ad Ac As\nstock: 4d 9h\n")
    term = Terminal("--deck", str(deck), "--dealer", "3", "--seed", "1", "--save-dir",
                    str(tmp_path / "saves"), "--set", "max_hands=2", "--seat", "human:Ann",
                    "--seat", "builtin:normal", "--seat", "human:Bob", "--seat",
                    "builtin:normal")
    child = term.child
    child.expect(TURN)
    child.sendline("")
    child.expect(r"== Hand 1 - seat 0 \(human:Ann\) - draw")
    child.expect(PROMPT)
    child.sendline("draw")
    child.expect(r"== Hand 1 - seat 0 \(human:Ann\) - meld")
    child.expect(PROMPT)
    child.sendline("meld K K K K K K K; meld A A A A; discard 9")
    child.expect("== Hand 1 is over: You went out")
    page = 1
    while child.expect([HANDED, rf"Enter for more \({page} of"]) == 1:
        child.sendline("")
        page += 1
    child.expect(r"screen\.")
    shown = [r.rstrip() for r in term.screen.display]
    assert sum(bool(HANDED.search(r)) for r in shown) == 1, shown  # printed once
    assert not any(TURN.search(r) and not HANDED.search(r) for r in shown), shown
    assert any("Game total" in r for r in shown), shown  # under the whole summary
    assert "Bob" in next(r for r in shown if HANDED.search(r))
    # One Enter, and Bob is at the table of hand 2 (a second pause would hold the table back
    # until a second Enter: prompt-toolkit's redraw of the line accepted is not one).
    child.sendline("")
    assert child.expect([r"== Hand 2 - seat 2 \(human:Bob\) - draw",
                         r"Seat \d \(human:\w+\): press Enter", "Press Enter to start"]) == 0
    child.expect(PROMPT)
    shown = [r.rstrip() for r in term.screen.display]
    assert not any(TURN.search(r) or HANDED.search(r) for r in shown), shown
    assert any(r.startswith("Your hand (11)") for r in shown), shown
    child.sendline("quit")
    child.expect(pexpect.EOF)
