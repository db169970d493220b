"""Hostile bots against the referee: every attack becomes a seat status with a short reason,
every game ends with a result line, records stay small, and no process outlives the referee.

The bots are real subprocesses (tests/bots/hostile.py).  Nothing here depends on timing luck:
time controls are generous where a bot answers, and bots that must time out sleep far past
their whole budget.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from canasta_cli.core import CLASSIC
from canasta_cli.hosting.referee import Referee, TimeControl
from canasta_cli.hosting.replay import load_record, replay
from canasta_cli.seats import SubprocessSeat, builtin_seat
from canasta_cli.seats.base import Seat
from canasta_cli.seats.transcript import TranscriptSeat

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = str(ROOT / "tests" / "bots" / "hostile.py")
SHORT = CLASSIC.with_options(max_hands=1)
# Where the bot answers, time is no part of the test: budgets far beyond any machine's load
# (a bot that floods 2 MB of messages before its answer costs the referee seconds to read
# when both cores are busy).  Only bots that must time out get short budgets, and they sleep
# far past them (a sleep never ends early).
ROOMY = TimeControl(startup_ms=60_000, decision_ms=30_000, bank_ms=60_000, margin_ms=50)
HANG_GUARD_S = 300  # a test that takes longer hangs: it says nothing about speed
TIGHT = TimeControl(startup_ms=1500, decision_ms=400, bank_ms=400, margin_ms=50)


def hostile(mode: str, pidfile: Path | None = None) -> SubprocessSeat:
    argv = [sys.executable, HOSTILE, mode] + ([str(pidfile)] if pidfile else [])
    return SubprocessSeat(argv, name=f"hostile:{mode}")


def running(pid: int) -> bool:
    """Is ``pid`` a live process (a zombie waiting to be reaped does not count)?"""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def left_running(marker: Path, wait: float = 10.0) -> list[int]:
    """Processes whose command line names ``marker`` (the hostile bots name their pid file,
    and so do their children) still running once the kernel has had ``wait`` seconds to end
    them (killing is asynchronous; a correct referee leaves none, so this returns at once).
    Bots see their own /proc, so their pids are read from the referee's."""
    deadline = time.monotonic() + wait
    while True:
        alive = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/cmdline", "rb") as f:
                        if str(marker).encode() in f.read() and running(int(entry)):
                            alive.append(int(entry))
                except OSError:
                    continue
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def others() -> list[Seat]:
    return [builtin_seat("builtin:random", i) for i in (1, 2, 3)]


# mode, status, words in the first reason, whether every decision was the bot's own (the
# attack gets a retry and the bot then answers properly) or the bot is out (default moves)
CASES = [
    ("deep", "PROTOCOL_ERROR", "nested too deeply", True),
    ("deep-ok", "PROTOCOL_ERROR", "nested too deeply", True),
    ("bigint", "PROTOCOL_ERROR", "not valid JSON", True),
    ("bigint-under-limit", "ILLEGAL_MOVE", "of 4000 digits", True),
    ("bigid", "PROTOCOL_ERROR", "not valid JSON", True),
    ("float300", "ILLEGAL_MOVE", "'naturals' must be a whole number", True),
    ("inf", "ILLEGAL_MOVE", "'naturals' must be a whole number", True),
    ("nan", "PROTOCOL_ERROR", "NaN is not a JSON number", True),
    ("hugecount", "ILLEGAL_MOVE", "from 0 to 8, got \"100000000\"", True),
    ("negative", "ILLEGAL_MOVE", "'naturals' must be a whole number", True),
    ("boolcount", "ILLEGAL_MOVE", "'naturals' must be a whole number", True),
    ("strcount", "ILLEGAL_MOVE", "'naturals' must be a whole number", True),
    ("listrank", "ILLEGAL_MOVE", "'rank' must be a card rank", True),
    ("floatindex", "PROTOCOL_ERROR", "'index' must be a whole number", True),
    ("megatext", "PROTOCOL_ERROR", "(1000005 characters)", True),
    ("megaobject", "PROTOCOL_ERROR", "(1000000 characters)", True),
    ("megaaction", "ILLEGAL_MOVE", "needs 'text', or 'action'", True),
    ("nonewline", "PROTOCOL_ERROR", "line longer than", False),
    ("both", "PROTOCOL_ERROR", "'index' or 'move', not both", True),
    ("badutf8", "PROTOCOL_ERROR", "not valid UTF-8", True),
    ("nul", "ILLEGAL_MOVE", "cannot read move", True),
    ("escape-codes", "ILLEGAL_MOVE", "cannot read move", True),
    ("stray", "PROTOCOL_ERROR", "out of turn", True),
    ("future", "PROTOCOL_ERROR", "never sent", True),
    ("flood-tiny", "PROTOCOL_ERROR", "out of turn", True),
    ("early", "PROTOCOL_ERROR", "out of turn", True),
    ("duplicate", "OK", "", True),
    ("closestdout", "CRASHED", "closed its output", False),
    ("sigsegv", "CRASHED", "killed by SIGSEGV", False),
    ("sigkill", "CRASHED", "killed by SIGKILL", False),
    ("crash-handshake", "CRASHED", "handshake: the bot exited with code 4", False),
    ("garbage-ready", "PROTOCOL_ERROR", "handshake: not JSON", False),
    ("deep-ready", "PROTOCOL_ERROR", "handshake: JSON nested too deeply", False),
    ("escape", "OK", "", True),
    ("escape-stubborn", "OK", "", True),
]


