"""What a person really sees: ``canasta play`` in a pseudo-terminal of 80x24 or 60x24, its
output read by a terminal emulator (pyte), scrollback included."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pexpect
import pytest
from helpers import SAME_CANASTA

pyte = pytest.importorskip("pyte")

ROOT = Path(__file__).resolve().parent.parent
PROMPT = re.compile(r"(your move|Answer yes or no)>")


class Xterm(pyte.HistoryScreen):  # type: ignore[misc,name-defined]
    """pyte as the common terminals behave: ``ESC [ 2 J`` moves the screen's rows into the
    scrollback (VTE, and xterm with its default resources), ``ESC [ 3 J`` erases the
    scrollback."""

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        if how == 2:
            for y in range(self.lines):
                self.history.top.append(dict(self.buffer[y]))
        if how == 3:
            self.history.top.clear()
            self.history.bottom.clear()
        super().erase_in_display(how, *args, **kwargs)


class Terminal:
    """A pty running ``canasta play`` with everything it prints fed to an emulator."""

    def __init__(self, *args: str, columns: int = 80, lines: int = 24) -> None:
        # Tests play against the quick 'normal' level (the default 'hard' thinks ~0.4 s a move).
        if "--resume" not in args and "--seat" not in args and "--level" not in args:
            args = (*args, "--level", "normal")
        self.screen = Xterm(columns, lines, history=10_000)
        self.stream = pyte.Stream(self.screen)
        env = dict(os.environ, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
        env.pop("COLUMNS", None)
        env.pop("LINES", None)
        self.child = pexpect.spawn(sys.executable, [*SAME_CANASTA, "-m", "canasta_cli.cli", "play", *args],
                                   cwd=ROOT, env=env, encoding="utf-8", timeout=60,
                                   dimensions=(lines, columns))
        self.child.logfile_read = self

    def write(self, data: str) -> None:  # pexpect's log: every byte the program printed
        self.stream.feed(data)

    def flush(self) -> None:
        pass

    def everything(self) -> list[str]:
        """Every row: the scrollback, then the screen."""
        rows = []
        for line in list(self.screen.history.top):
            rows.append("".join(line[x].data if x in line else " "
                                for x in range(self.screen.columns)).rstrip())
        rows += [r.rstrip() for r in self.screen.display]
        return rows

    def text(self) -> str:
        return "\n".join(self.everything())


def legal_moves_shown(term: Terminal) -> list[str]:
    """Type ``moves`` and read the list back from the emulator (it may wrap)."""
    term.child.sendline("moves")
    term.child.expect("Legal moves: ")
    term.child.expect(PROMPT)
    rows = term.everything()
    start = max(i for i, r in enumerate(rows) if r.startswith("Legal moves:"))
    listing = []
    for r in rows[start:]:
        if r.startswith("Seat ") or r.startswith("Answer"):
            break
        listing.append(r.strip())
    return [m.strip() for m in " ".join(listing).removeprefix("Legal moves:").split(",")]


def test_hot_seat_leaves_nothing_of_the_last_hand_anywhere(tmp_path: Path) -> None:
    term = Terminal("--seed", "5", "--save-dir", str(tmp_path), "--seat", "human:Ann",
                    "--seat", "builtin:greedy", "--seat", "human:Bob", "--seat",
                    "builtin:greedy")
    child = term.child
    child.expect(r"\((human:)?(\w+)\): press Enter when nobody else can see")
    first = child.match.group(2)
    other = "Bob" if first == "Ann" else "Ann"
    child.sendline("")
    child.expect(PROMPT)
    hand = next(r for r in term.everything() if r.startswith("Your hand"))
    child.sendline("draw")
    child.expect(r"meld - you to act")  # the next table (a prompt alone is only a redraw)
    child.expect(PROMPT)
    moves = legal_moves_shown(term)
    child.sendline(next(m for m in moves if m.startswith("discard")))
    child.expect(f"{other}\\): press Enter when nobody else can see")
    assert hand not in term.text()  # not on the screen, not in the scrollback
    assert not any(r.startswith("Your hand") for r in term.everything())
    child.sendline("")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_every_event_of_a_six_player_round_is_reachable_at_80x24(tmp_path: Path) -> None:
    term = Terminal("-r", "six-player", "--seed", "4", "--save-dir", str(tmp_path))
    child = term.child
    child.expect(PROMPT)
    child.sendline("log")
    child.expect("=== hand 1")
    while child.expect([PROMPT, "Enter for more"]) == 1:  # the log a screen at a time
        child.sendline("")
    text = term.text()
    for who in ("You are dealt", "Left 1 is dealt", "Left 2 is dealt", "Across is dealt",
                "Right 2 is dealt", "Right 1 is dealt", "=== hand 1", "upcard"):
        assert who in text, who
    assert all(len(r) <= 80 for r in term.everything())
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_a_refused_line_then_a_legal_one_at_60_columns(tmp_path: Path) -> None:
    term = Terminal("--seed", "5", "--save-dir", str(tmp_path), columns=60)
    child = term.child
    child.expect(PROMPT)
    child.sendline("meld K K K K")
    child.expect("refused")
    child.expect(PROMPT)
    child.sendline("draw")
    child.expect(r"meld - you to act")
    child.expect(PROMPT)
    rows = term.everything()
    assert any("refused:" in r for r in rows)
    hand_rows = [r for r in rows if r.startswith("Your hand")]
    assert len(hand_rows) == 2 and all(len(r) <= 60 for r in rows)
    # the compact layout: the header on one row, the stock and the pile on rows of their own
    assert any(re.fullmatch(r"== Hand 1 - seat 0 - meld - you to act ==", r) for r in rows)
    assert any(re.fullmatch(r"Stock \d+", r) for r in rows)
    assert any(r.startswith("Hands: ") for r in rows)
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_a_bot_seat_that_cannot_start_stops_the_game_at_once(tmp_path: Path) -> None:
    term = Terminal("--seat", "human", "--seat", "/nonexistent/bot", "--seat",
                    "builtin:greedy", "--seat", "builtin:greedy", "--save-dir", str(tmp_path))
    term.child.expect(pexpect.EOF)
    term.child.close()
    assert term.child.exitstatus == 2
    shown = [r for r in term.everything() if r.strip()]
    assert len(shown) <= 2  # one line, wrapped by the terminal at 80 columns
    assert "".join(shown).startswith("error: seat 1 (/nonexistent/bot) could not start")


def test_an_all_or_nothing_opening_line(tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text("seat0: Kh Kd Kc Ah Ad Ac 9h 5c 6d 7s 8c\nstock: 4d 4s 4h\n")
    term = Terminal("--deck", str(deck), "--dealer", "3", "--seed", "1", "--save-dir",
                    str(tmp_path / "saves"))
    child = term.child
    child.expect(PROMPT)
    child.sendline("draw")
    child.expect("meld - you to act")
    child.expect(PROMPT)
    child.sendline("meld K K K; meld Q Q Q; discard 9")
    child.expect("refused: nothing was played")
    child.expect(PROMPT)
    assert "Kings" not in term.text()  # nothing was laid down
    assert "needs 50 to meld" in term.text()
    child.sendline("meld K K K; meld A A A; discard 9")
    child.expect(r"== Hand 1 - seat 0")  # the table of the next decision
    child.expect(PROMPT)
    text = term.text()
    assert "Kings \u00d7" in text and "Aces \u00d7" in text  # the partner may add to them
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_the_end_of_a_hand_tells_its_story_at_80x24(tmp_path: Path) -> None:
    from test_play_pty import next_decision
    term = Terminal("--seed", "5", "--save-dir", str(tmp_path), "--set", "max_hands=1")
    child = term.child
    child.expect(PROMPT)
    for _ in range(200):
        moves = legal_moves_shown(term)
        child.sendline(next((m for m in moves if m in ("draw", "yes")), None)
                       or next(m for m in moves if m.startswith("discard")))
        if next_decision(child) != 0:
            break
    while child.expect(["Game total", "Enter for more"]) == 1:
        assert any("Hand 1 is over: " in r for r in term.screen.display)  # each page's header
        child.sendline("")
    child.expect(pexpect.EOF)
    last = "\n".join(term.screen.display)  # the end on one screen: the header to the verdict
    assert "Hand 1 is over: " in last and "Game total" in last and "Game over" in last
    text = term.text()
    start = text.rindex("Hand 1 is over: ")
    story = text[start:]
    assert re.match(r"Hand 1 is over: (.+ went out|the stock ran out)", story)
    assert story.index("Cards left:") < story.index("Cards melded") < story.index("Game total")
    for who in ("You", "Left", "Partner", "Right"):
        assert re.search(rf"^  {who} ", story, re.M), who  # every player's cards left
    assert all(len(r) <= 80 for r in term.everything())


def test_a_cutthroat_game_from_given_scores_shows_who_plays_with_whom(tmp_path: Path) -> None:
    """`canasta play -r three-player-cutthroat --scores ...`: the table says everyone plays
    alone, and each player's own minimum follows their own score."""
    term = Terminal("-r", "three-player-cutthroat", "--scores", "3000,0,1500", "--seed", "3",
                    "--dealer", "2", "--save-dir", str(tmp_path / "saves"))
    child = term.child
    child.expect("Everyone plays alone until someone takes the pile")
    child.expect(PROMPT)
    text = " ".join(term.text().split())  # the scores line may wrap at 80 columns
    assert "You 3000, needs 120 to meld | Left 0, needs 50 to meld | Right 1500, needs 90" \
        in text
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_hint_shows_the_search_players_choice(tmp_path: Path) -> None:
    """'hint' through the pseudo-terminal: the search player's top moves, from this seat."""
    term = Terminal("--seed", "4", "--dealer", "3", "--save-dir", str(tmp_path / "saves"))
    child = term.child
    child.expect(PROMPT)
    child.sendline("draw")
    child.expect(r"== Hand 1 - seat 0")
    child.expect(PROMPT)
    child.sendline("hint")
    child.expect("Hint: the search player would play")
    child.expect(PROMPT)
    text = term.text()
    hint = text[text.rindex("Hint:"):]
    shown = re.findall(r"^  (\S.*?)\s+[+-]\d+(?:  \(\d+ deals\))?$", hint, re.M)
    assert 1 <= len(shown) <= 3
    legal = legal_moves_shown(term) if "Legal moves" in text else None
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert legal is None or all(m in legal for m in shown)


def test_tab_lists_the_choices_above_the_prompt_at_80x24(tmp_path: Path) -> None:
    """At 80x24 the prompt is on the last row: Tab types on the part the choices share and
    lists them above the prompt, in the screen's width (no menu that has no room)."""
    term = Terminal("--seed", "5", "--save-dir", str(tmp_path), columns=80, lines=24)
    child = term.child
    child.expect(PROMPT)
    child.sendline("draw")
    child.expect(r"meld - you to act")
    child.expect(PROMPT)
    discards = [m for m in legal_moves_shown(term) if m.startswith("discard")]
    assert len(discards) > 2
    child.send("disc\t")
    child.expect(r"discard \S+ {2,}discard \S+")  # the listing, in columns
    child.expect(PROMPT)
    child.expect("discard")  # the prompt redrawn under it, the shared part typed on
    rows = [r for r in (line.rstrip() for line in term.screen.display)]
    at = max(i for i, r in enumerate(rows) if PROMPT.search(r))
    assert rows[at].endswith("your move> discard"), rows
    top = at
    while top > 0 and rows[top - 1].startswith("  discard "):  # the listing, right above
        top -= 1
    listed = [m.strip() for m in "  ".join(rows[top:at]).split("  ") if m.strip()]
    assert sorted(listed) == sorted(discards), rows
    assert all(len(r) <= 80 for r in term.everything())
    child.send(discards[0][len("discard "):] + "\r")  # and the move is played
    child.expect(r"== Hand \d+ - seat 0")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
