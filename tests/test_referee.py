"""The referee with real subprocess bots: example bots, broken bots, records and shutdown."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from canasta_cli.core import CLASSIC, PRESETS, Ruleset
from canasta_cli.hosting.referee import GameResult, Referee, TimeControl
from canasta_cli.hosting.replay import load_record, replay
from canasta_cli.seats import PolicySeat, SubprocessSeat, builtin_seat
from canasta_cli.seats.base import Seat

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
BROKEN = str(ROOT / "tests" / "bots" / "broken.py")
SHORT = CLASSIC.with_options(max_hands=1)
FAST = TimeControl(startup_ms=3000, decision_ms=300, bank_ms=300, margin_ms=50)


def bot(path: str, *args: str) -> list[str]:
    return [PY, str(ROOT / path), *args]


def broken(mode: str) -> SubprocessSeat:
    return SubprocessSeat([PY, BROKEN, mode], name=f"broken:{mode}")


def _gone(seat: SubprocessSeat) -> bool:
    assert seat.proc is not None
    if seat.proc.poll() is None:
        return False
    try:
        os.killpg(seat.proc.pid, 0)
    except ProcessLookupError:
        return True
    return False


def play(seats: Sequence[Seat], rules: Ruleset = SHORT, tc: TimeControl = FAST,
         tmp: Path | None = None, **kw: Any) -> GameResult:
    ref = Referee(seats, rules, tc, record_dir=tmp, **kw)
    try:
        result = ref.play(1, seed=5)
    finally:
        ref.close()
    return result


def test_example_bots_play_real_games(tmp_path: Path) -> None:
    seats = [SubprocessSeat(bot("bots/random_bot.py")), SubprocessSeat(bot("bots/greedy_bot.py")),
             SubprocessSeat(bot("bots/random_bot.py")), SubprocessSeat(bot("bots/greedy_bot.py"))]
    result = play(seats, CLASSIC.with_options(max_hands=2), TimeControl(), tmp_path)
    assert result.reason in ("hand_limit", "target") and result.hands >= 1
    assert all(s["status"] == "OK" and not s["failures"] for s in result.seats)
    assert all(_gone(s) for s in seats)
    rep = replay(load_record(tmp_path / "game-0001.jsonl"))
    assert rep.ok, rep.mismatches


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_javascript_bot_plays_a_real_game(tmp_path: Path) -> None:
    js = ["node", str(ROOT / "bots" / "random_bot.js")]
    seats = [SubprocessSeat(js), builtin_seat("builtin:random", 1), SubprocessSeat(js),
             builtin_seat("builtin:random", 2)]
    result = play(seats, SHORT, TimeControl(), tmp_path)
    report = result.seats[0]  # the bot is random: the game's length varies
    assert report["status"] == "OK" and report["decisions"] >= 2 and report["default_moves"] == 0
    assert replay(load_record(tmp_path / "game-0001.jsonl")).ok


def test_greedy_beats_random_by_a_wide_margin() -> None:
    seats = [builtin_seat("builtin:greedy", 1), builtin_seat("builtin:random", 2),
             builtin_seat("builtin:greedy", 3), builtin_seat("builtin:random", 4)]
    ref = Referee(seats, CLASSIC)
    wins = 0
    margin = 0
    for g in range(6):
        r = ref.play(g, seed=100 + g)
        wins += r.winner == 0
        margin += r.scores[0] - r.scores[1]
    assert wins == 6 and margin / 6 > 1500


def test_two_and_six_player_games_with_subprocess_bots() -> None:
    for name in ("two-player", "six-player"):
        rules = PRESETS[name].with_options(max_hands=1)
        seats = [SubprocessSeat(bot("bots/random_bot.py")) for _ in range(rules.players)]
        result = play(seats, rules, TimeControl())
        assert all(s["status"] == "OK" for s in result.seats), result.seats


def _others() -> list[PolicySeat]:
    return [builtin_seat("builtin:random", i) for i in (1, 2, 3)]


@pytest.mark.parametrize(("mode", "status", "text"), [
    ("sleeper", "TIMEOUT", "no answer within"),
    ("exiter", "CRASHED", "exited with code 3"),
    ("garbage", "PROTOCOL_ERROR", "not JSON"),
    ("longline", "PROTOCOL_ERROR", "line longer than"),
    ("noread", "TIMEOUT", "no answer within"),
    ("illegal", "ILLEGAL_MOVE", "out of range"),
    ("illegaltext", "ILLEGAL_MOVE", "is not legal"),
    ("noready", "TIMEOUT", "handshake"),
    ("badhello", "PROTOCOL_ERROR", "canasta/9"),
])
def test_broken_bot_gets_a_status_and_the_game_and_record_survive(
        tmp_path: Path, mode: str, status: str, text: str) -> None:
    seat = broken(mode)
    start = time.monotonic()
    result = play([seat, *_others()], tmp=tmp_path)
    report = result.seats[0]
    assert report["status"] == status, report
    assert any(text in e for e in report["errors"]), report["errors"]
    assert result.hands == 1 and result.reason == "hand_limit"
    assert report["default_moves"] > 0
    assert _gone(seat), "the bot process (or its group) outlived the match"
    assert time.monotonic() - start < 60
    lines = load_record(tmp_path / "game-0001.jsonl")
    assert lines[-1]["type"] == "result"
    assert any(ln["type"] == "failure" and ln["status"] == status for ln in lines)
    assert replay(lines).ok


def test_stderr_flood_is_capped_and_the_bot_plays_on(tmp_path: Path) -> None:
    log = tmp_path / "seat0.log"
    seat = SubprocessSeat([PY, BROKEN, "stderr"], stderr_log=log)
    seat.stderr_limit = 200_000
    result = play([seat, *_others()])
    assert result.seats[0]["status"] == "OK"
    text = log.read_bytes()
    assert 200_000 <= len(text) < 201_000 and b"more bytes of stderr dropped" in text


def test_bot_answering_out_of_turn_is_flagged_and_ignored() -> None:
    result = play([broken("outofturn"), *_others()])
    report = result.seats[0]
    assert report["status"] == "PROTOCOL_ERROR"
    assert any("out of turn" in e for e in report["errors"])
    assert report["default_moves"] == 0  # every real answer was used


def test_missing_program_is_a_crash_not_an_exception() -> None:
    seat = SubprocessSeat(["/nonexistent/bot"])
    result = play([seat, *_others()])
    assert result.seats[0]["status"] == "CRASHED"
    assert "cannot start" in result.seats[0]["errors"][0]


def test_forfeit_policy_ends_the_game_against_the_failing_side(tmp_path: Path) -> None:
    result = play([broken("illegal"), *_others()], tmp=tmp_path, on_failure="forfeit")
    assert result.reason == "forfeit" and result.forfeit == 0 and result.winner == 1
    assert load_record(tmp_path / "game-0001.jsonl")[-1]["forfeit"] == 0


def test_bots_learn_nothing_from_arguments_or_environment(tmp_path: Path) -> None:
    spy = tmp_path / "spy.py"
    spy.write_text(
        "import os, sys, json\n"
        "print('SPY', json.dumps([sys.argv, dict(os.environ)]), file=sys.stderr, flush=True)\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello': print(json.dumps({'type': 'ready'}), flush=True)\n"
        "    if m['type'] == 'act': print(json.dumps({'type': 'move', 'id': m['id'],"
        " 'index': 0}), flush=True)\n"
        "    if m['type'] == 'bye': break\n", encoding="utf-8")
    os.environ["CANASTA_SECRET_SEED"] = "12345"
    seat = SubprocessSeat([PY, str(spy)])
    try:
        play([seat, *_others()])
    finally:
        del os.environ["CANASTA_SECRET_SEED"]
    line = next(x for x in seat.stderr_tail().splitlines() if x.startswith("SPY "))
    argv, env = __import__("json").loads(line[4:])
    assert argv == [str(spy)]
    assert "CANASTA_SECRET_SEED" not in env and not any("seed" in k.lower() for k in env)


def test_a_huge_message_to_a_bot_that_never_reads_cannot_block_the_referee() -> None:
    seat = broken("noread")
    seat.start({"type": "hello"}, 3.0)
    start = time.monotonic()
    for _ in range(5):
        seat.send({"type": "event", "blob": "x" * 2_000_000})  # far beyond any pipe buffer
    assert time.monotonic() - start < 300  # a hang guard: a send that blocked never returns
    from canasta_cli.seats import SeatFailure
    with pytest.raises(SeatFailure) as err:
        seat.request({"type": "act", "id": 1}, 0.2)
    assert err.value.status == "TIMEOUT"
    seat.close(grace=0.5)
    assert _gone(seat)


def test_stdout_flood_is_counted_not_stored_and_the_game_survives(tmp_path: Path) -> None:
    seat = broken("flood")
    result = play([seat, *_others()], tmp=tmp_path)
    report = result.seats[0]
    assert report["status"] == "PROTOCOL_ERROR"
    assert any("more messages out of turn" in e for e in report["errors"])
    assert result.hands == 1
    assert (tmp_path / "game-0001.jsonl").stat().st_size < 2_000_000
    assert _gone(seat)


def test_move_objects_are_accepted() -> None:
    result = play([broken("object"), *_others()])
    report = result.seats[0]
    assert report["status"] == "OK" and report["default_moves"] == 0, report


def test_reports_are_per_game_and_a_dead_bot_stays_out_of_later_games(tmp_path: Path) -> None:
    seat = broken("exiter")
    ref = Referee([seat, *_others()], SHORT, FAST, record_dir=tmp_path)
    try:
        first = ref.play(1, seed=5)
        second = ref.play(2, seed=6)
    finally:
        ref.close()
    assert first.seats[0]["status"] == "CRASHED" and first.seats[0]["failures"] == {"CRASHED": 1}
    assert second.seats[0]["status"] == "CRASHED" and second.seats[0]["failures"] == {}
    assert second.seats[0]["default_moves"] == second.seats[0]["decisions"] > 0
    assert second.seats[1]["decisions"] > 0 and second.seats[1]["status"] == "OK"


def test_forfeit_policy_gives_no_retry() -> None:
    from canasta_cli.hosting.referee import Referee as R
    ref = R([broken("illegal"), *_others()], SHORT, FAST, on_failure="forfeit")
    try:
        result = ref.play(1, seed=5)
    finally:
        ref.close()
    assert result.reason == "forfeit" and result.seats[0]["failures"] == {"ILLEGAL_MOVE": 1}


def test_shutdown_escalates_to_kill_and_leaves_no_orphan() -> None:
    seat = broken("stubborn")
    start = time.monotonic()
    play([seat, *_others()])  # play() closes the referee: bye, SIGTERM, SIGKILL
    assert _gone(seat)  # the bot is reaped and nothing is left in its process group
    assert time.monotonic() - start < 30
