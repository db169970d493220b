"""Reading what a bot sends.  Every byte is hostile until checked.

A reply is bounded before anything is built from it: the line's length, its nesting, its
numbers (checked against the pack before a card list is made) and the length of a move text
(before it is parsed).  Bot text is never copied whole into an error, a record or the console:
``quote`` shows at most about 100 characters, as a JSON string, with the total length.
"""

from __future__ import annotations

import json
from typing import Any

from ..core import GameState, Move, NotationError, parse_move
from ..core.cards import DEUCE, JOKER, KIND_OF, CardParseError, parse_kind
from ..core.errors import CanastaError
from ..core.moves import ASK, DRAW, END, NO, YES, Add, Discard, Meld, TakePile
from .statuses import SeatStatus
from .types import MoveReply, ReadyMessage

MAX_LINE = 1 << 20  # bytes, newline excluded, in both directions
MAX_MOVE_TEXT = 200  # characters: the longest legal move in any preset is under 80
QUOTE_CHARS = 100


class ProtocolError(CanastaError):
    """A line or message that breaks the protocol; ``code`` is the seat status it earns."""

    def __init__(self, code: SeatStatus, message: str) -> None:
        super().__init__(message)
        self.code = code


class IllegalReply(CanastaError):
    """A well-formed reply naming a move that is not legal now."""


def quote(text: str | bytes | bytearray, limit: int = QUOTE_CHARS) -> str:
    """``text`` as a short JSON string (ASCII only, so that no control sequence of a bot's
    reaches a terminal), with its whole length when it had to be cut."""
    if isinstance(text, (bytes, bytearray)):
        size, unit = len(text), "bytes"
        shown = bytes(text[:limit * 4]).decode("utf-8", "replace")
    else:
        size, unit = len(text), "characters"
        shown = text[:limit + 1]
    if len(shown) <= limit and size <= limit * 4 and (unit == "characters" or len(
            shown.encode("utf-8")) == size):
        return json.dumps(shown)
    return json.dumps(shown[:limit])[:-1] + '…"' + f" ({size} {unit})"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


# Made once: json.loads with an option builds a new decoder on every call.
_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def decode_line(line: bytes) -> dict[str, Any]:
    """One line from a bot as a message object, or ProtocolError saying what is wrong."""
    if len(line) > MAX_LINE:
        raise ProtocolError(SeatStatus.PROTOCOL_ERROR, f"line of {len(line)} bytes exceeds {MAX_LINE}")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolError(SeatStatus.PROTOCOL_ERROR, f"line is not valid UTF-8: {quote(line)}") from None
    try:
        msg = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise ProtocolError(SeatStatus.PROTOCOL_ERROR, f"not JSON ({exc.msg}): {quote(text)}") from None
    except RecursionError:
        raise ProtocolError(SeatStatus.PROTOCOL_ERROR, f"JSON nested too deeply: {quote(text)}") from None
    except ValueError as exc:  # NaN or Infinity, or an integer past Python's digit limit
        reason = str(exc).split(";")[0].split(":")[0]
        raise ProtocolError(SeatStatus.PROTOCOL_ERROR, f"not valid JSON ({reason}): {quote(text)}") from None
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        raise ProtocolError(SeatStatus.PROTOCOL_ERROR,
                            f"a message must be a JSON object with a string 'type': {quote(text)}")
    return msg


def request_id(msg: dict[str, Any]) -> int | None:
    """The request a reply names, if it names one as a plain whole number."""
    rid = msg.get("id")
    return rid if isinstance(rid, int) and not isinstance(rid, bool) else None


def read_ready(msg: dict[str, Any]) -> ReadyMessage:
    """A bot's answer to ``hello`` as its TypedDict, each field checked: ``protocol`` kept as
    the text it names (the caller checks it against what it speaks), ``name`` only if it is a
    string, ``capabilities`` only the strings among the first 64 entries of a list."""
    ready: ReadyMessage = {"type": "ready"}
    if "protocol" in msg:
        spoken = msg["protocol"]
        ready["protocol"] = spoken if isinstance(spoken, str) else str(spoken)
    name = msg.get("name")
    if isinstance(name, str):
        ready["name"] = name
    asked = msg.get("capabilities")
    if isinstance(asked, list):
        ready["capabilities"] = [c for c in asked[:64] if isinstance(c, str)]
    return ready


