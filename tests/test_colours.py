"""Colour and access: --four-color (kept for the next games), --plain in a terminal free of
any control code, NO_COLOR."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parent.parent
PROMPT = re.compile(r"your move>")


def _first_screen(tmp_path: Path, *args: str, no_color: bool = False) -> str:
    env = dict(os.environ, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1",
               XDG_CONFIG_HOME=str(tmp_path / "config"))
    env.pop("NO_COLOR", None)
    if no_color:
        env["NO_COLOR"] = "1"
    child = pexpect.spawn(sys.executable, ["-m", "canasta_cli.cli", "play", "--seed", "5",
                                           "--level", "normal", "--save-dir",
                                           str(tmp_path / "saves"), *args],
                          cwd=ROOT, env=env, encoding="utf-8", timeout=60, dimensions=(24, 80))
    child.expect(PROMPT)
    shown = child.before + (child.after if isinstance(child.after, str) else "")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    return str(shown) + str(child.before or "")


def test_four_colours_are_kept_for_the_next_game_until_two_are_asked(tmp_path: Path) -> None:
    diamond = re.compile("\x1b\\[34m[0-9AKQJ]+\u2666")
    four = _first_screen(tmp_path, "--four-color")
    assert diamond.search(four) and re.search("\x1b\\[32m[0-9AKQJ]+\u2663", four)
    assert diamond.search(_first_screen(tmp_path))  # the saved preference
    two = _first_screen(tmp_path, "--two-color")
    assert not diamond.search(two) and re.search("\x1b\\[31m[0-9AKQJ]+\u2666", two)
    assert not diamond.search(_first_screen(tmp_path))


def test_plain_in_a_terminal_prints_no_control_code(tmp_path: Path) -> None:
    shown = _first_screen(tmp_path, "--plain", "--four-color")
    assert "Your hand (11)" in shown and "\u2663" in shown
    assert "\x1b" not in shown and "\r\n" in shown


def test_no_color_keeps_the_cards_uncoloured(tmp_path: Path) -> None:
    shown = _first_screen(tmp_path, "--four-color", no_color=True)
    assert "Your hand (11)" in shown
    assert not re.search("\x1b\\[3[0-9](;1)?m", shown)
