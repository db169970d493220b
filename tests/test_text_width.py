"""The text commands fit the width they are given (``canasta rules``, ``demo``, ``report``,
``games``): a terminal's, or COLUMNS on a pipe; no line is longer, except a path alone or a
line with a command to copy, which is never broken."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import SAME_CANASTA

from canasta_cli.util.package_data import rules_file

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = f"{shlex.quote(sys.executable)} -m canasta_cli.cli"  # program_command() for -m
WIDTHS = [80, 60]


def _canasta(width: int | None, *args: str, home: Path | None = None,
             stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    if width is not None:
        env["COLUMNS"] = str(width)
    if home is not None:
        env.update(XDG_DATA_HOME=str(home / "data"), XDG_STATE_HOME=str(home / "state"))
    done = subprocess.run([sys.executable, *SAME_CANASTA, "-m", "canasta_cli.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def _too_long(text: str, width: int) -> list[str]:
    """The lines longer than ``width``, but for a path alone and a line with a command to
    copy (which stays whole: ``Resume with: canasta play --resume ...``)."""
    return [line for line in text.splitlines() if len(line) > width
            and " " in line.strip() and f"{PROGRAM} " not in line
            and not line.split()[-1].startswith("/")]  # a label and a path to copy


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("preset", ["classic", "six-player-pairs"])
def test_rules_fit_the_width_and_name_the_rules_file(width: int, preset: str) -> None:
    out = _canasta(width, "rules", "-r", preset).stdout
    assert not _too_long(out, width), _too_long(out, width)
    assert out.count("\n") > 30 and f"{rules_file()}" in out
    whole = _canasta(None, "rules", "-r", preset).stdout  # a pipe with no COLUMNS: whole lines
    assert max(len(line) for line in whole.splitlines()) > 100
    assert whole.split() == out.split()  # wrapping changed where lines break, nothing else


@pytest.mark.parametrize("width", WIDTHS)
def test_demo_fits_the_width(width: int) -> None:
    scores = _canasta(width, "demo", "--seed", "3").stdout
    assert "Game over" in scores and not _too_long(scores, width), _too_long(scores, width)
    moves = _canasta(width, "demo", "--seed", "3", "--rules", "six-player", "--set",
                     "max_hands=1", "--delay", "0.0001").stdout
    assert "is dealt" in moves and not _too_long(moves, width), _too_long(moves, width)


def test_games_and_their_resume_command_fit_the_width(tmp_path: Path) -> None:
    saves = tmp_path / "g"
    for seats in (["--seat", "human", "--seat", "builtin:normal", "--seat", "human:Ann",
                   "--seat", "builtin:greedy"], ["--level", "normal"]):
        _canasta(None, "play", "--seed", "8", *seats, "--save-dir", str(saves),
                 home=tmp_path, stdin="draw\nquit\n")
    whole = _canasta(None, "games", "--save-dir", str(saves), home=tmp_path).stdout
    assert max(len(line) for line in whole.splitlines()) > 80  # a pipe: whole lines
    commands = [line[line.index(PROGRAM):] for line in whole.splitlines() if PROGRAM in line]
    assert any(c.startswith(f"{PROGRAM} play --resume ") for c in commands), whole
    for width in WIDTHS:
        out = _canasta(width, "games", "--save-dir", str(saves), home=tmp_path).stdout
        assert not _too_long(out, width), (width, _too_long(out, width))
        assert out.split() == whole.split()  # only where the lines break differs
        for command in commands:  # each command to copy is on one line
            assert any(line.endswith(command) for line in out.splitlines()), (command, out)


def test_a_tournament_report_fits_the_width(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    done = subprocess.run([sys.executable, "-m", "canasta_cli.cli", "tournament", "--bot",
                           "greedy_with_a_long_name=builtin:greedy", "--bot",
                           "random_with_a_long_name=builtin:random", "--games", "2", "--out",
                           str(folder), "--seed", "5", "--concurrency", "1", "--set",
                           "max_hands=1", "--sprt", "--records"], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    for width in WIDTHS:
        out = _canasta(width, "report", str(folder)).stdout
        assert "Elo with its 95% interval" in out and "canasta replay" in out
        assert not _too_long(out, width), (width, _too_long(out, width))
