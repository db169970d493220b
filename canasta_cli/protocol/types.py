"""The shape of every protocol message, as ``TypedDict``s (the schemas in ``protocol/schema/``
are the contract; these say the same for the type checker).

The builders in ``messages.py`` make each message as its TypedDict, so a misspelt or missing
field is a type error; a seat receives it as a plain ``Message`` (a dict), since that is what
crosses the wire.  Replies are read by ``replies.py``, which checks them field by field.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from ..core.reasons import GameEnd
from .statuses import SeatStatus


class HelloMessage(TypedDict):
    type: Literal["hello"]
    protocol: str
    seat: int
    players: int
    rules: dict[str, Any]
    capabilities: list[str]
    time: dict[str, int]
    max_line: int
    seat_name: str


class ReadyMessage(TypedDict):
    """A bot's answer to ``hello``; every field but ``type`` may be left out."""
    type: Literal["ready"]
    protocol: NotRequired[str]
    name: NotRequired[str]
    capabilities: NotRequired[list[str]]


class GameStartMessage(TypedDict):
    type: Literal["game_start"]
    game: int
    seat: int
    side: int
    players: int
    rules: dict[str, Any]
    names: list[str]
    protocol: NotRequired[str]            # canasta/1.1 seats only
    capabilities: NotRequired[list[str]]  # canasta/1.1 seats only


class EventMessage(TypedDict):
    type: Literal["event"]
    game: int
    event: dict[str, Any]  # the event as the seat sees it (core/events.py)


class ActMessage(TypedDict):
    type: Literal["act"]
    game: int
    id: int
    seat: int
    observation: dict[str, Any]  # core/observation.py
    moves: list[dict[str, Any]]  # each: index, type and its fields (move_json)
    deadline_ms: int
    bank_ms: int


class MoveReply(TypedDict):
    """A bot's answer to ``act``: the listed move's ``index``, or the move itself."""
    type: Literal["move"]
    id: int
    index: NotRequired[int]
    move: NotRequired[str | dict[str, Any]]


class ErrorMessage(TypedDict):
    type: Literal["error"]
    id: int | None
    code: str  # a SeatStatus
    message: str
    retry: bool


class GameEndMessage(TypedDict):
    type: Literal["game_end"]
    game: int
    winner: int | None
    reason: GameEnd | str | None
    scores: list[int]
    hands: int
    statuses: list[SeatStatus | str]


class MatchEndMessage(TypedDict):
    type: Literal["match_end"]
    seat: int
    games: int
    results: list[dict[str, Any]]


class ByeMessage(TypedDict):
    type: Literal["bye"]
