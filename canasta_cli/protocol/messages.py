"""Messages of protocol v1, built from core objects (replies.py reads what bots send).

Everything a seat receives is made here, from ``observation`` and ``Event.view``, so that what
a seat may see is decided in one place (the core) and worded in one place (this module).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Any

from ..core import (
    GameState,
    Move,
    Ruleset,
    format_move,
    observation,
)
from ..core.cards import KIND_TEXT
from ..core.events import Event
from ..core.moves import Add, Answer, Discard, Meld, TakePile
from ..core.state import MeldState
from .replies import MAX_LINE

PROTOCOL = "canasta/1"
CAPABILITIES = ("move_text", "move_index")


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


class Prepared(dict[str, Any]):
    """A message that already knows its wire form (requests to act are built on the hot path
    of every decision, so they are encoded from cached pieces).  ``explain`` is for in-process
    seats only and never goes on the wire."""

    wire: bytes
    explain: Callable[[Move], str]
    sequence: Callable[[list[Move]], tuple[int, str] | None]


def encode(msg: dict[str, Any]) -> bytes:
    if isinstance(msg, Prepared):
        return msg.wire
    return (_ENCODER.encode(msg) + "\n").encode("utf-8")


def hello_message(seat: int, rules: Ruleset, time: dict[str, int], name: str = "") -> dict[str, Any]:
    return {"type": "hello", "protocol": PROTOCOL, "seat": seat, "players": rules.players,
            "rules": rules.to_dict(), "capabilities": list(CAPABILITIES), "time": time,
            "max_line": MAX_LINE, "seat_name": name}


def game_start_message(game: int, seat: int, rules: Ruleset, names: list[str]) -> dict[str, Any]:
    return {"type": "game_start", "game": game, "seat": seat, "side": rules.side_of(seat),
            "players": rules.players, "rules": rules.to_dict(), "names": names}


def event_message(game: int, event: Event, seat: int) -> dict[str, Any]:
    return {"type": "event", "game": game, "event": event.view(seat)}


def move_json(move: Move, index: int) -> dict[str, Any]:
    text = format_move(move)
    out: dict[str, Any] = {"index": index, "text": text, "action": text.split(" ", 1)[0]}
    if isinstance(move, (Meld, TakePile)):
        out.update(rank=KIND_TEXT[move.rank], naturals=move.naturals, deuces=move.deuces,
                   jokers=move.jokers)
    elif isinstance(move, Add):
        out.update(rank=KIND_TEXT[move.rank], card=KIND_TEXT[move.kind])
    elif isinstance(move, Discard):
        out.update(card=KIND_TEXT[move.kind])
    elif isinstance(move, Answer):
        out.update(yes=move.yes)
    return out


_MOVE_CACHE: dict[Move, tuple[dict[str, Any], str]] = {}


def _move_parts(move: Move) -> tuple[dict[str, Any], str]:
    """The move's JSON fields without the index, as a dict and as JSON text (cached: the set of
    distinct moves is small)."""
    parts = _MOVE_CACHE.get(move)
    if parts is None:
        fields = move_json(move, 0)
        del fields["index"]
        parts = (fields, _ENCODER.encode(fields)[1:])
        _MOVE_CACHE[move] = parts
    return parts


def act_message(game: int, request: int, state: GameState, moves: list[Move],
                deadline_ms: int, bank_ms: int, wire_only: bool = False,
                explains: bool = False) -> dict[str, Any]:
    """The request to act.  ``wire_only`` (for seats that only want the bytes) leaves the
    listed moves out of the dict; the wire form always has everything.  ``explains`` attaches
    ``explain`` for a person's prompt; no other seat gets it (it closes over the state)."""
    seat = state.actor
    obs = observation(state, seat, history=False)
    parts = [_move_parts(m) for m in moves]
    msg = Prepared(type="act", game=game, id=request, seat=seat, observation=obs,
                   moves=[] if wire_only else [{"index": i, **p[0]} for i, p in enumerate(parts)],
                   deadline_ms=deadline_ms, bank_ms=bank_ms)
    moves_text = ",".join(f'{{"index":{i},{p[1]}' for i, p in enumerate(parts))
    msg.wire = (f'{{"type":"act","game":{game},"id":{request},"seat":{seat},"observation":'
                f'{_observation_text(obs, state)},"moves":[{moves_text}],'
                f'"deadline_ms":{deadline_ms},"bank_ms":{bank_ms}}}\n').encode()
    if explains:
        msg.explain = partial(_explain, state)
        msg.sequence = partial(_sequence, state)
    return msg


def _explain(state: GameState, move: Move) -> str:
    """Why ``move`` is not legal for the player to act: it reads only that player's hand and
    the table, so an in-process seat may use it to explain a refused move before sending."""
    from ..core.explain import explain
    return explain(state, move)


def _sequence(state: GameState, moves: list[Move]) -> tuple[int, str] | None:
    """Whether the player to act can play all of ``moves`` in turn (a person's line of
    several moves is played whole or not at all); like ``explain``, for people only."""
    from ..core.explain import check_sequence
    return check_sequence(state, moves)


def _observation_text(obs: dict[str, Any], state: GameState) -> str:
    """JSON of ``obs`` with the melds spliced in from each meld's cached text (melds are the
    bulk of an observation and rarely change)."""
    light = dict(obs)
    del light["melds"]
    melds = ",".join("[" + ",".join(_meld_text(m) for m in row if m is not None) + "]"
                     for row in state.melds)
    return f'{_ENCODER.encode(light)[:-1]},"melds":[{melds}]}}'


def _meld_text(meld: MeldState) -> str:
    text = meld._wire
    if text is None:
        text = _ENCODER.encode(meld.to_json())
        object.__setattr__(meld, "_wire", text)
    return text


def error_message(request: int | None, code: str, message: str, retry: bool) -> dict[str, Any]:
    return {"type": "error", "id": request, "code": code, "message": message, "retry": retry}


def game_end_message(game: int, state: GameState, statuses: list[str]) -> dict[str, Any]:
    return {"type": "game_end", "game": game, "winner": state.winner,
            "reason": state.game_end_reason, "scores": list(state.scores),
            "hands": len(state.results), "statuses": statuses}


def bye_message() -> dict[str, Any]:
    return {"type": "bye"}
