"""Scripted conversations with the referee: what it sends, and how it takes each answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from protocol_schema import errors

from canasta_cli.core import CLASSIC
from canasta_cli.hosting.referee import GameStart, Referee, TimeControl
from canasta_cli.protocol.statuses import SeatStatus
from canasta_cli.seats import builtin_seat
from canasta_cli.seats.base import Message, Seat, SeatFailure

RULES = CLASSIC.with_options(max_hands=1)


class ScriptedSeat(Seat):
    """A fake bot: for each request to act it plays the next scripted reply (a function of the
    request), and it keeps every message it receives."""

    def __init__(self, replies: list[Any]) -> None:
        self.name = "scripted"
        self.replies = list(replies)
        self.received: list[Message] = []

    def start(self, hello: Message, timeout: float) -> Message:
        self.received.append(hello)
        return {"type": "ready", "protocol": "canasta/1"}

    def send(self, msg: Message) -> None:
        self.received.append(msg)

    def request(self, msg: Message, timeout: float) -> Message:
        self.received.append(msg)
        if not self.replies:
            raise SeatFailure(SeatStatus.TIMEOUT, "script exhausted")
        reply = self.replies.pop(0)
        if isinstance(reply, SeatFailure):
            raise reply
        act = next(m for m in reversed(self.received) if m["type"] == "act")
        answer: Message = reply(act) if callable(reply) else reply
        return answer


def _index(text: str) -> Callable[[Message], Message]:
    return lambda act: {"type": "move", "id": act["id"],
                        "index": next(m["index"] for m in act["moves"] if m["text"] == text)}


def _text(text: str) -> Callable[[Message], Message]:
    return lambda act: {"type": "move", "id": act["id"], "move": text}


def _game(script: list[Any]) -> tuple[ScriptedSeat, Any]:
    seat = ScriptedSeat(script)
    seats = [seat] + [builtin_seat("builtin:random", i) for i in (1, 2, 3)]
    ref = Referee(seats, RULES, TimeControl(), max_retries=2)
    result = ref.play(1, 11, GameStart(dealer=3))
    return seat, result


def test_conversation_starts_with_hello_game_start_then_events_then_act() -> None:
    seat, _ = _game([_index("draw")] + [lambda a: {"type": "move", "id": a["id"], "index": 0}]
                    * 200)
    kinds = [m["type"] for m in seat.received]
    assert kinds[:2] == ["hello", "game_start"]
    first_act = kinds.index("act")
    assert set(kinds[2:first_act]) == {"event"}
    assert kinds[-1] == "game_end"
    assert all(not errors(m) for m in seat.received)


def test_move_by_text_is_accepted() -> None:
    first_discard = lambda a: {"type": "move", "id": a["id"],  # noqa: E731
                               "move": next(m["text"] for m in a["moves"]
                                            if m["action"] == "discard")}
    seat, result = _game([_text("draw"), first_discard, SeatFailure(SeatStatus.CRASHED, "done")])
    assert result.seats[0]["failures"] == {"CRASHED": 1}
    acts = [m for m in seat.received if m["type"] == "act"]
    assert acts[1]["observation"]["phase"] == "meld"


def test_illegal_answer_gets_an_error_with_retry_then_a_good_answer_counts() -> None:
    seat, result = _game([_text("meld K K K K K"), _index("draw"),
                          SeatFailure(SeatStatus.CRASHED, "done")])
    errors_sent = [m for m in seat.received if m["type"] == "error"]
    assert errors_sent[0]["code"] == "ILLEGAL_MOVE" and errors_sent[0]["retry"] is True
    assert "is not legal" in errors_sent[0]["message"]
    assert errors_sent[0]["id"] == next(m for m in seat.received if m["type"] == "act")["id"]
    rep = result.seats[0]
    assert rep["failures"]["ILLEGAL_MOVE"] == 1 and rep["decisions"] >= 2


def test_wrong_request_id_is_a_protocol_error() -> None:
    seat, result = _game([lambda a: {"type": "move", "id": a["id"] + 99, "index": 0},
                          _index("draw"), SeatFailure(SeatStatus.CRASHED, "done")])
    err = next(m for m in seat.received if m["type"] == "error")
    assert err["code"] == "PROTOCOL_ERROR" and "expected" in err["message"]


def test_retries_are_limited_then_a_default_move_is_played() -> None:
    bad = lambda a: {"type": "move", "id": a["id"], "index": 500}  # noqa: E731
    seat, result = _game([bad, bad, bad, SeatFailure(SeatStatus.CRASHED, "done")])
    errs = [m for m in seat.received if m["type"] == "error"]
    assert [e["retry"] for e in errs[:3]] == [True, True, False]
    assert "default move" in errs[2]["message"] and "after 3 tries" in errs[2]["message"]
    assert result.seats[0]["default_moves"] >= 1


def test_crashed_seat_gets_no_more_messages_and_the_game_finishes() -> None:
    seat, result = _game([SeatFailure(SeatStatus.CRASHED, "gone")])
    after = seat.received[[m["type"] for m in seat.received].index("act") + 1:]
    assert after == []
    assert result.hands == 1 and result.seats[0]["status"] == "CRASHED"
