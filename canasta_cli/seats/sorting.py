"""Sorting what a bot writes: the answer to the request in hand, a late reply to an earlier
request (dropped, noted), or a message nobody asked for (discarded, counted).  Neither of the
last two costs the bot a retry.  One sorter per bot connection, whatever carries the lines (a
pipe, a socket): the rules are the protocol's, written once here.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from ..protocol.replies import ProtocolError, decode_line, quote, request_id
from .base import Message

SORT_LIMIT = 1000  # waiting lines looked at one by one; more are counted as not asked for
ASKED_LIMIT = 100_000  # request ids remembered (to tell late replies from invented ones)


class ReplySorter:
    """What one bot connection was asked, and what it said out of turn."""

    def __init__(self) -> None:
        self.asked: set[int] = set()  # ids of the requests this bot was sent
        self._stray: list[str] = []
        self._stray_more = 0
        self._late: list[str] = []

    def note_asked(self, rid: object) -> None:
        if isinstance(rid, int):
            if len(self.asked) > ASKED_LIMIT:
                self.asked.clear()
            self.asked.add(rid)

    def is_answer(self, reply: Message, rid: object, answer: str | None) -> bool:
        """Is ``reply`` the answer (of type ``answer``; None: nothing is asked) to request
        ``rid``?  If not, it is noted as a late reply or as a message not asked for."""
        kind = reply.get("type")
        got = request_id(reply)
        if answer is not None and kind == answer and (answer == "ready" or got is None
                                                      or got == rid):
            return True  # the answer, or an attempt at one that the referee will judge
        if kind == "move" and got is not None and got in self.asked:
            self._late.append(f"late reply to request {got} dropped"
                              + (f" (now at request {rid})" if rid is not None else ""))
            del self._late[:-20]
        elif kind == "move" and got is not None:
            self.unasked(f"reply to request {got}, which this bot was never sent")
        else:
            self.unasked(f"{quote(str(kind))} message")
        return False

    def sort(self, lines: deque[bytes], skip: Callable[[Message], bool] | None = None) -> None:
        """Lines that came in while nothing was asked (``lines`` is emptied): late replies
        are noted, the rest counted as not asked for (undecodable ones too).  ``skip``: a
        message to drop without a word."""
        if len(lines) > SORT_LIMIT:  # a flood: none of it was asked for; count it whole
            self._stray_more += len(lines) - SORT_LIMIT
            for _ in range(len(lines) - SORT_LIMIT):
                lines.popleft()
        while lines:
            line = lines.popleft()
            try:
                reply = decode_line(line)
            except ProtocolError as exc:
                self.unasked(str(exc))
                continue
            if skip is not None and skip(reply):
                continue
            self.is_answer(reply, None, None)

    def unasked(self, what: str) -> None:
        if len(self._stray) < 3:
            self._stray.append(f"message out of turn: {what}")
        else:
            self._stray_more += 1

    def count_unasked(self, n: int) -> None:
        """``n`` more messages out of turn, not looked at (a flood cut short elsewhere)."""
        self._stray_more += n

    def unsolicited(self) -> list[str]:
        out, self._stray = self._stray, []
        if self._stray_more:
            out.append(f"... and {self._stray_more} more messages out of turn")
            self._stray_more = 0
        return out

    def late(self) -> list[str]:
        out, self._late = self._late, []
        return out
