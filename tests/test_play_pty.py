"""``canasta play`` end to end through a real pseudo-terminal (pexpect)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

ROOT = Path(__file__).resolve().parent.parent
PROMPT = re.compile(r"(your move|Answer yes or no)>")
TABLE = re.compile(r"== Hand \d+ - seat")  # printed once per decision, before the prompt
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def spawn(*args: str) -> pexpect.spawn:
    # Tests play against the quick 'normal' level (the default 'hard' thinks ~0.4 s a move).
    if "--resume" not in args and "--seat" not in args and "--level" not in args:
        args = (*args, "--level", "normal")
    env = dict(os.environ, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", COLUMNS="140", LINES="60")
    env.pop("NO_COLOR", None)
    return pexpect.spawn(sys.executable, ["-m", "canasta_cli.cli", "play", *args], cwd=ROOT,
                         env=env, encoding="utf-8", timeout=60, dimensions=(60, 140))


def screen(child: pexpect.spawn) -> str:
    return ANSI.sub("", child.before or "")


def next_decision(child: pexpect.spawn) -> int:
    """Wait for the next table and prompt (0), the end of hand 1 (1) or the end (2).  The
    prompt alone is no sign: prompt-toolkit redraws it at every keystroke."""
    i = int(child.expect([TABLE, "Hand 1 is over", pexpect.EOF]))
    if i == 0:
        child.expect(PROMPT)
    return i


def choose(child: pexpect.spawn) -> str:
    """Ask for the legal moves and pick one: draw, else answer yes, else the first discard."""
    child.sendline("moves")
    child.expect(r"Legal moves: ([^\r\n]*)")
    moves = [m.strip() for m in ANSI.sub("", child.match.group(1)).split(",")]
    for wanted in ("draw", "yes"):
        if wanted in moves:
            return wanted
    return next((m for m in moves if m.startswith("discard")), moves[0])


def test_a_whole_hand_typed_at_the_prompt_is_shown_saved_and_replays(tmp_path: Path) -> None:
    child = spawn("--seed", "5", "--save-dir", str(tmp_path), "--set", "max_hands=2")
    child.expect(TABLE)
    child.expect(PROMPT)
    first = screen(child)
    assert "Your hand (11)" in first and "Stock" in first and "Pile" in first
    assert "\u2663" in first or "\u2665" in first  # suit symbols
    assert "Scores: us 0 | them 0" in first and "red threes" in first
    turns = 0
    while True:
        move = choose(child)
        child.sendline(move)
        turns += 1
        i = next_decision(child)
        if i != 0:
            break
        assert turns < 200
    assert i == 1
    child.expect("Game total")
    end = screen(child)
    assert "Cards melded" in end and "Red threes" in end and "Going out" in end
    assert re.match(r": (.+ went out|the stock ran out)", end) and "Cards left:" in end
    child.expect("Press Enter to start hand 2")
    child.sendline("")
    child.expect(r"== Hand 2 - seat 0")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect("Game saved to")
    child.expect(pexpect.EOF)
    record = next(tmp_path.glob("*.jsonl"))
    check = subprocess.run([sys.executable, "-m", "canasta_cli.cli", "replay", "--verify",
                            str(record)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert check.returncode == 0 and check.stdout.startswith("OK:"), check.stdout
    assert turns >= 5
    moves = sum('"by":"human"' in x for x in record.read_text().splitlines())
    assert moves >= turns  # the person's moves are recorded as the person's
    resumed = spawn("--resume", str(record), "--seed", "9")
    resumed.expect("--seed ignored with --resume")
    resumed.expect(r"== Hand 2 - seat 0")
    again = resumed.before
    resumed.expect(PROMPT)
    again += resumed.before
    assert "Game total" not in again and "Press Enter to start hand" not in again
    resumed.sendline("quit")
    resumed.expect(pexpect.EOF)


def _hand_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("Your hand"))


def test_killed_mid_hand_then_resumed_exactly_where_it_stopped(tmp_path: Path) -> None:
    child = spawn("--seed", "11", "--save-dir", str(tmp_path))
    assert next_decision(child) == 0
    for _ in range(6):
        child.sendline(choose(child))
        assert next_decision(child) == 0
    before = screen(child)
    os.kill(child.pid, signal.SIGKILL)
    child.expect(pexpect.EOF)
    record = next(tmp_path.glob("*.jsonl"))
    resumed = spawn("--resume", str(record))
    resumed.expect("Resuming")
    assert next_decision(resumed) == 0
    after = screen(resumed)
    assert _hand_line(after) == _hand_line(before)
    stock = [ln for ln in before.splitlines() if ln.startswith("Stock")][-1]
    assert stock in after
    resumed.sendcontrol("d")  # Ctrl-D saves and leaves
    resumed.expect("Game saved to")
    resumed.expect(pexpect.EOF)


def test_ctrl_c_saves_the_game(tmp_path: Path) -> None:
    child = spawn("--seed", "3", "--save-dir", str(tmp_path))
    child.expect(PROMPT)
    child.sendcontrol("c")
    child.expect("Resume with: .*play --resume")
    child.expect(pexpect.EOF)
    assert len(list(tmp_path.glob("*.jsonl"))) == 1


def test_invalid_move_is_explained_at_the_prompt(tmp_path: Path) -> None:
    child = spawn("--seed", "5", "--save-dir", str(tmp_path))
    child.expect(PROMPT)
    child.sendline("meld K K K K")
    child.expect("refused: .*(not allowed|you hold)")
    child.expect(PROMPT)
    child.sendline("help")  # typed straight after: never glued to the refused line
    child.expect("Commands: help, moves")
    child.sendline("quit")
    child.expect(pexpect.EOF)


@pytest.mark.parametrize("colour", [True, False])
def test_no_color_is_respected(tmp_path: Path, colour: bool) -> None:
    args = ["--seed", "5", "--save-dir", str(tmp_path)] + ([] if colour else ["--no-color"])
    child = spawn(*args)
    child.expect(PROMPT)
    table = child.before[: child.before.find("Your hand") + 200]
    assert ("\x1b[31m" in table) is colour
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_hot_seat_hides_each_hand_until_its_owner_is_ready(tmp_path: Path) -> None:
    child = spawn("--seed", "5", "--save-dir", str(tmp_path), "--seat", "human:Ann",
                  "--seat", "builtin:greedy", "--seat", "human:Bob", "--seat", "builtin:greedy")
    child.expect(r"Seat (\d) \(human:(Ann|Bob)\): press Enter")
    first = child.match.group(2)
    child.sendline("")
    assert next_decision(child) == 0
    child.sendline("draw")
    assert next_decision(child) == 0
    child.sendline(choose(child))
    other = "Bob" if first == "Ann" else "Ann"
    child.expect(rf"Seat \d \(human:{other}\): press Enter")
    assert "Your hand" not in ANSI.sub("", child.before.split("\x1b[2J")[-1])
    child.sendline("")
    assert next_decision(child) == 0
    child.sendline("quit")
    child.expect(pexpect.EOF)


GOING_OUT = "seat0: Kh Kd Kc Ks Kh Kd Kc Ah Ad Ac 9h\nstock: 5d As\n"  # out on the first turn


def test_quit_when_asked_to_press_enter_for_the_next_hand_saves_the_game(tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text(GOING_OUT)
    saves = tmp_path / "saves"
    child = spawn("--deck", str(deck), "--dealer", "3", "--seed", "1", "--save-dir", str(saves))
    child.expect(PROMPT)
    child.sendline("draw")
    assert next_decision(child) == 0
    child.sendline("meld K K K K K K K; meld A A A A; discard 9")
    child.expect("Hand 1 is over")
    child.expect("Press Enter to start hand 2")
    child.sendline("quit")
    child.expect("Game saved to")
    child.expect("Resume with: ")
    child.expect(pexpect.EOF)
    record = next(saves.glob("*.jsonl"))
    resumed = spawn("--resume", str(record))
    resumed.expect(r"== Hand 2 - seat 0")  # the next hand, where the game was left
    resumed.expect(PROMPT)
    resumed.sendline("quit")
    resumed.expect(pexpect.EOF)


def _narrow(*args: str, columns: int = 50) -> pexpect.spawn:
    env = dict(os.environ, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    return pexpect.spawn(sys.executable, ["-m", "canasta_cli.cli", *args], cwd=ROOT, env=env,
                         encoding="utf-8", timeout=60, dimensions=(24, columns))


def _copied(output: str, label: str) -> str:
    """The command after ``label`` on its line, up to the line's end: the program puts no
    newline inside a line to copy (the terminal folds it without one)."""
    text = ANSI.sub("", output).replace("\r\n", "\n")
    return text.split(f"{label} ", 1)[1].split("\n", 1)[0]


def test_commands_to_copy_are_whole_at_a_narrow_terminal_and_run_as_printed(
        tmp_path: Path) -> None:
    """'Resume with:' and 'Replay it with:' name this canasta as it can be run here (python
    -m, not on the PATH) and are never broken by the program at 50 columns."""
    saves = tmp_path / "saves"
    finished = subprocess.run(
        [sys.executable, "-m", "canasta_cli.cli", "play", "--seed", "5", "--seat", "human",
         "--seat", "builtin:normal", "-r", "two-player", "--set", "max_turns=2", "--save-dir",
         str(saves)], input="draw\ndiscard 4\ndiscard 5\ndiscard 6\ndiscard 7\n",
        capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert "Replay it with: " in finished.stdout, finished.stdout[-800:] + finished.stderr
    record = next(saves.glob("*.jsonl"))
    over = _narrow("play", "--resume", str(record))
    over.expect(pexpect.EOF)
    assert "that game is already over" in ANSI.sub("", over.before)
    replay = _copied(over.before, "Replay it with:")
    assert replay.endswith(f" replay {record}") and len(replay) > 50, replay
    shown = subprocess.run(replay, shell=True, capture_output=True, text=True, timeout=120,
                           cwd=tmp_path)
    assert shown.returncode == 0 and "game over" in shown.stdout, shown.stdout + shown.stderr
    child = _narrow("play", "--seed", "3", "--level", "normal", "--save-dir", str(saves))
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    resume = _copied(child.before, "Resume with:")
    assert " play --resume " in resume and len(resume) > 50, resume
    again = subprocess.run(resume, shell=True, input="quit\n", capture_output=True, text=True,
                           timeout=120, cwd=tmp_path)
    assert "Resuming " in again.stdout and "Game saved to" in again.stdout, again.stdout
