"""The seat interface the referee talks to.  Every seat receives the same protocol messages."""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import Any, cast

from ..core.errors import CanastaError
from ..protocol.messages import ActRequest
from ..protocol.statuses import SeatStatus
from ..ui.interrupt import Interrupted

Message = dict[str, Any]


class SeatFailure(CanastaError):
    """A seat did not deliver: ``status`` is ``SeatStatus`` TIMEOUT, CRASHED or PROTOCOL_ERROR
    (a status given as its text is taken as the member it names)."""

    def __init__(self, status: SeatStatus, reason: str) -> None:
        super().__init__(reason)
        self.status = SeatStatus(status)
        self.reason = reason


class Seat(abc.ABC):
    """A player behind the protocol.

    ``start`` performs the handshake and returns the seat's ``ready`` message; ``send``
    delivers a message that needs no answer; ``request`` delivers one that does and returns
    the reply, raising ``SeatFailure`` if none comes in ``timeout`` seconds; ``act`` asks for
    a move (``protocol.messages.ActRequest``), through ``request`` unless the seat says how.
    """

    name: str = "seat"
    timed: bool = True  # False for people: no deadline, no time bank
    started: bool = False  # the handshake is done (set by the referee)
    explains: bool = False  # a person's seat: requests carry ``explain`` for refused moves
    last_request: int = 0  # the highest request id sent to this seat (ids never repeat for it)
    hears_events: bool = True  # False: an in-process player that ignores events is not sent them
    protocol: str = "canasta/1"  # what the seat said in ready (set by the referee)
    caps: frozenset[str] = frozenset()  # optional capabilities granted (canasta/1.1)
    played_by: str | None = None  # set by a seat whose last move a stand-in made (records it)
    # Set by the referee: called once when a request is still unanswered after the seat's
    # first quick wait, so that the other bots get their queued events while this one thinks
    # (and not while it answers at once, when they would only compete for the cores).
    while_waiting: Callable[[], None] | None = None

    @abc.abstractmethod
    def start(self, hello: Message, timeout: float) -> Message: ...

    def launch(self) -> None:  # noqa: B027 - only seats with a process to start use it
        """Begin starting (a process) without waiting, so that several seats start at once."""

    @property
    def usable(self) -> bool:
        """Can it still play (a bot that crashed or broke the protocol cannot)."""
        return bool(getattr(self, "alive", True))

    @abc.abstractmethod
    def send(self, msg: Message) -> None: ...

    @abc.abstractmethod
    def request(self, msg: Message, timeout: float) -> Message: ...

    def act(self, request: ActRequest, timeout: float) -> Message:
        """Ask for a move.  By default ``request`` gets the request as its plain message; a
        seat that needs less (a pipe only the bytes, a player only the engine's moves) reads
        just the parts it needs."""
        return self.request(cast(Message, request.message()), timeout)

    def flush(self) -> None:  # noqa: B027 - a hint that in-process seats ignore
        """Deliver what ``send`` has queued without waiting (a hint; sending may batch)."""

    def unsolicited(self) -> list[str]:
        """Reasons for messages the seat sent without being asked (discarded, counted)."""
        return []

    def late(self) -> list[str]:
        """Notes on replies to earlier requests that came too late (dropped, not counted)."""
        return []

    def close(self) -> None:  # noqa: B027 - optional for seats that hold nothing
        """Say goodbye and release every resource; must be safe to call twice."""


__all__ = ["Interrupted", "Message", "Seat", "SeatFailure"]
