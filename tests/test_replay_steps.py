"""``replay --step`` by player turn (``--each-event`` for every event), ``demo --step`` with
the table, and the replay of your own unfinished save from your own seat."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from canasta_cli.__main__ import app

ROOT = Path(__file__).resolve().parent.parent
PAUSE = "[Enter: next step, q: quit]"


def _record(tmp_path: Path) -> Path:
    rec = tmp_path / "rec"
    done = CliRunner().invoke(app, ["match", "--seat", "builtin:greedy", "--seat",
                                    "builtin:random", "--seat", "builtin:greedy", "--seat",
                                    "builtin:random", "--set", "max_hands=1", "--seed", "3",
                                    "--record", str(rec)])
    assert done.exit_code == 0, done.output
    return rec / "game-0001.jsonl"


def test_replay_step_waits_once_per_turn_and_each_event_once_per_event(tmp_path: Path) -> None:
    record = _record(tmp_path)
    by_turn = CliRunner().invoke(app, ["replay", "--step", str(record)], input="\n" * 5 + "q\n")
    shown = by_turn.output.split(PAUSE)
    assert len(shown) == 7  # six Enters and the q: seven pauses
    for part in shown[1:-1]:  # between two pauses: one player's whole turn
        movers = {line.split(":")[0] for line in part.splitlines() if line.startswith("-->")}
        assert len(movers) == 1 and "discard" in part, part
    each = CliRunner().invoke(app, ["replay", "--step", "--each-event", str(record)],
                              input="\n" * 3 + "q\n")
    parts = each.output.split(PAUSE)
    assert len(parts) == 5 and all(sum(line.startswith("    ") for line in p.splitlines()) == 1
                                   for p in parts[1:-1])


def test_demo_step_shows_the_table_of_the_player_to_act() -> None:
    result = CliRunner().invoke(app, ["demo", "--seed", "3", "--step"], input="\nq\n")
    assert result.exit_code == 0, result.output
    assert "The table as seat 1 sees it:" in result.output
    assert "== Hand 1 - seat 1" in result.output and "Your hand (" in result.output


def test_your_unfinished_save_replays_from_your_seat_only(tmp_path: Path) -> None:
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "d"), XDG_STATE_HOME=str(tmp_path / "s"))
    subprocess.run([sys.executable, "-m", "canasta_cli.cli", "play", "--seed", "5", "--level",
                    "normal"], input="draw\nquit\n", capture_output=True, text=True,
                   timeout=120, cwd=ROOT, env=env, check=True)
    save = next((tmp_path / "d" / "canasta" / "games").glob("*.jsonl"))
    rows = [json.loads(x) for x in save.read_text().splitlines()]
    assert rows[0]["seats"][0] == "human"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "canasta_cli.cli", "replay", *args,
                               str(save)], capture_output=True, text=True, timeout=120,
                              cwd=ROOT, env=env)
    mine = run()
    assert mine.returncode == 0, mine.stderr
    dealt = [x for x in mine.stdout.splitlines() if " is dealt " in x]
    assert "seat 0 is dealt 11 cards" not in mine.stdout and len(dealt) == 4
    assert sum(x.endswith("is dealt 11 cards") for x in dealt) == 3  # the others stay hidden
    other = run("--seat", "1")
    assert other.returncode == 2 and "only from its player's own seat (--seat 0)" in other.stderr