def read_move(msg: dict[str, Any], request: int) -> MoveReply:
    """A bot's answer to request ``request`` as its TypedDict: the one place its fields are
    checked (a ``move`` message, for this request, with a whole-number ``index`` or a ``move``
    given as a text or an object, not both).  Raises ProtocolError."""
    if msg.get("type") != "move":
        raise ProtocolError(SeatStatus.PROTOCOL_ERROR, f"expected a 'move' message answering request"
                            f" {request}, got {quote(str(msg.get('type')))}")
    rid = request_id(msg)
    if rid != request:
        got = quote(json.dumps(msg["id"])) if "id" in msg and rid is None else repr(rid)
        raise ProtocolError(SeatStatus.PROTOCOL_ERROR, f"reply is for request {got}, expected {request}")
    if "index" in msg and "move" in msg:
        raise ProtocolError(SeatStatus.PROTOCOL_ERROR,
                            "a 'move' message has 'index' or 'move', not both")
    reply: MoveReply = {"type": "move", "id": request}
    if "index" in msg:
        index = msg["index"]
        if isinstance(index, bool) or not isinstance(index, int):
            raise ProtocolError(SeatStatus.PROTOCOL_ERROR, "'index' must be a whole number")
        reply["index"] = index
        return reply
    given = msg.get("move")
    if not isinstance(given, (str, dict)):
        raise ProtocolError(SeatStatus.PROTOCOL_ERROR, "a 'move' message needs 'index' (a number) or"
                            " 'move' (a move in notation, or a move object as listed in 'moves')")
    reply["move"] = given
    return reply


def read_reply(msg: dict[str, Any], request: int, state: GameState, moves: list[Move]) -> Move:
    """The move a bot's reply names.  Raises ProtocolError (bad message, ``read_move``) or
    IllegalReply (a well-formed reply naming a move that is not legal)."""
    return chosen_move(read_move(msg, request), state, moves)


def chosen_move(reply: MoveReply, state: GameState, moves: list[Move]) -> Move:
    """The listed move a checked reply names, or IllegalReply."""
    if "index" in reply:
        index = reply["index"]
        if not 0 <= index < len(moves):
            shown = str(index) if abs(index) < 10**12 else f"of {len(str(abs(index)))} digits"
            raise IllegalReply(f"index {shown} is out of range: there "
                               + ("is 1 move" if len(moves) == 1 else f"are {len(moves)} moves"))
        return moves[index]
    given = reply["move"]
    move = move_from_object(given, state) if isinstance(given, dict) else \
        _move_from_text(given, state)
    if move not in moves:
        from ..core import format_move
        from ..core.explain import explain
        raise IllegalReply(f"{quote(format_move(move))} is not legal: {explain(state, move)}")
    return move


def _top(state: GameState) -> int | None:
    return KIND_OF[state.pile[-1]] if state.pile else None


def _move_from_text(text: str, state: GameState) -> Move:
    if len(text) > MAX_MOVE_TEXT:
        raise ProtocolError(SeatStatus.PROTOCOL_ERROR, f"a move text has at most {MAX_MOVE_TEXT}"
                            f" characters: {quote(text)}")
    try:
        return parse_move(text, top_rank=_top(state))
    except NotationError as exc:
        raise IllegalReply(f"cannot read move {quote(text)}: {exc}") from None


_SIMPLE_ACTIONS: dict[str, Move] = {"draw": DRAW, "ask": ASK, "yes": YES, "no": NO, "end": END}


def move_from_object(obj: dict[str, Any], state: GameState) -> Move:
    """A move object (the fields of a listed move; ``index`` not needed), every field checked
    against the pack before a move is built from it."""
    text = obj.get("text")
    if isinstance(text, str):
        return _move_from_text(text, state)
    action = obj.get("action")
    if not isinstance(action, str) or len(action) > 20:
        raise IllegalReply("a move object needs 'text', or 'action' with the fields of a listed"
                           " move")
    if action in _SIMPLE_ACTIONS:
        return _SIMPLE_ACTIONS[action]
    decks = state.rules.decks
    if action in ("pile", "meld"):
        rank = _kind_field(obj, "rank")
        n = _count_field(obj, "naturals", 4 * decks, required=True)
        d = _count_field(obj, "deuces", 4 * decks)
        j = _count_field(obj, "jokers", 2 * decks)
        return TakePile(rank, n, d, j) if action == "pile" else Meld(rank, n, d, j)
    if action == "add":
        return Add(_kind_field(obj, "rank"), _kind_field(obj, "card"))
    if action == "discard":
        return Discard(_kind_field(obj, "card"))
    raise IllegalReply(f"unknown action {quote(action)} in a move object")


def _kind_field(obj: dict[str, Any], key: str) -> int:
    value = obj.get(key)
    if not isinstance(value, str) or len(value) > 4:
        raise IllegalReply(f"move object: {key!r} must be a card rank such as \"K\" or \"7\"")
    try:
        kind = parse_kind(value)
    except CardParseError:
        raise IllegalReply(f"move object: {key!r} is not a card rank: {quote(value)}") from None
    if kind in (DEUCE, JOKER) and key == "rank":
        raise IllegalReply(f"move object: {key!r} cannot be {quote(value)} here")
    return kind


def _count_field(obj: dict[str, Any], key: str, most: int, required: bool = False) -> int:
    if key not in obj and not required:
        return 0
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
        shown = quote(str(value)) if isinstance(value, (int, float)) else type(value).__name__
        raise IllegalReply(f"move object: {key!r} must be a whole number from 0 to {most},"
                           f" got {shown}")
    return value
