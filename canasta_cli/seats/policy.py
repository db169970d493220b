"""In-process seats: a Python player answering protocol messages directly."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

from ..players import PLAYERS
from ..protocol.messages import PROTOCOL, ActRequest
from ..protocol.statuses import SeatStatus
from .base import Message, Seat, SeatFailure

Policy = Callable[[Message], Message | None]
_T = TypeVar("_T", Message, ActRequest)


class PolicySeat(Seat):
    """Runs ``policy`` on each message: it sees exactly what a subprocess bot would see."""

    def __init__(self, name: str, policy: Policy) -> None:
        self.name = name
        self.policy = policy
        # A player that declares it ignores events (it decides from each request alone) is
        # spared them: building a view per event and seat is most of an in-process game.
        self.hears_events = bool(getattr(policy, "hears_events", True))

    def start(self, hello: Message, timeout: float) -> Message:
        self.policy(hello)
        return {"type": "ready", "protocol": PROTOCOL, "name": self.name}

    def send(self, msg: Message) -> None:
        self.policy(msg)

    def request(self, msg: Message, timeout: float) -> Message:
        return self._answer(self.policy, msg)

    def act(self, request: ActRequest, timeout: float) -> Message:
        """A player with an ``act`` method reads the request's parts it needs (the engine's
        moves in ``legal``, say); any other gets the plain message."""
        takes = getattr(self.policy, "act", None)
        if callable(takes):
            return self._answer(takes, request)
        return self._answer(self.policy, cast(Message, request.message()))

    @staticmethod
    def _answer(call: Callable[[_T], Message | None], msg: _T) -> Message:
        try:
            reply = call(msg)
        except Exception as exc:  # a built-in player's bug is the seat's failure, not ours
            raise SeatFailure(SeatStatus.CRASHED, f"{type(exc).__name__}: {exc}") from None
        if reply is None:
            raise SeatFailure(SeatStatus.PROTOCOL_ERROR, "the player gave no answer")
        return reply


def builtin_seat(spec: str, seed: int = 0) -> PolicySeat:
    """``builtin:NAME`` (random, greedy, search, or a level: easy, normal, hard), with
    ``builtin:search:MS`` for a time budget per decision or ``builtin:search:deals=N`` for a
    fixed number of deals (``players.SEARCH_HELP``); the seed only drives the player's own
    choices."""
    rest = spec.split(":", 1)[1] if spec.startswith("builtin:") else spec
    kind, _, arg = rest.partition(":")
    if kind not in PLAYERS:
        raise ValueError(f"unknown built-in player {kind!r}: choose one of {', '.join(PLAYERS)}")
    if arg and kind not in ("search", "hard"):
        raise ValueError(f"builtin:{kind} takes no argument")
    return PolicySeat(f"builtin:{rest}", PLAYERS[kind](seed, arg))
