"""The referee's wait for a quick bot's answer: polled for a few of its usual answers, then
slept for; one slow answer does not end the polling, a bot that keeps answering slowly is not
polled for, and the wait keeps its deadline and statuses whatever the polling does."""

from __future__ import annotations

import sys

from canasta_cli.core import CLASSIC
from canasta_cli.hosting.referee import Referee, TimeControl
from canasta_cli.seats import SubprocessSeat
from canasta_cli.seats.subprocess_seat import SPIN_FLOOR

# Answers at once, but sleeps on every third request, and stops answering after the 12th.
UNEVEN_BOT = (
    "import json, sys, time\n"
    "n = 0\n"
    "for line in sys.stdin:\n"
    "    m = json.loads(line)\n"
    "    if m['type'] == 'hello':\n"
    "        print(json.dumps({'type': 'ready', 'protocol': 'canasta/1'}), flush=True)\n"
    "    elif m['type'] == 'act':\n"
    "        n += 1\n"
    "        if n > 12:\n"
    "            continue\n"
    "        if n % 3 == 0:\n"
    "            time.sleep(0.03)\n"
    "        print(json.dumps({'type': 'move', 'id': m['id'], 'index': 0}), flush=True)\n"
)


def seat(spin_us: int = 300) -> SubprocessSeat:
    return SubprocessSeat([sys.executable, "-c", "pass"], spin_us=spin_us)


def test_the_spin_is_a_few_usual_answers_long_within_its_bounds() -> None:
    s = seat()
    assert s.spin_for() == SPIN_FLOOR  # nothing known yet: the shortest spin
    s.typical = 50e-6
    assert s.spin_for() == 4 * 50e-6
    s.typical = 200e-6
    assert s.spin_for() == s.spin  # never longer than asked
    s.typical = 400e-6
    assert s.spin_for() == 0.0  # usually slower than the spin: not spun for
    assert seat(spin_us=0).spin_for() == 0.0


def test_one_slow_answer_does_not_end_the_spin_but_slow_answers_do() -> None:
    s = seat()
    for _ in range(20):
        s.answered_in(40e-6)
    s.answered_in(5.0)  # preempted for seconds
    assert 0 < s.spin_for() <= s.spin
    for _ in range(3):
        s.answered_in(40e-6)
    for _ in range(30):
        s.answered_in(0.05)
    assert s.spin_for() == 0.0
    assert s.typical <= 2 * s.spin


def test_a_spun_for_bot_keeps_its_deadline_and_statuses() -> None:
    bot = SubprocessSeat([sys.executable, "-c", UNEVEN_BOT], name="uneven", spin_us=300)
    ref = Referee([bot, *(SubprocessSeat([sys.executable, "-c", UNEVEN_BOT], name=f"u{i}",
                                         spin_us=300) for i in range(1, 4))],
                  CLASSIC.with_options(max_hands=1, max_turns=40),
                  TimeControl(decision_ms=400, bank_ms=0))
    ref.start()
    try:
        result = ref.play(1, seed=5)
    finally:
        ref.close()
    rep = ref.reports[0]
    assert rep.decisions > 12 and rep.status == "TIMEOUT"
    assert rep.default_moves == rep.decisions - 12  # its 12 answers played, then defaults
    assert result.reason  # the game went on to its end
