"""A seat wrapper that writes the whole conversation of one seat as JSON Lines."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import IO, cast

from ..protocol.messages import ActRequest
from ..protocol.replies import quote
from ..util.private_files import open_private
from .base import Message, Seat, SeatFailure


class TranscriptSeat(Seat):
    """Every line says who spoke (``referee`` or ``bot``) and the message, in order.

    A seat's conversation holds its cards, so it reaches the file only when each game is
    over (at ``game_end``, or when the seat is closed): while a game runs no other bot can
    read it there.  The file is readable by its owner only.
    """

    def __init__(self, inner: Seat, path: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.timed = inner.timed
        self.explains = inner.explains
        self._file: IO[str] | None = open_private(path)
        self._pending: list[str] = []

    @property
    def alive(self) -> bool:
        return bool(getattr(self.inner, "alive", True))

    def _log(self, who: str, msg: Message | str) -> None:
        if self._file is not None:
            self._pending.append(json.dumps({"from": who, "msg": msg}, separators=(",", ":")))
            if isinstance(msg, dict) and msg.get("type") == "game_end":
                self._write_out()

    def _write_out(self) -> None:
        if self._file is not None and self._pending:
            self._file.write("\n".join(self._pending) + "\n")
            self._file.flush()
            self._pending.clear()

    def start(self, hello: Message, timeout: float) -> Message:
        self._log("referee", hello)
        reply = self._reply(lambda: self.inner.start(hello, timeout))
        return reply

    def launch(self) -> None:
        self.inner.launch()

    def flush(self) -> None:
        self.inner.flush()

    @property
    def while_waiting(self) -> Callable[[], None] | None:
        """The referee's hook belongs to the seat that waits for the bot."""
        return self.inner.while_waiting

    @while_waiting.setter
    def while_waiting(self, hook: Callable[[], None] | None) -> None:
        self.inner.while_waiting = hook

    def send(self, msg: Message) -> None:
        self._log("referee", msg)
        self.inner.send(msg)

    def request(self, msg: Message, timeout: float) -> Message:
        self._log("referee", msg)
        return self._reply(lambda: self.inner.request(msg, timeout))

    def act(self, request: ActRequest, timeout: float) -> Message:
        self._log("referee", cast(Message, request.message()))
        return self._reply(lambda: self.inner.act(request, timeout))

    def _reply(self, call: Callable[[], Message]) -> Message:
        try:
            reply = call()
        except SeatFailure as f:
            self._log("failure", f"{f.status}: {f.reason}")
            raise
        text = json.dumps(reply, separators=(",", ":"))
        self._log("bot", reply if len(text) <= 4096 else f"(too long to keep) {quote(text)}")
        return reply

    def unsolicited(self) -> list[str]:
        return self.inner.unsolicited()

    def late(self) -> list[str]:
        return self.inner.late()

    def close(self) -> None:
        if self.started and self._file is not None:
            self._log("referee", {"type": "bye"})  # what closing a seat says to its bot
        self.inner.close()
        self._write_out()
        if self._file is not None:
            self._file.close()
            self._file = None
