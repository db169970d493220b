"""When bots hear the news: events wait for a bot's own request unless another player thinks.

A bot that answers at once should not wake every other bot on each move (on two cores they only
compete with it); a bot or a person that thinks lets the others read meanwhile.  The wire form
of a request is written straight from the state, and must be the same bytes as plain JSON."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from canasta_cli.core import CLASSIC, PRESETS, apply, legal_moves, new_game, observation
from canasta_cli.hosting.referee import Referee, TimeControl
from canasta_cli.protocol.messages import ActRequest, _dumps, act_message, encode, observation_wire
from canasta_cli.seats import SubprocessSeat
from canasta_cli.seats.base import Message, Seat
from canasta_cli.seats.transcript import TranscriptSeat

SHORT = CLASSIC.with_options(max_hands=1)

# Answers every request after 50 ms: far beyond the referee's quick wait, however busy the
# machine (a sleep never ends early).
SLOW_BOT = (
    "import json, sys, time\n"
    "for line in sys.stdin:\n"
    "    m = json.loads(line)\n"
    "    if m['type'] == 'hello':\n"
    "        print(json.dumps({'type': 'ready', 'protocol': 'canasta/1'}), flush=True)\n"
    "    elif m['type'] == 'act':\n"
    "        time.sleep(0.05)\n"
    "        print(json.dumps({'type': 'move', 'id': m['id'], 'index': 0}), flush=True)\n"
    "    elif m['type'] == 'bye':\n"
    "        break\n")


class Queueing(Seat):
    """Like a bot on a pipe: what it is sent waits until ``flush`` (or its own request)."""

    def __init__(self, name: str, timed: bool = True) -> None:
        self.name = name
        self.timed = timed
        self.queued: list[Message] = []
        self.delivered: list[Message] = []
        self.events_heard: list[int] = []  # at each request: the events of the game so far
        self.flushes = 0
        self.rng = random.Random(len(name))

    def start(self, hello: Message, timeout: float) -> Message:
        return {"type": "ready", "protocol": "canasta/1"}

    def send(self, msg: Message) -> None:
        self.queued.append(msg)

    def flush(self) -> None:
        self.flushes += 1
        self.delivered += self.queued
        self.queued = []

    def act(self, request: ActRequest, timeout: float) -> Message:
        self.events_heard.append(request.events_seen)
        return super().act(request, timeout)

    def request(self, msg: Message, timeout: float) -> Message:
        self.delivered += self.queued
        self.queued = []
        self.delivered.append(msg)
        return {"type": "move", "id": msg["id"], "index": self.rng.randrange(len(msg["moves"]))}


def test_quick_players_wake_nobody_and_each_hears_everything_before_its_turn() -> None:
    seats = [Queueing(f"q{i}") for i in range(4)]
    ref = Referee(seats, SHORT)
    ref.start()
    result = ref.play(1, seed=3)
    ref.close()
    assert result.reason == "hand_limit"
    assert all(s.flushes == 0 for s in seats)
    for seat in seats:
        # Every request comes after all the events so far: nothing is held back at its turn.
        events = acts = 0
        for msg in seat.delivered:
            if msg["type"] == "event":
                events += 1
            elif msg["type"] == "act":
                assert events == seat.events_heard[acts]
                acts += 1
        assert acts > 5 and acts == len(seat.events_heard)


def test_a_person_thinking_lets_the_bots_read_first() -> None:
    person = Queueing("person", timed=False)
    bots = [Queueing(f"q{i}") for i in range(1, 4)]
    ref = Referee([person, *bots], SHORT)
    ref.start()
    ref.play(1, seed=3)
    ref.close()
    asked = sum(1 for m in person.delivered if m["type"] == "act")
    assert asked > 0
    assert all(b.flushes >= asked for b in bots)


def test_a_thinking_bot_lets_the_others_read_meanwhile() -> None:
    slow = SubprocessSeat([sys.executable, "-c", SLOW_BOT], name="slow", spin_us=300)
    others = [Queueing(f"q{i}") for i in range(1, 4)]
    ref = Referee([slow, *others], CLASSIC.with_options(max_hands=1, max_turns=12),
                  TimeControl(decision_ms=5000))
    ref.start()
    try:
        ref.play(1, seed=3)
    finally:
        ref.close()
    asked = ref.reports[0].decisions
    assert asked > 0 and ref.reports[0].status == "OK"
    # Each of the slow bot's requests handed the others their news once (the hook is the
    # referee's; the seat calls it once per unanswered request).
    assert all(o.flushes == asked for o in others)
    # Its answers take far longer than the spin: it is no longer polled for (a burnt core).
    assert slow.typical > slow.spin
    assert slow.while_waiting is None  # the referee is closed: the seat holds nothing of it


# canasta/1.1 extras that add to the observation (history, public facts) or to the moves.
CAPS = [frozenset(), frozenset({"history"}), frozenset({"public"}),
        frozenset({"history", "public", "annotations"})]


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_request_on_the_wire_is_plain_json_of_the_observation(name: str) -> None:
    rules = PRESETS[name].with_options(max_hands=1)
    rng = random.Random(7)
    st = new_game(rules, seed=11)
    checked = 0
    while not st.is_over:
        moves = legal_moves(st)
        for seat in range(rules.players):
            assert observation_wire(st, seat) == _dumps(observation(st, seat, False))
        for caps in CAPS:
            msg = act_message(1, 9, st, moves, 1000, 500, caps=caps)
            plain = act_message(1, 9, st, moves, 1000, 500, caps=caps).message()
            assert encode(msg) == (_dumps(dict(plain)) + "\n").encode()
            assert list(plain) == ["type", "game", "id", "seat", "observation", "moves",
                                   "deadline_ms", "bank_ms"]
        checked += 1
        st = apply(st, moves[rng.randrange(len(moves))])
    assert checked > 30


def test_a_transcript_passes_the_flush_and_the_hook_to_the_bot(tmp_path: Path) -> None:
    inner = Queueing("q")
    seat = TranscriptSeat(inner, tmp_path / "t.jsonl")
    seat.send({"type": "event", "game": 1, "event": {"type": "upcard", "card": "9h"}})
    seat.flush()
    assert inner.flushes == 1 and inner.delivered[0]["type"] == "event"
    ref = Referee([seat, *(Queueing(f"q{i}") for i in range(1, 4))], SHORT)
    assert inner.while_waiting is not None  # set through the transcript
    ref.close()
    assert inner.while_waiting is None


def test_the_request_text_of_interleaved_games_is_each_ones_own() -> None:
    """The observation's table text is kept for the state fields it was made from: states of
    several games in turn (as concurrent referees in threads ask), new games whose tables are
    alike, and a finished game each get their own."""
    rng = random.Random(3)
    games = [new_game(PRESETS[name].with_options(max_hands=1), seed=s)
             for name, s in (("classic", 1), ("classic", 2), ("pagat", 1),
                             ("three-player-cutthroat", 4))]
    checked = 0
    while any(not g.is_over for g in games):
        for i, st in enumerate(games):
            for seat in range(st.rules.players):
                assert observation_wire(st, seat) == _dumps(observation(st, seat, False))
                checked += 1
            if not st.is_over:
                moves = legal_moves(st)
                games[i] = apply(st, moves[rng.randrange(len(moves))])
    assert checked > 1000 and all(g.is_over for g in games)
