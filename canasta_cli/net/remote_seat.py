"""A seat whose player is on the other end of a table connection: a person or a bot.

The referee talks to it like to any seat, on its own thread; the hub's thread hands it the
lines its connection sends.  A bot's connection is held to the protocol exactly as a bot's
pipes are (the same decoding, the same sorting of late and unasked lines, the same failure
statuses: a dropped connection is a crash).  A person may drop and join again with the same
token: the seat keeps what it sent this game and sends it again, request included.  While the
person is away and asked to play, the seat waits up to ``away_s``, then a built-in stand-in
plays for them until they are back; both are announced to everyone at the table.  The events
of the moves a stand-in played are marked ``"by": "stand-in"`` in what the person is sent
(their ``log`` says so), and a person back at the table is told which hands ended while they
were away (``welcome``'s ``missed``: hands whose end no connection of theirs was sent), so
that their client shows how those hands ended.

What a seat sends while it is not asked waits, unread, until it is: past ``MAX_UNASKED``
bytes of it, a bot is out of the game (PROTOCOL_ERROR, default moves, as for any failed
bot) and a person's connection is closed (they may join again), so that a client cannot
fill the table's memory between its turns.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..core import NotationError, parse_move
from ..core.cards import parse_kind
from ..protocol.messages import PROTOCOL, ActRequest, Asked, asked_id, encode
from ..protocol.replies import MAX_MOVE_TEXT, ProtocolError, decode_line, request_id
from ..protocol.statuses import SeatStatus
from ..seats.base import Message, Seat, SeatFailure
from ..seats.sorting import ReplySorter
from ..ui.event_text import MOVE_EVENTS
from .held import MAX_HELD, held_view
from .hub import Conn, Hub
from .wire import line

SORT_LIMIT = 1000  # lines kept waiting to be sorted; more are counted as not asked for
MAX_UNASKED = 256 << 10  # bytes a seat may send while it is not asked, before they are read
QUICK_ANSWER = 0.002  # s: a bot slower than this is thinking; the other seats get their news
EXPLAINS_PER_REQUEST = 200  # a person's "why not?" questions answered per decision


@dataclass(frozen=True)
class SeatTerms:
    """What a person at a remote seat is allowed: how long their turn waits for them after
    their connection dropped (then the stand-in plays), hints, and taking back melds."""

    away_s: float = 120.0
    hint: bool = False
    undo: bool = False


@dataclass
class _PersonTurn:
    """A person's decision while it is asked: questions answered so far, since when they are
    away, whether the stand-in took over."""

    msg: Asked
    rid: Any
    explained: int = 0
    away_since: float | None = None
    took_over: bool = False


class RemoteSeat(Seat):
    """``kind`` is set by the first client that joins: "person" or "bot", for the match."""

    def __init__(self, name: str, index: int, hub: Hub, stand_in: Seat,
                 terms: SeatTerms = SeatTerms(),
                 announce: Callable[[str], None] | None = None) -> None:
        self.name = name
        self.index = index
        self.hub = hub
        self.stand_in = stand_in
        self.away_s = terms.away_s
        self.hint = terms.hint
        self.undo = terms.undo  # a person may hold melds and take them back (net/held.py)
        self.announce = announce or (lambda text: None)
        self.kind: str | None = None
        self.timed = True
        self.explains = False
        self.played_by: str | None = None
        self.resumed = False  # a saved game goes on: the first join is already a rejoin
        self.stopping = False  # the game stopped unfinished (saved): no bye for a person
        self._cv = threading.Condition()
        self._conn: Conn | None = None
        self._joins = 0
        self._lines: deque[bytes] = deque()
        self._more = 0
        self._asked = False  # the referee is waiting for this seat's answer (and reads)
        self._unasked = 0  # bytes come while it was not, since they were last read
        self._out = bytearray()
        self._log: list[bytes] = []  # a person's game so far: sent again when they rejoin
        self._asking: bytes | None = None  # a person's request in hand
        self._swallow_ready = False
        self._dead: tuple[SeatStatus, str] | None = None
        self._sorter = ReplySorter()
        self._standing_in = False
        self._stand_in_played = False  # the stand-in's move: its events are marked
        self._ends: list[int] = []  # the hands of this game that ended, in order
        self._ends_out: list[int] = []  # of those, the ends waiting in ``_out``
        self._ends_sent: set[int] = set()  # the ends a connection of the person's was sent
        self.rtts: list[float] = []  # TCP's round-trip estimate at each decision, ms

    # Seen from the hub's thread ---------------------------------------------------------------
    def attach(self, conn: Conn, client: str) -> str | None:
        kind = "person" if client == "person" else "bot"
        back = False
        with self._cv:
            if self.kind is not None and kind != self.kind:
                return f"seat {self.index} is played by a {self.kind} in this match"
            if kind == "bot" and self._conn is not None and not self._conn.closed:
                return f"seat {self.index}'s bot is connected already"
            if self._dead is not None:
                return (f"seat {self.index}'s bot is out for this match ({self._dead[1]}): the"
                        " protocol does not take a crashed bot back")
            old = self._conn
            self.kind = kind
            self.timed = kind == "bot"
            self.explains = kind == "person"
            self._conn = conn
            self._joins += 1
            rejoin = self._joins > 1 or self.resumed
            self._lines.clear()
            self._unasked = 0
            extra: dict[str, Any] = {}
            if kind == "person":
                extra["missed"] = [h for h in self._ends if h not in self._ends_sent]
            self.hub.welcome(conn, role="player", seat=self.index, name=self.name, client=kind,
                             hint=self.hint and kind == "person",
                             undo=self.undo and kind == "person", rejoin=rejoin,
                             away_s=self.away_s, **extra)
            if kind == "person" and self._log:
                self._out.clear()  # all of it is in the log, which goes first
                self._ends_out.clear()
                self._ends_sent.update(self._ends)
                for data in self._log:
                    conn.write(data)
                if self._asking is not None:
                    conn.write(self._asking)
                self._swallow_ready = True  # the client answers the hello it is sent again
            back, self._standing_in = self._standing_in, False
            self._cv.notify_all()
        if old is not None and old is not conn:
            old.close("replaced by a new connection with the same token")
        if kind == "person" and self._joins > 1:
            self.announce(f"seat {self.index} ({self.name}) is back"
                          + (": the stand-in steps aside" if back else ""))
        return None

    def receive(self, conn: Conn, data: bytes) -> None:
        with self._cv:
            if conn is not self._conn:
                return  # a connection this seat has replaced
            if not self._asked:
                self._unasked += len(data) + 1
                if self._unasked > MAX_UNASKED:
                    self._lines.clear()
                    self._cut_off_locked(f"sent more than {MAX_UNASKED >> 10} KiB while it was"
                                         " not asked (nobody reads them until it is)")
                    conn.close("sent too much while not asked")
                    return
            if len(self._lines) < SORT_LIMIT:
                self._lines.append(data)
            else:
                self._more += 1
            self._cv.notify_all()

    def too_long(self, conn: Conn, reason: str) -> None:
        with self._cv:
            if conn is not self._conn:
                return
            self._cut_off_locked(reason)
        conn.close(reason)

    def _cut_off_locked(self, reason: str) -> None:
        """A bot in the game is out of it (PROTOCOL_ERROR, as a local bot's pipe would be);
        before the game, or a person, only loses this connection (noted)."""
        if self.kind == "bot" and self.started and self._dead is None:
            self._dead = (SeatStatus.PROTOCOL_ERROR, reason)
            self._cv.notify_all()
        else:
            self._sorter.unasked(reason)

    def detach(self, conn: Conn, reason: str) -> None:
        with self._cv:
            if conn is not self._conn:
                return
            self._conn = None
            if self.kind == "bot" and self.started and self._dead is None:
                self._dead = (SeatStatus.CRASHED, f"the bot's connection closed ({reason})")
            self._cv.notify_all()
        if self.kind == "person" and self.started:
            self.announce(f"seat {self.index} ({self.name}) lost their connection")

    # Seen from the referee's thread ---------------------------------------------------------
    @property
    def connected(self) -> bool:
        return self._conn is not None

    @property
    def usable(self) -> bool:
        return self._dead is None

    def start(self, hello: Message, timeout: float) -> Message:
        if self.kind != "bot":
            self.stand_in.start(hello, timeout)
            with self._cv:
                data = encode(hello)
                self._log = [data]
                self._swallow_ready = True
                self._out += data
                self._flush_locked()
            return {"type": "ready", "protocol": PROTOCOL, "name": self.name}
        return self._await(hello, timeout, "ready")

    def send(self, msg: Message) -> None:
        kind = msg.get("type")
        end: int | None = None
        if self.kind != "bot":
            self.stand_in.send(msg)
            if kind == "event":
                msg, end = self._person_event(msg)
        data = encode(msg)
        with self._cv:
            if self.kind != "bot":
                if kind == "game_start":
                    self._log = self._log[:1]
                    self._ends, self._ends_out, self._ends_sent = [], [], set()
                self._log.append(data)
                if end is not None:
                    self._ends.append(end)
            if self._conn is None or self._dead is not None:
                return
            self._out += data
            if end is not None:
                self._ends_out.append(end)
            if len(self._out) >= 65536 or kind == "game_end":
                self._flush_locked()

    def _person_event(self, msg: Message) -> tuple[Message, int | None]:
        """An event for a person: marked ``"by": "stand-in"`` if it is of a move the
        stand-in played for them; and the hand's number if it is a hand's end."""
        event = msg.get("event")
        if not isinstance(event, dict):
            return msg, None
        kind = event.get("type")
        if kind == "hand_started":
            self._stand_in_played = False  # the deal: nobody's move
        elif self._stand_in_played and kind in MOVE_EVENTS and event.get("seat") == self.index:
            msg = dict(msg, event=dict(event, by="stand-in"))
        hand = event.get("hand")
        return msg, hand if kind == "hand_ended" and isinstance(hand, int) else None

    def flush(self) -> None:
        with self._cv:
            self._flush_locked()

    def _flush_locked(self) -> None:
        if self._out and self._conn is not None:
            self._conn.write(bytes(self._out))
            self._ends_sent.update(self._ends_out)
        self._out.clear()
        self._ends_out.clear()

    def act(self, request: ActRequest, timeout: float) -> Message:
        return self.request(request, timeout)

    def request(self, msg: Asked, timeout: float) -> Message:
        self.played_by = None
        self._stand_in_played = False
        if self.kind == "bot":
            conn = self._conn
            reply = self._await(msg, timeout, "move")
            rtt = conn.rtt_ms() if conn is not None else None
            if rtt is not None:
                self.rtts.append(rtt)
            return reply
        with self._being_asked():
            return self._person(msg)

    @contextlib.contextmanager
    def _being_asked(self) -> Iterator[None]:
        """While the referee waits for this seat, what it sends is read as it comes: only
        what comes meanwhile is free of the ``MAX_UNASKED`` bound."""
        with self._cv:
            self._asked = True
        try:
            yield
        finally:
            with self._cv:
                self._asked = False

    # A bot ------------------------------------------------------------------------------------
    def _await(self, msg: Asked, timeout: float, answer: str) -> Message:
        """Send ``msg`` and return the bot's answer of type ``answer`` (or SeatFailure);
        every other line is sorted on the way, as the pipe of a local bot's would be."""
        with self._being_asked():
            return self._answer(msg, timeout, answer)

    def _answer(self, msg: Asked, timeout: float, answer: str) -> Message:
        deadline = time.monotonic() + max(0.0, timeout)
        rid = asked_id(msg)
        with self._cv:
            self._sort_locked()
            if self._dead is not None:
                raise SeatFailure(*self._dead)
            if self._conn is None:
                raise SeatFailure(SeatStatus.CRASHED, "the bot is not connected")
            self._sorter.note_asked(rid)
            self._out += encode(msg)
            self._flush_locked()
        sent = time.monotonic()
        hooked = self.while_waiting is None
        while True:
            with self._cv:
                while self._lines:
                    raw = self._lines.popleft()
                    try:
                        reply = decode_line(raw)
                    except ProtocolError as exc:
                        raise SeatFailure(SeatStatus.PROTOCOL_ERROR, str(exc)) from None
                    if self._sorter.is_answer(reply, rid, answer):
                        return reply
                if self._dead is not None:
                    raise SeatFailure(*self._dead)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise SeatFailure(SeatStatus.TIMEOUT, f"no answer within {timeout * 1000:.0f} ms")
                if not hooked:
                    left = min(left, max(0.0, QUICK_ANSWER - (time.monotonic() - sent)))
                if left > 0:
                    self._cv.wait(left)
                waiting = not self._lines
            if not hooked and waiting and time.monotonic() - sent >= QUICK_ANSWER:
                hooked = True
                assert self.while_waiting is not None
                self.while_waiting()  # it is thinking: the other seats may read their news

    def _sort_locked(self) -> None:
        """Lines that came while nothing was asked: late replies, or not asked for (a
        rejoining bot's repeated ``ready`` is dropped once)."""
        self._sorter.sort(self._lines, self._swallow)
        self._unasked = 0

    def _swallow(self, reply: Message) -> bool:
        if reply.get("type") == "ready" and self._swallow_ready:
            self._swallow_ready = False
            return True
        return False

    def unsolicited(self) -> list[str]:
        with self._cv:
            self._sort_locked()
            self._sorter.count_unasked(self._more)
            self._more = 0
            return self._sorter.unsolicited()

    def late(self) -> list[str]:
        with self._cv:
            return self._sorter.late()

    # A person ---------------------------------------------------------------------------------
    def _person(self, msg: Asked) -> Message:
        """The person's move: wait for it as long as they are connected; while they are
        away, up to ``away_s``, then the stand-in plays (until they are back)."""
        turn = _PersonTurn(msg, asked_id(msg))
        data = encode(msg)
        with self._cv:
            self._sort_locked()
            if not self._standing_in:
                self._asking = data
                self._out += data
                self._flush_locked()
        reply = self._await_person(turn)
        if reply is not None:
            return reply
        if turn.took_over:
            self.announce(f"seat {self.index} ({self.name}) is still away: {self.stand_in.name}"
                          " plays for them until they are back")
        self.played_by = "stand-in"
        self._stand_in_played = True
        if isinstance(msg, ActRequest):
            return self.stand_in.act(msg, 1e9)
        return self.stand_in.request(msg, 1e9)

    def _await_person(self, turn: _PersonTurn) -> Message | None:
        """The person's reply; None when the stand-in plays (it stands in already, or the
        person stayed away past ``away_s``).  Their questions about the turn (``explain``,
        ``ahead``) are answered meanwhile."""
        while True:
            answers: list[bytes] = []
            say = None
            with self._cv:
                if self._standing_in:
                    self._asking = None
                    return None
                reply = self._read_person_locked(turn, answers)
                if reply is not None:
                    self._asking = None
                    return reply
                conn = self._conn
                if conn is None:
                    say = self._away_locked(turn)
                    if self._standing_in:
                        return None
                else:
                    turn.away_since = None
                    if not answers:
                        self._cv.wait()
            if say is not None:
                self.announce(say)
            if conn is not None:
                for answer in answers:
                    conn.write(answer)

    def _read_person_locked(self, turn: _PersonTurn, answers: list[bytes]) -> Message | None:
        """The person's lines so far: their move, or None; the answers to their questions go
        to ``answers``."""
        msg, rid = turn.msg, turn.rid
        while self._lines:
            raw = self._lines.popleft()
            try:
                got = decode_line(raw)
            except ProtocolError as exc:
                self._asking = None
                raise SeatFailure(SeatStatus.PROTOCOL_ERROR, str(exc)) from None
            kind = got.get("type")
            if kind == "ready" and self._swallow_ready:
                self._swallow_ready = False
            elif kind == "explain" and request_id(got) == rid \
                    and turn.explained < EXPLAINS_PER_REQUEST:
                turn.explained += 1
                answers.append(_explained(msg, got))
            elif kind == "ahead" and request_id(got) == rid:
                turn.explained += 1  # answered always: the client waits for it
                answers.append(held_view(msg, got, self.undo,
                                         turn.explained > EXPLAINS_PER_REQUEST))
            elif self._sorter.is_answer(got, rid, "move"):
                return got
        return None

    def _away_locked(self, turn: _PersonTurn) -> str | None:
        """The person is not connected: their turn waits up to ``away_s`` (what to announce
        when it starts to), then the stand-in takes over."""
        now = time.monotonic()
        if turn.away_since is None:
            turn.away_since = now
            return f"seat {self.index} ({self.name}) is away: their turn waits up to {self.away_s:g} s"
        if now - turn.away_since >= self.away_s:
            self._standing_in = turn.took_over = True
            self._asking = None
        else:
            self._cv.wait(self.away_s - (now - turn.away_since))
        return None

    def close(self) -> None:
        """``bye``, except to a person whose game stopped unfinished: their client waits for
        the table to come back (``canasta serve --resume``) and joins again by itself."""
        with self._cv:
            conn = self._conn
            if conn is not None and self._dead is None:
                if self.kind == "person" and self.stopping:
                    self._out += line({"type": "notice", "text": "the table stopped; the game"
                                       " is saved and goes on when the host resumes it"})
                else:
                    self._out += encode({"type": "bye"})
                self._flush_locked()
            self._conn = None
        if conn is not None:
            conn.close("the game is over")
        self.stand_in.close()

    def summary(self) -> dict[str, Any]:
        """What the table reports about this seat besides the referee's report."""
        rtts = sorted(self.rtts)
        return {"seat": self.index, "name": self.name, "kind": self.kind,
                "joins": self._joins,
                "rtt_ms_median": rtts[len(rtts) // 2] if rtts else None,
                "rtt_ms_max": rtts[-1] if rtts else None}


def _explained(msg: Asked, query: dict[str, Any]) -> bytes:
    """Why a person's move (or line of moves) is refused, from the request in hand: the
    referee's own explainer, which reads only that player's hand and the table."""
    texts = query.get("moves")
    rid = asked_id(msg)
    if not isinstance(texts, list) or not 1 <= len(texts) <= MAX_HELD + 1 or not all(
            isinstance(t, str) and len(t) <= MAX_MOVE_TEXT for t in texts):
        return line({"type": "explained", "id": rid, "index": 0,
                     "reason": f"an explain message names 1 to {MAX_HELD + 1} moves in"
                     " notation"})
    obs = msg.observation() if isinstance(msg, ActRequest) else msg.get("observation") or {}
    top = obs.get("pile_top")
    try:
        top_rank = parse_kind(top) if isinstance(top, str) else None
        moves = [parse_move(t, top_rank=top_rank) for t in texts]
    except (NotationError, ValueError) as exc:
        return line({"type": "explained", "id": rid, "index": 0, "reason": str(exc)[:300]})
    explain = msg.explain if isinstance(msg, ActRequest) else None
    sequence = msg.sequence if isinstance(msg, ActRequest) else None
    if explain is None or sequence is None:
        return line({"type": "explained", "id": rid, "index": 0, "reason": "not legal now"})
    if len(moves) == 1:
        return line({"type": "explained", "id": rid, "index": 0, "reason": explain(moves[0])})
    problem = sequence(moves)
    if problem is None:
        return line({"type": "explained", "id": rid, "index": None, "reason": ""})
    return line({"type": "explained", "id": rid, "index": problem[0], "reason": problem[1]})
