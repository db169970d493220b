"""``canasta match``, ``canasta replay`` and ``canasta bot check`` from the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from typer.testing import CliRunner, Result

from canasta_cli.__main__ import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = f"{sys.executable} {ROOT / 'bots' / 'random_bot.py'}"
GREEDY_BOT = f"{sys.executable} {ROOT / 'bots' / 'greedy_bot.py'}"
BROKEN = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'broken.py'}"


def _match(tmp: Path, *extra: str) -> Result:
    return runner.invoke(app, ["match", "-s", RANDOM_BOT, "-s", "builtin:greedy", "-s",
                               RANDOM_BOT, "-s", GREEDY_BOT, "--games", "2", "--seed", "3",
                               "--set", "max_hands=1", "--record", str(tmp), *extra])


def test_match_prints_a_results_table_and_writes_records(tmp_path: Path) -> None:
    result = _match(tmp_path)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "2 games of classic, seeds 3..4"
    assert lines[1].split()[:4] == ["side", "wins", "points", "per"]
    assert sorted(p.name for p in tmp_path.glob("game-*.jsonl")) == ["game-0001.jsonl",
                                                                     "game-0002.jsonl"]


def test_match_json(tmp_path: Path) -> None:
    result = _match(tmp_path, "--json")
    data = json.loads(result.output)
    assert len(data["games"]) == 2 and len(data["sides"]) == 2
    assert sum(s["wins"] for s in data["sides"]) + data["draws"] == 2
    assert all(s["status"] == "OK" for s in data["seat_status"])


def test_match_reports_a_failing_bot(tmp_path: Path) -> None:
    result = runner.invoke(app, ["match", "-s", f"{BROKEN} illegal", "-s", "builtin:random",
                                 "-s", "builtin:random", "-s", "builtin:random",
                                 "--set", "max_hands=1", "--record", str(tmp_path)])
    assert result.exit_code == 3, result.output  # a seat failed
    assert "seat 0" in result.output and "ILLEGAL_MOVE" in result.output


def test_match_needs_one_seat_per_player() -> None:
    result = runner.invoke(app, ["match", "-s", "builtin:random"])
    assert result.exit_code == 2 and "needs 4 seats" in result.output
    result = runner.invoke(app, ["match", "-s", "builtin:nobody", "-s", "builtin:random", "-r",
                                 "two-player"])
    assert result.exit_code == 2 and "unknown built-in player 'nobody'" in result.output


def test_replay_shows_a_game_from_one_seat(tmp_path: Path) -> None:
    _match(tmp_path)
    record = tmp_path / "game-0001.jsonl"
    everyone = runner.invoke(app, ["replay", str(record)]).output
    seat1 = runner.invoke(app, ["replay", str(record), "--seat", "1"]).output
    assert "seat 0 is dealt" in everyone and "seat 0 is dealt 11 cards" in seat1
    assert "--> seat" in seat1 and "=== hand 1 ends" in seat1


def test_replay_verify_accepts_a_true_record_and_catches_a_forged_one(tmp_path: Path) -> None:
    _match(tmp_path)
    record = tmp_path / "game-0001.jsonl"
    ok = runner.invoke(app, ["replay", "--verify", str(record)])
    assert ok.exit_code == 0 and ok.output.startswith("OK:")
    lines = record.read_text(encoding="utf-8").splitlines()
    result = json.loads(lines[-1])
    result["scores"] = [s + 5 for s in result["scores"]]
    lines[-1] = json.dumps(result)
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join(lines) + "\n", encoding="utf-8")
    bad = runner.invoke(app, ["replay", "--verify", str(forged)])
    assert bad.exit_code == 1 and "MISMATCH: recorded scores" in bad.output


def test_replay_of_a_broken_file_is_a_clear_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_text("{not json\n", encoding="utf-8")
    result = runner.invoke(app, ["replay", str(junk)])
    assert result.exit_code == 2 and "not JSON" in result.output
    result = runner.invoke(app, ["replay", str(tmp_path / "none.jsonl")])
    assert result.exit_code == 2 and "cannot read" in result.output


def test_bot_check_passes_the_example_bots() -> None:
    for bot in (RANDOM_BOT, GREEDY_BOT):
        result = runner.invoke(app, ["bot", "check", bot])
        assert result.exit_code == 0, result.output
        assert "0 failed" in result.output
        for name in ("handshake", "frozen pile", "initial meld", "opening by the pile",
                     "going out", "partner's question", "red threes", "stock exhausted",
                     "retry", "unknown fields", "exits on bye"):
            assert name in result.output


def test_bot_check_reports_what_a_broken_bot_gets_wrong() -> None:
    result = runner.invoke(app, ["bot", "check", f"{BROKEN} garbage", "--timeout-ms", "2000"])
    assert result.exit_code == 3
    assert "FAIL  draw or take" in result.output and "not JSON" in result.output
