"""``undo`` across the network: a person's melds held before they are played.

As in ``canasta play`` (protocol/ahead.py), a person's melds and additions of the turn are
held by their client and sent only with the move that ends the held line (a discard, a
question, a pile take is never held): the other seats never see a meld taken back, and the
record holds only what was played.  The client cannot work out the table after its held
melds by itself (the legality oracle needs the game), so it asks the server, which holds the
game and the request in hand:

    {"type": "ahead", "id": 8, "moves": ["meld K K K"]}          (person to server)
    {"type": "ahead", "id": 8, "ok": true, "observation": {...}, "moves": [...],
     "events": [...]}                                             (the table after them)
    {"type": "ahead", "id": 8, "ok": false, "reason": "..."}     (they cannot be held)

The server agrees only where the host allows undo (``canasta serve --undo``, or one person
with built-in players only), and only for melds and additions of this turn that are legal
and end neither the turn nor the hand; what it answers is that seat's own view (its
observation and the events as it sees them), nothing it would not see once it played them.
A connection that drops takes what was held with it: the server never had it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core import Move, format_move
from ..protocol.messages import ActRequest, Asked, asked_id
from ..protocol.replies import MAX_MOVE_TEXT
from ..seats.base import Message
from .wire import line

MAX_HELD = 60  # melds and additions held in one turn (a hand holds far fewer cards)

Ask = Callable[[list[str]], tuple[int | None, str]]


def undo_by_default(specs: list[str]) -> bool:
    """As ``canasta play``: undo needs no ``--undo`` when one person plays with built-in
    players only (one remote seat, no person at the host's terminal), since nobody else at
    the table could object to a meld taken back."""
    from ..util.seat_names import split_name
    commands = [split_name(s)[1] for s in specs]
    people = [c for c in commands if c in ("human", "remote") or c.startswith(
        ("human:", "remote:"))]
    return len(people) == 1 and all(c.startswith("builtin:") for c in commands
                                    if c not in people)


def _refused(rid: object, reason: str) -> bytes:
    return line({"type": "ahead", "id": rid, "ok": False, "reason": reason})


def held_view(msg: Asked, query: dict[str, Any], allowed: bool, spent: bool = False
              ) -> bytes:
    """The server's answer to an ``ahead`` question about the request in hand ``msg``
    (``spent``: this decision has had its share of questions)."""
    rid = asked_id(msg)
    if not allowed:
        return _refused(rid, "undo is off at this table (the host allows it with canasta"
                        " serve --undo)")
    if spent:
        return _refused(rid, "too many questions for one decision: play the move")
    texts = query.get("moves")
    if not isinstance(texts, list) or not 1 <= len(texts) <= MAX_HELD or not all(
            isinstance(t, str) and len(t) <= MAX_MOVE_TEXT for t in texts):
        return _refused(rid, f"an ahead message names 1 to {MAX_HELD} moves in notation")
    ahead = msg.ahead if isinstance(msg, ActRequest) else None
    view = ahead(texts) if ahead is not None else None
    if view is None:
        return _refused(rid, "only melds and additions of this turn are held (not a draw, a"
                        " pile take, a discard, nor going out)")
    return line({"type": "ahead", "id": rid, "ok": True, "observation": view.observation,
                 "moves": view.moves, "events": view.events})


@dataclass(frozen=True)
class HeldView:
    """The client's side of an answer: what ``HumanSeat`` wants of protocol/ahead.py's
    ``Ahead``, its judges asking the server about moves after the held ones."""

    observation: dict[str, Any]
    moves: list[str]
    events: list[dict[str, Any]]
    explain: Callable[[Move], str]
    sequence: Callable[[list[Move]], tuple[int, str] | None]


def client_view(answer: Message, held: list[str], ask: Ask) -> HeldView | None:
    """``answer`` (the server's ``ahead`` reply) as a view, or None if the moves are not held
    (they are then played at once, as in ``canasta play``)."""
    if answer.get("ok") is not True:
        return None
    obs, moves, events = answer.get("observation"), answer.get("moves"), answer.get("events")
    if not isinstance(obs, dict) or not isinstance(moves, list) or not isinstance(events, list):
        return None
    n = len(held)

    def explain(move: Move) -> str:
        _, reason = ask([*held, format_move(move)])
        return reason or "not legal now"

    def sequence(line_: list[Move]) -> tuple[int, str] | None:
        index, reason = ask([*held, *(format_move(m) for m in line_)])
        return None if index is None else (max(0, index - n), reason)

    return HeldView(obs, [str(m) for m in moves], [e for e in events if isinstance(e, dict)],
                    explain, sequence)
