"""Messages of protocol v1, built from core objects, and the reading of a bot's reply.

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
    NotationError,
    Ruleset,
    format_move,
    observation,
    parse_move,
)
from ..core.cards import KIND_OF, KIND_TEXT
from ..core.events import Event
from ..core.moves import Add, Answer, Discard, Meld, TakePile
from ..core.state import MeldState

PROTOCOL = "canasta/1"
MAX_LINE = 1 << 20  # bytes, newline excluded, in both directions
CAPABILITIES = ("move_text", "move_index")


class ProtocolError(ValueError):
    """A line or message that breaks the protocol; ``code`` is the seat status it earns."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


class Prepared(dict[str, Any]):
    """A message that already knows its wire form (requests to act are built on the hot path
    of every decision, so they are encoded from cached pieces).  ``explain`` is for in-process
    seats only and never goes on the wire."""

    wire: bytes
    explain: Callable[[Move], str]


def encode(msg: dict[str, Any]) -> bytes:
    if isinstance(msg, Prepared):
        return msg.wire
    return (_ENCODER.encode(msg) + "\n").encode("utf-8")


def decode_line(line: bytes) -> dict[str, Any]:
    if len(line) > MAX_LINE:
        raise ProtocolError("PROTOCOL_ERROR", f"line of {len(line)} bytes exceeds {MAX_LINE}")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolError("PROTOCOL_ERROR", "line is not valid UTF-8") from None
    try:
        msg = json.loads(text)
    except json.JSONDecodeError as exc:
        snippet = text[:60].rstrip()
        raise ProtocolError("PROTOCOL_ERROR", f"not JSON ({exc.msg}): {snippet!r}") from None
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        raise ProtocolError("PROTOCOL_ERROR", "a message must be a JSON object with a string 'type'")
    return msg


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
    return msg


def _explain(state: GameState, move: Move) -> str:
    """Why ``move`` is not legal for the player to act: it reads only that player's hand and
    the table, so an in-process seat may use it to explain a refused move before sending."""
    from ..core.explain import explain
    return explain(state, move)


def _observation_text(obs: dict[str, Any], state: GameState) -> str:
    """JSON of ``obs`` with the melds spliced in from each meld's cached text (melds are the
    bulk of an observation and rarely change)."""
    light = dict(obs)
    del light["melds"]
    melds = ",".join("[" + ",".join(_meld_text(m) for m in row if m is not None) + "]"
                     for row in state.melds)
    return f'{_ENCODER.encode(light)[:-1]},"melds":[{melds}]}}'


_MELD_TEXT: dict[int, tuple[MeldState, str]] = {}


def _meld_text(meld: MeldState) -> str:
    hit = _MELD_TEXT.get(id(meld))
    if hit is None or hit[0] is not meld:
        if len(_MELD_TEXT) > 50_000:
            _MELD_TEXT.clear()
        hit = (meld, _ENCODER.encode(meld.to_json()))
        _MELD_TEXT[id(meld)] = hit
    return hit[1]


def error_message(request: int | None, code: str, message: str, retry: bool) -> dict[str, Any]:
    return {"type": "error", "id": request, "code": code, "message": message, "retry": retry}


def game_end_message(game: int, state: GameState, statuses: list[str]) -> dict[str, Any]:
    return {"type": "game_end", "game": game, "winner": state.winner,
            "reason": state.game_end_reason, "scores": list(state.scores),
            "hands": len(state.results), "statuses": statuses}


def bye_message() -> dict[str, Any]:
    return {"type": "bye"}


def read_reply(msg: dict[str, Any], request: int, state: GameState,
               moves: list[Move]) -> Move:
    """The move a bot's reply names.  Raises ProtocolError (bad message) or
    ValueError subclasses with a reason (a move that is not legal)."""
    if msg.get("type") != "move":
        raise ProtocolError("PROTOCOL_ERROR",
                            f"expected a 'move' message answering request {request},"
                            f" got {msg.get('type')!r}")
    if msg.get("id") != request:
        raise ProtocolError("PROTOCOL_ERROR",
                            f"reply is for request {msg.get('id')!r}, expected {request}")
    if "index" in msg:
        index = msg["index"]
        if isinstance(index, bool) or not isinstance(index, int):
            raise ProtocolError("PROTOCOL_ERROR", "'index' must be a whole number")
        if not 0 <= index < len(moves):
            raise IllegalReply(f"index {index} is out of range: there are {len(moves)} moves")
        return moves[index]
    text = msg.get("move")
    if isinstance(text, dict):
        text = move_text_from_json(text)
    if isinstance(text, str):
        top = KIND_OF[state.pile[-1]] if state.pile else None
        try:
            move = parse_move(text, top_rank=top)
        except NotationError as exc:
            raise IllegalReply(f"cannot read move {text!r}: {exc}") from None
        if move not in moves:
            from ..core.explain import explain
            raise IllegalReply(f"{text!r} is not legal: {explain(state, move)}")
        return move
    raise ProtocolError("PROTOCOL_ERROR", "a 'move' message needs 'index' (a number) or"
                        " 'move' (a move in notation, or a move object as listed in 'moves')")


def move_text_from_json(obj: dict[str, Any]) -> str:
    """A move object (the fields of a listed move, ``index`` not needed) in notation."""
    if isinstance(obj.get("text"), str):
        return str(obj["text"])
    action = obj.get("action")
    try:
        if action in ("draw", "ask", "yes", "no", "end"):
            return str(action)
        if action in ("pile", "meld"):
            rank = str(obj["rank"])
            cards = ([rank] * int(obj["naturals"]) + ["2"] * int(obj.get("deuces", 0))
                     + ["Jo"] * int(obj.get("jokers", 0)))
            return " ".join([action, *cards])
        if action == "add":
            return f"add {obj['rank']} {obj['card']}"
        if action == "discard":
            return f"discard {obj['card']}"
    except (KeyError, TypeError, ValueError):
        pass
    raise IllegalReply(f"cannot read the move object {json.dumps(obj)[:80]}: it needs 'text', or"
                       " 'action' with the fields of a listed move")


class IllegalReply(ValueError):
    """A well-formed reply naming a move that is not legal now."""