@pytest.mark.parametrize(("mode", "status", "words", "all_answers_used"), CASES,
                         ids=[c[0] for c in CASES])
def test_hostile_bot_gets_a_status_and_breaks_nothing(
        tmp_path: Path, mode: str, status: str, words: str, all_answers_used: bool) -> None:
    pidfile = tmp_path / "pids"
    seat = hostile(mode, pidfile)
    start = time.monotonic()
    ref = Referee([seat, *others()], SHORT, ROOMY, record_dir=tmp_path)
    try:
        result = ref.play(1, seed=5)
    finally:
        ref.close()
    elapsed = time.monotonic() - start
    report = result.seats[0]
    budget = ROOMY.decision_ms + ROOMY.bank_ms + ROOMY.margin_ms
    assert max(ref.round_trips_ms, default=0.0) <= budget + 250  # what the reply held cost nothing
    assert report["status"] == status, report
    assert all(words in e for e in report["errors"][:1]) if words else not report["errors"]
    assert all(len(e) < 400 and "\x1b" not in e and "b'" not in e for e in report["errors"])
    if all_answers_used:
        assert report["default_moves"] == 0, report
    else:
        assert report["default_moves"] > 0, report
    assert result.hands == 1 and result.reason == "hand_limit"
    record = tmp_path / "game-0001.jsonl"
    assert record.stat().st_size < 300_000
    lines = load_record(record)
    assert lines[-1]["type"] == "result"
    assert replay(lines).ok
    assert elapsed < HANG_GUARD_S
    assert left_running(pidfile) == []


