"""A seat wrapper that writes the whole conversation of one seat as JSON Lines."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import IO

from ..protocol.replies import quote
from .base import Message, Seat, SeatFailure


class TranscriptSeat(Seat):
    """Every line says who spoke (``referee`` or ``bot``) and the message, in order."""

    def __init__(self, inner: Seat, path: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.timed = inner.timed
        self.explains = inner.explains
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] | None = open(path, "w", encoding="utf-8")  # noqa: SIM115

    @property
    def alive(self) -> bool:
        return bool(getattr(self.inner, "alive", True))

    def _log(self, who: str, msg: Message | str) -> None:
        if self._file is not None:
            self._file.write(json.dumps({"from": who, "msg": msg}, separators=(",", ":")) + "\n")
            self._file.flush()

    def start(self, hello: Message, timeout: float) -> Message:
        self._log("referee", hello)
        reply = self._reply(lambda: self.inner.start(hello, timeout))
        return reply

    def send(self, msg: Message) -> None:
        self._log("referee", msg)
        self.inner.send(msg)

    def request(self, msg: Message, timeout: float) -> Message:
        self._log("referee", msg)
        return self._reply(lambda: self.inner.request(msg, timeout))

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
        self.inner.close()
        if self._file is not None:
            self._file.close()
            self._file = None
