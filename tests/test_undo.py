"""'undo' at the prompt: melds and additions of the turn are held until the discard, taken
back on request, and never reach the referee, the other seats or the save."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DECK = "seat0: Kh Kd Kc Ah Ad Ac 9h 5c 6d 7s 8c\nstock: 4d 4s 4h\n"


def _play(tmp_path: Path, lines: str, *extra: str) -> tuple[subprocess.CompletedProcess[str],
                                                             Path]:
    deck = tmp_path / "deck.txt"
    deck.write_text(DECK)
    saves = tmp_path / "saves"
    done = subprocess.run([sys.executable, "-m", "canasta_cli.cli", "play", "--deck", str(deck),
                           "--dealer", "3", "--seed", "1", "--save-dir", str(saves),
                           "--level", "normal", *extra], input=lines, capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    return done, next(saves.glob("*.jsonl"))


def _my_moves(record: Path) -> list[str]:
    rows = [json.loads(x) for x in record.read_text().splitlines()]
    return [r["move"] for r in rows if r["type"] == "move" and r["seat"] == 0]


def test_two_melds_taken_back_then_another_play_and_the_save_replays(tmp_path: Path) -> None:
    done, record = _play(tmp_path, "draw\nmeld K K K\nmeld A A A\nundo\nundo\nundo\n"
                         "discard 9\nquit\n")
    out = done.stdout
    assert "Held, not played yet: meld K K K; meld A A A." in out
    assert out.index("took back: meld A A A") < out.index("took back: meld K K K")
    assert "nothing to undo" in out
    assert _my_moves(record) == ["draw", "discard 9"]  # nothing taken back was played
    rows = [json.loads(x) for x in record.read_text().splitlines()]
    assert not any(r["type"] == "event" and r["event"]["type"] == "meld" and
                   r["event"]["seat"] == 0 for r in rows)  # nobody saw the melds
    check = subprocess.run([sys.executable, "-m", "canasta_cli.cli", "replay", "--verify",
                            str(record)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert check.returncode == 0 and check.stdout.startswith("OK:"), check.stdout
    resumed = subprocess.run([sys.executable, "-m", "canasta_cli.cli", "play", "--resume",
                              str(record)], input="quit\n", capture_output=True, text=True,
                             timeout=120, cwd=ROOT)
    hand = next(x for x in resumed.stdout.splitlines() if x.startswith("Your hand"))
    assert "K\u2663 K\u2666 K\u2665" in hand and "A\u2663 A\u2666 A\u2665" in hand


def test_held_melds_are_played_in_order_with_the_discard(tmp_path: Path) -> None:
    done, record = _play(tmp_path, "draw\nmeld K K K\nmeld A A A\ndiscard 9\nquit\n")
    assert "Held, not played yet: meld K K K." in done.stdout
    assert _my_moves(record) == ["draw", "meld K K K", "meld A A A", "discard 9"]


def test_undo_is_off_with_a_bot_program_unless_asked(tmp_path: Path) -> None:
    bot = f"{sys.executable} {ROOT / 'bots' / 'random_bot.py'}"
    seats = ["--seat", "human", "--seat", "builtin:normal", "--seat", "builtin:normal",
             "--seat", bot, "--unboxed"]
    done, record = _play(tmp_path, "draw\nmeld K K K\nundo\nmeld A A A\ndiscard 9\nquit\n",
                         *seats)
    assert "undo is off in this game" in done.stdout, done.stdout[-2000:] + done.stderr
    assert _my_moves(record) == ["draw", "meld K K K", "meld A A A", "discard 9"]


def test_a_line_of_melds_is_held_and_taken_back_whole(tmp_path: Path) -> None:
    """'meld K K K; meld A A A' typed as one line is held like a single meld, and one 'undo'
    takes the whole line back."""
    done, record = _play(tmp_path, "draw\nmeld K K K; meld A A A\nundo\nundo\ndiscard 9\n"
                         "quit\n")
    out = done.stdout
    assert "Held, not played yet: meld K K K; meld A A A." in out, out[-3000:]
    assert "took back: meld K K K; meld A A A" in out
    assert out.index("took back: meld K K K; meld A A A") < out.index("nothing to undo")
    assert _my_moves(record) == ["draw", "discard 9"]


def test_hint_after_held_melds_advises_the_rest_of_the_turn(tmp_path: Path) -> None:
    """After melds held (not played yet), 'hint' advises the turn as they leave it: with
    K K K held (30 points of the 50), A A A is the only way on; with both held, a discard."""
    done, record = _play(tmp_path, "draw\nmeld K K K\nhint\nmeld A A A\nhint\ndiscard 9\n"
                         "quit\n")
    out = done.stdout
    assert "hint looks at the turn before" not in out
    first, second = out.split("(after your held melds)")[1:3]
    assert first.lstrip().startswith("Hint: meld A A A (the only sensible move here)"), first
    advice = second[:second.index("Seat 0, your move>")]
    recommended = advice.split("would play ", 1)[1].split(". Its estimates", 1)[0]
    listed = re.findall(r"^  (\S.*?) +[+-]\d+", advice, re.M)
    assert recommended.startswith("discard") and recommended == listed[0], advice
    assert not any(m.startswith("meld") for m in listed), advice  # both melds are held
    assert _my_moves(record) == ["draw", "meld K K K", "meld A A A", "discard 9"]