def test_a_closed_input_is_a_crash_at_once_not_after_the_budget(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    slow = TimeControl(startup_ms=60_000, decision_ms=100_000, bank_ms=100_000, margin_ms=50)
    start = time.monotonic()
    ref = Referee([hostile("closestdin", pidfile), *others()], SHORT, slow)
    try:
        result = ref.play(1, seed=5)
    finally:
        ref.close()
    assert result.seats[0]["status"] == "CRASHED"
    assert "closed its input" in result.seats[0]["errors"][0]
    assert time.monotonic() - start < 60  # far less than one 200 s budget
    assert left_running(pidfile) == []


def test_a_bot_stuck_at_the_handshake_times_out_and_is_ended(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    ref = Referee([hostile("hang-handshake", pidfile), *others()], SHORT, TIGHT)
    try:
        result = ref.play(1, seed=5)
    finally:
        ref.close()
    assert result.seats[0]["status"] == "TIMEOUT"
    assert result.seats[0]["failures"] == {"TIMEOUT": 1}
    assert "handshake" in result.seats[0]["errors"][0]
    assert left_running(pidfile, wait=5) == []


def test_a_line_never_finished_is_a_timeout(tmp_path: Path) -> None:
    ref = Referee([hostile("partial"), *others()], SHORT, TIGHT, record_dir=tmp_path)
    try:
        result = ref.play(1, seed=5)
    finally:
        ref.close()
    assert result.seats[0]["status"] == "TIMEOUT"
    assert load_record(tmp_path / "game-0001.jsonl")[-1]["type"] == "result"


def test_after_a_timeout_the_bot_still_hears_the_game_and_its_late_reply_costs_nothing(
        tmp_path: Path) -> None:
    """The late bot sleeps past its whole budget on its first request, then answers it (and
    every later request) twice.  The rest of game 1 is still sent to it; game 2 of the same
    match, and a game under a new referee (as in a tournament), count nothing against it."""
    tc = TimeControl(startup_ms=5000, decision_ms=300, bank_ms=300, margin_ms=50)
    inner = hostile("late")
    seat = TranscriptSeat(inner, tmp_path / "seat0.jsonl")
    ref = Referee([seat, *others()], SHORT, tc, record_dir=tmp_path)
    first = ref.play(1, seed=5)
    roomy = Referee([seat, *others()], SHORT, ROOMY, record_dir=tmp_path / "b")
    try:
        second = roomy.play(2, seed=6)
        third = roomy.play(3, seed=7)
    finally:
        roomy.close()
    assert first.seats[0]["status"] == "TIMEOUT"
    talk = [json.loads(line) for line in (tmp_path / "seat0.jsonl").read_text().splitlines()]
    sent = [t["msg"] for t in talk if t["from"] == "referee"]
    game1 = [m for m in sent if m.get("game") == 1 or m.get("type") == "error"]
    timed_out = next(i for i, m in enumerate(game1) if m["type"] == "error")
    assert game1[timed_out]["retry"] is False and game1[timed_out]["code"] == "TIMEOUT"
    after = [m["type"] for m in game1[timed_out + 1:]]
    assert "event" in after and after[-1] == "game_end"
    for result in (second, third):
        rep = result.seats[0]
        assert rep["status"] == "OK" and rep["failures"] == {} and rep["default_moves"] == 0, rep
    assert second.seats[0]["late_replies"] >= 1
    record = load_record(tmp_path / "b" / "game-0002.jsonl")
    assert any(ln["type"] == "late" for ln in record)
    assert not any(ln["type"] == "failure" for ln in record)


def test_a_bot_that_never_reads_is_dropped_when_its_backlog_is_too_big() -> None:
    seat = SubprocessSeat([sys.executable, HOSTILE, "hang-handshake"])
    seat.pending_limit = 1 << 20
    from canasta_cli.seats import SeatFailure
    with pytest.raises(SeatFailure):
        seat.start({"type": "hello"}, 0.3)  # it never answers: the seat is out
    seat = SubprocessSeat([sys.executable, str(ROOT / "tests" / "bots" / "broken.py"), "noread"])
    seat.pending_limit = 1 << 20
    seat.start({"type": "hello"}, 5.0)
    start = time.monotonic()
    for _ in range(20):
        seat.send({"type": "event", "blob": "x" * 200_000})
    assert time.monotonic() - start < HANG_GUARD_S  # a send that blocked would never return
    assert not seat.alive
    with pytest.raises(SeatFailure) as err:
        seat.request({"type": "act", "id": 1}, 1.0)
    assert err.value.status == "TIMEOUT" and "stopped reading its input" in err.value.reason
    seat.close()


def test_request_ids_never_repeat_for_a_reused_bot() -> None:
    seat = hostile("duplicate")
    a = Referee([seat, *others()], SHORT, ROOMY)
    a.play(1, seed=5)
    first_last = seat.last_request
    b = Referee([seat, *others()], SHORT, ROOMY)
    try:
        b.play(2, seed=6)
    finally:
        b.close()
    assert first_last > 0 and seat.last_request > first_last
    assert b._request > first_last


def test_no_bot_text_reaches_the_console_or_record_unquoted(tmp_path: Path) -> None:
    seat = hostile("escape-codes")
    ref = Referee([seat, *others()], SHORT, ROOMY, record_dir=tmp_path)
    try:
        ref.play(1, seed=5)
    finally:
        ref.close()
    text = (tmp_path / "game-0001.jsonl").read_text()
    assert "\\u001b" in text and "\x1b" not in text


BOT_CHECK_EXTRA = [("hang-handshake", "TIMEOUT"), ("partial", "TIMEOUT"),
                   ("closestdin", "closed its input"), ("late", "late reply")]


@pytest.mark.parametrize(("mode", "words"),
                         [(c[0], (c[2] or "late reply").removeprefix("handshake: "))
                          for c in CASES if c[0] not in ("escape", "escape-stubborn")]
                         + BOT_CHECK_EXTRA)
def test_bot_check_names_what_each_hostile_bot_got_wrong(tmp_path: Path, mode: str,
                                                        words: str) -> None:
    from canasta_cli.botdev.check import run_checks
    pidfile = tmp_path / "pids"
    start = time.monotonic()
    # Bots that must time out sleep far past 0.5 s; the others answer, given all the time
    # a loaded machine needs.
    timeout = 0.5 if mode in dict(BOT_CHECK_EXTRA) else 30.0
    checks = run_checks(f"{sys.executable} {HOSTILE} {mode} {pidfile}", timeout=timeout)
    failed = [c for c in checks if not c.passed]
    assert failed, [(c.name, c.detail) for c in checks]
    assert any(words in c.detail for c in failed), [(c.name, c.detail) for c in failed]
    assert all(len(c.detail) < 600 for c in checks)
    assert time.monotonic() - start < HANG_GUARD_S
    assert left_running(pidfile) == []


def test_bot_check_on_the_command_line_prints_no_traceback(tmp_path: Path) -> None:
    import subprocess
    canasta = Path(sys.executable).parent / "canasta"
    for mode in ("deep", "bigint", "megatext", "sigkill"):
        done = subprocess.run([str(canasta), "bot", "check", f"{sys.executable} {HOSTILE} {mode}",
                               "--timeout-ms", "1000"], capture_output=True, text=True,
                              timeout=120, check=False)
        assert done.returncode == 3, done
        assert "Traceback" not in done.stdout + done.stderr
        assert "FAIL" in done.stdout and " failed" in done.stdout.splitlines()[-1]


@pytest.mark.parametrize("mode", ["hang-handshake", "crash-handshake", "garbage-ready"])
def test_tournament_counts_handshake_failures_and_leaves_no_process(tmp_path: Path,
                                                                   mode: str) -> None:
    from canasta_cli.tournament.runner import InlineExecutor, TournamentPlan, run_tournament
    pidfile = tmp_path / "pids"
    bots = {"bad": f"{sys.executable} {HOSTILE} {mode} {pidfile}", "rnd": "builtin:random"}
    tc = TimeControl(startup_ms=400, decision_ms=500, bank_ms=500, margin_ms=50)
    executor = InlineExecutor()
    try:
        state = run_tournament(TournamentPlan(bots, "round-robin", 2, SHORT, 1, tmp_path / "out",
                                              time_control=tc), executor)
    finally:
        executor.close()
    rows = [json.loads(x) for x in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    assert len(rows) == len(state.rows) == 4
    for row in rows:
        counted = sum(sum(f.values()) for f, name in zip(row["failures"], row["seating"],
                                                         strict=True) if name == "bad")
        assert counted >= 1, row  # every game tried a fresh process, and it failed
    assert left_running(pidfile) == []


@pytest.mark.skipif(not sys.platform.startswith("linux") or not shutil.which("unshare"),
                    reason="PID namespaces need Linux and util-linux")
def test_bots_are_contained_in_namespaces_here() -> None:
    """Where the tools exist, containment must not silently fall back to process groups."""
    from canasta_cli.seats.box import containment
    assert containment() == "pid-namespace"
