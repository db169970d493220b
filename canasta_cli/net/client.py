"""``canasta join``: a person at the same table view and prompt as ``canasta play``, or a
spectator, over one connection to a table.

The person's seat is the very HumanSeat of ``canasta play``, fed the protocol messages that
come over the connection.  Why a move is refused is asked of the server (``explain``), which
holds the game; a hint is worked out here, from what this seat may see, when the table
allows hints.  A dropped connection is joined again with the same token, and a table that
says it is busy (too many connections joining: a refusal marked ``retry``) is asked again.

Everything the table sends is untrusted: read with the bots' bounded reader (line length,
nesting, numbers), and every text in it spelled out safe for the terminal
(``safetext.visible``) before anything is built from it or shown.
"""

from __future__ import annotations

import contextlib
import random
import select
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import Any

from ..core import Move, format_move
from ..core.errors import CanastaError
from ..protocol.messages import PROTOCOL
from ..protocol.replies import MAX_LINE, ProtocolError, decode_line
from ..seats.base import Interrupted, Message
from ..seats.human import HumanSeat, SharedTable
from ..ui.event_text import BY, MOVE_EVENTS, describe_event, only_cards, story
from ..ui.prompt import Terminal
from ..ui.render import Screen, Side, Style, render_hand_end, render_table, stream_style, watch_labels
from ..ui.screen import fit
from ..util.safetext import visible
from .held import HeldView, client_view
from .wire import LineTooLong, Splitter, join_message, line

CONNECT_S = 10.0
RETRY_FIRST_S = 0.25  # the first pause before joining a busy table again; then doubled
RETRY_MOST_S = 4.0
_UNREADABLE = (KeyError, TypeError, ValueError, AttributeError, IndexError)


class JoinError(CanastaError):
    """The table could not be reached or refused this client; the message says why."""


class Busy(JoinError):
    """The table refused for now (too many connections joining): try again soon."""


def refusal(msg: Message) -> JoinError:
    """The error a ``refused`` message (already made safe) stands for."""
    kind = Busy if msg.get("retry") is True else JoinError
    return kind(f"refused: {str(msg.get('reason'))[:300]}")


def safe(msg: Message) -> Message:
    """``msg`` (decoded) with every text in it, keys too, made safe to show: a hostile
    table's escape sequences are spelled out, never sent to the terminal.  Iterative: the
    nesting is bounded by the decoder, not by this function's stack."""
    todo: list[dict[str, Any] | list[Any]] = [msg]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            for key in [k for k in node if not k.isprintable()]:
                node[visible(key)] = node.pop(key)
            todo += _safe_items(node, list(node.items()))
        else:
            todo += _safe_items(node, list(enumerate(node)))
    return msg


def _safe_items(node: Any, items: list[tuple[Any, Any]]) -> list[dict[str, Any] | list[Any]]:
    """Texts among ``items`` made safe in ``node``; the containers among them, to visit."""
    inner: list[dict[str, Any] | list[Any]] = []
    for key, value in items:
        if isinstance(value, str):
            if not value.isprintable():
                node[key] = visible(value)
        elif isinstance(value, (dict, list)):
            inner.append(value)
    return inner


class Backoff:
    """Pauses between tries that double (with some jitter, so that many clients do not
    come back at once) up to ``RETRY_MOST_S``, within ``budget_s`` in all."""

    def __init__(self, budget_s: float) -> None:
        self.deadline = time.monotonic() + budget_s
        self.pause = RETRY_FIRST_S

    def next(self) -> float | None:
        """The pause before the next try, or None when the budget is spent."""
        if time.monotonic() + self.pause > self.deadline:
            return None
        pause, self.pause = self.pause, min(self.pause * 2, RETRY_MOST_S)
        return pause * random.uniform(0.75, 1.0)


def join_retrying(connect: Callable[[], Link], budget_s: float,
                  tell: Callable[[str], None]) -> Link:
    """``connect()``, tried again while the table says it is busy, for up to ``budget_s``."""
    backoff = Backoff(budget_s)
    told = False
    while True:
        try:
            return connect()
        except Busy as exc:
            pause = backoff.next()
            if pause is None:
                raise Busy(f"{exc} (still busy after {budget_s:g} s)") from None
        if not told:
            tell(f"The table is busy; trying again for up to {budget_s:g} s...")
            told = True
        time.sleep(pause)


class Lost(Exception):
    """The connection ended (or broke) without a bye."""


class Quiet(Exception):
    """Nothing came in time."""


class Link:
    """A blocking connection to a table, JSON lines both ways, after the token handshake."""

    def __init__(self, host: str, port: int, token: str, client: str,
                 tls: ssl.SSLContext | None = None, timeout: float = CONNECT_S) -> None:
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            raise JoinError(f"cannot reach {host}:{port}: {exc.strerror or exc}") from None
        try:
            if tls is not None:
                sock = tls.wrap_socket(sock, server_hostname=host)
        except (ssl.SSLError, OSError) as exc:
            sock.close()
            raise JoinError(f"TLS with {host}:{port} failed: {exc}") from None
        self.sock = sock
        self.split = Splitter(MAX_LINE)
        self.pending: deque[bytes] = deque()
        self.busy = False  # asking the server something (the prompt's alarm keeps quiet)
        self.send_raw(join_message(token, client))
        try:
            welcome = self.read(timeout)
        except (Lost, Quiet):
            self.close()
            raise JoinError(f"{host}:{port} closed the connection during the handshake (a"
                            " table with TLS needs --tls; one without, no --tls)") from None
        if welcome.get("type") == "refused":
            self.close()
            raise refusal(welcome)
        if welcome.get("type") != "welcome":
            self.close()
            raise JoinError(f"{host}:{port} does not look like a canasta table")
        self.welcome = welcome
        self.sock.settimeout(None)

    def send_raw(self, data: bytes) -> None:
        try:
            self.sock.sendall(data)
        except OSError as exc:
            raise Lost(str(exc)) from None

    def send(self, msg: dict[str, Any]) -> None:
        self.send_raw(line(msg))

    def read(self, timeout: float | None = None) -> Message:
        """The next message (Lost when the connection ends)."""
        self.sock.settimeout(timeout)
        try:
            while not self.pending:
                try:
                    chunk = self.sock.recv(65536)
                except TimeoutError:
                    raise Quiet() from None
                except OSError as exc:
                    raise Lost(str(exc)) from None
                if not chunk:
                    raise Lost("closed")
                try:
                    self.pending.extend(self.split.feed(chunk))
                except LineTooLong as exc:
                    raise Lost(str(exc)) from None
            raw = self.pending.popleft()
        finally:
            with contextlib.suppress(OSError):
                self.sock.settimeout(None)
        try:
            return safe(decode_line(raw))
        except ProtocolError as exc:
            return {"type": "garbled", "reason": str(exc)}

    def poll(self, timeout: float) -> Message | None:
        """A message that is already there or comes within ``timeout``; None if none."""
        if not self.pending:
            try:
                ready = select.select([self.sock], [], [], timeout)[0]
            except (OSError, ValueError):
                ready = [self.sock]
            if not ready and not getattr(self.sock, "pending", lambda: 0)():
                return None
        try:
            return self.read(timeout)
        except Quiet:  # readable, but no whole message yet (or TLS's own records)
            return None

    def ask(self, rid: object, texts: list[str]) -> tuple[int | None, str]:
        """Why the server refuses these moves: (index of the one refused, reason) or
        (None, "") when they can all be played.  Other messages wait their turn."""
        self.busy = True
        self.send({"type": "explain", "id": rid, "moves": texts})
        kept: list[bytes] = []
        try:
            while True:
                msg = self.read()
                if msg.get("type") == "explained" and msg.get("id") == rid:
                    index = msg.get("index")
                    return (index if isinstance(index, int) else None,
                            str(msg.get("reason", ""))[:500])
                kept.append(line(msg))
        finally:
            self.pending.extendleft(reversed(kept))
            self.busy = False

    def ahead(self, rid: object, texts: list[str]) -> Message:
        """The server's ``ahead`` answer about these held moves (net/held.py)."""
        self.busy = True
        self.send({"type": "ahead", "id": rid, "moves": texts})
        kept: list[bytes] = []
        try:
            while True:
                msg = self.read()
                if msg.get("type") == "ahead" and msg.get("id") == rid:
                    return msg
                kept.append(line(msg))
        finally:
            self.pending.extendleft(reversed(kept))
            self.busy = False

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


class RemotePerson(HumanSeat):
    """The human seat, with hints only where the table allows them."""

    def __init__(self, table: SharedTable, name: str, hint: bool) -> None:
        super().__init__(table, name)
        self.hint_allowed = hint

    def _hint(self, msg: Message) -> str:
        if not self.hint_allowed:
            return ("Hints are off at this table (the host allows them with canasta serve"
                    " --hint).")
        return super()._hint(msg)

    def _undo_off(self) -> str:
        return " (and undo is off at this table: the host allows it with canasta serve --undo)"


class RemoteAct(dict[str, Any]):
    """A request to act as the prompt wants it: ``explain`` and ``sequence`` ask the server."""

    def __init__(self, msg: Message, link: Link) -> None:
        super().__init__(msg)
        rid = msg.get("id")

        def explain(move: Move) -> str:
            try:
                return link.ask(rid, [format_move(move)])[1] or "not legal now"
            except Lost:
                return "not legal now (the connection to the table was lost)"

        def sequence(moves: list[Move]) -> tuple[int, str] | None:
            try:
                index, reason = link.ask(rid, [format_move(m) for m in moves])
            except Lost:
                return 0, "the connection to the table was lost"
            return None if index is None else (index, reason)

        self.explain = explain
        self.sequence = sequence
        if link.welcome.get("undo") is True:
            self.ahead = partial(_held, link, rid)


def _held(link: Link, rid: object, texts: list[str]) -> HeldView | None:
    """The table after the held moves, as the server sees it from this seat (None: they
    cannot be held, and are played at once)."""
    def ask(moves: list[str]) -> tuple[int | None, str]:
        try:
            return link.ask(rid, moves)
        except Lost:
            return 0, "the connection to the table was lost"
    try:
        return client_view(link.ahead(rid, texts), texts, ask)
    except Lost:
        return None


Connect = Callable[[], Link]


UNREACHABLE = "the table could not be reached again"


def play_person(connect: Connect, table: SharedTable, retry_s: float,
                rejoin_hint: str) -> str:
    """Play at the table until it says bye; joins again after a dropped connection (for up
    to ``retry_s``; the first join too, while the table is busy).  Returns why it ended
    (``UNREACHABLE`` when it gave up joining again: the caller says how to rejoin, as it
    does after ``Left``, which carries ``rejoin_hint``).  Hands that ended while the person
    was away (``welcome``'s ``missed``) are shown as they are replayed."""
    show = table.terminal.show
    link = join_retrying(connect, retry_s, show)
    style = table.style
    first = True
    while True:
        welcome = link.welcome
        seat = RemotePerson(table, str(welcome.get("name", "you")), bool(welcome.get("hint")))
        table.undo = welcome.get("undo") is True
        seat.replaying = bool(welcome.get("rejoin")) or not first
        missed = welcome.get("missed")
        if isinstance(missed, list):
            seat.missed = {h for h in missed[:10_000] if isinstance(h, int)}
        if first:
            show(style.bold(f"Joined seat {welcome.get('seat')} as {welcome.get('name')}."
                            + (" Back at the table." if welcome.get("rejoin") else "")))
        first = False
        try:
            return _converse(link, seat, rejoin_hint)
        except Lost:
            link.close()
        except _UNREADABLE as exc:  # a message of a shape this client does not know
            link.close()
            return f"the table sent a message this client cannot read ({type(exc).__name__})"
        show(style.warn(f"The connection to the table was lost; joining again (up to"
                        f" {retry_s:g} s)..."))
        again = _reconnect(connect, retry_s)
        if again is None:
            return UNREACHABLE
        link = again
        show(style.bold("Back at the table."))


def _reconnect(connect: Connect, retry_s: float) -> Link | None:
    deadline = time.monotonic() + retry_s
    pause = 0.2
    while time.monotonic() < deadline:
        try:
            return connect()
        except Busy:
            pass  # too many connections joining: it passes
        except JoinError as exc:
            if str(exc).startswith("refused"):
                return None
        time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        pause = min(pause * 2, 3.0)
    return None


def _converse(link: Link, seat: RemotePerson, rejoin_hint: str) -> str:
    terminal, style = seat.table.terminal, seat.table.style
    last_act: Message | None = None
    while True:
        msg = link.read()
        kind = msg.get("type")
        if kind == "hello":
            seat.start(msg, 0)
            link.send({"type": "ready", "protocol": PROTOCOL, "name": seat.name})
        elif kind == "act":
            last_act = msg
            link.send(_decide(seat, msg, link, rejoin_hint))
        elif kind == "error":
            seat.send(msg)
            if msg.get("retry") and last_act is not None:
                link.send(_decide(seat, last_act, link, rejoin_hint))
        elif kind == "notice":
            terminal.show(style.warn(f"[table] {str(msg.get('text'))[:300]}"))
        elif kind == "bye":
            return "the table closed"
        elif kind in ("event", "game_start", "game_end", "match_end"):
            seat.send(msg)


def _decide(seat: RemotePerson, msg: Message, link: Link, rejoin_hint: str) -> Message:
    """The person's answer.  Whatever the table says meanwhile (a notice, the end of the
    connection) is shown at once: the prompt is woken, and drawn again after."""
    terminal, style = seat.table.terminal, seat.table.style
    while True:
        try:
            with Alarm(link, terminal):
                return seat.request(RemoteAct(msg, link), 0)
        except Interrupted:
            link.close()
            raise Left(rejoin_hint) from None
        except Wake:
            pass
        while (news := link.poll(0.05)) is not None:
            if news.get("type") == "notice":
                terminal.show(style.warn(f"[table] {str(news.get('text'))[:300]}"))
            elif news.get("type") == "bye":
                raise Lost("the table closed")


class Wake(Exception):
    """The table sent something while the person was at the prompt."""


class Alarm:
    """While the person is at the prompt: a thread that only waits for the connection to
    be readable (it never reads: a TLS connection is used by one thread at a time), then
    wakes the prompt so that what came is shown now, not after the next move."""

    def __init__(self, link: Link, terminal: Terminal) -> None:
        self.link = link
        self.session, self.terminal = terminal.session, terminal
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Alarm:
        if self.session is not None:
            self._thread = threading.Thread(target=self._watch, daemon=True, name="alarm")
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _watch(self) -> None:
        assert self.session is not None
        link, app, terminal = self.link, self.session.app, self.terminal
        while not self._stop.is_set():
            if link.busy:
                self._stop.wait(0.05)
                continue
            if not _readable(link, 0.1):
                continue
            loop = app.loop
            # Asked again once the person is at the prompt (the main thread then reads
            # nothing): what was readable may have been an answer it awaited meanwhile
            # (``Link.ahead``), read since.
            if loop is not None and app.is_running and not link.busy and _readable(link, 0):
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(terminal.interrupt, Wake())
                return
            self._stop.wait(0.05)


def _readable(link: Link, timeout: float) -> bool:
    """Something to read on the link, or coming within ``timeout`` (a broken one counts)."""
    try:
        return (bool(link.pending) or bool(getattr(link.sock, "pending", lambda: 0)())
                or bool(select.select([link.sock], [], [], timeout)[0]))
    except (OSError, ValueError):
        return True


class Left(Exception):
    """The person left the table (quit, Ctrl-C, Ctrl-D); the game goes on without them."""


def watch(link: Link, show: Callable[[str], None], style: Style | None = None,
          width: int = 0) -> str:
    """A spectator's view: the table as everyone sees it, drawn as ``canasta play`` draws
    one (melds, red threes, the pile, the stock, how many cards each seat holds, the scores)
    at the start of each turn, under the plays since the last one; how each hand ended; what
    the table tells everyone.  ``width``: the columns to fit the text to (0: lines whole)."""
    view = Spectator(show, style or stream_style(), width)
    show("Watching: only what every player may see is shown (no hand, no hidden card).")
    while True:
        try:
            msg = link.read()
        except Lost:
            view.flush()
            return "the connection to the table ended"
        try:
            if view.take(msg):
                view.flush()
                return "the table closed"
        except _UNREADABLE:
            show("    (a message this client cannot show)")


class Spectator:
    """What a spectator is shown of the public lines a table sends (net/gallery.py): every
    message is checked as it comes (one that cannot be shown is said so, and dropped)."""

    def __init__(self, show: Callable[[str], None], style: Style, width: int = 0) -> None:
        self.show = show
        self.style = style
        self.width = width
        self.names: list[str] = []
        self.labels: list[str] = []
        self.events: list[dict[str, Any]] = []  # since the last table drawn
        self.hand: list[dict[str, Any]] = []  # this hand's (the card that froze the pile)
        self.by: tuple[int, str] | None = None  # the last move's seat, if a stand-in's...
        self.drawn: tuple[Any, Any] | None = None  # the hand and turn of the last table drawn

    def say(self, text: str) -> None:
        self.show(fit(text, self.width))

    def label(self, s: int) -> str:
        return self.labels[s] if 0 <= s < len(self.labels) else f"seat {s}"

    def take(self, msg: Message) -> bool:
        """Show one public line (or keep it for the next table); True at the table's bye."""
        kind = msg.get("type")
        if kind == "header":
            self.flush()
            self.names = [str(n) for n in msg.get("seats", [])]
            self.labels = watch_labels(self.names)
            self.events, self.hand, self.by, self.drawn = [], [], None, None
            self.say(f"== Game {msg.get('game')}: "
                     + ", ".join(f"seat {i} ({n})" for i, n in enumerate(self.names)))
        elif kind == "move":
            by, seat = msg.get("by"), msg.get("seat")
            self.by = (seat, by) if by in BY and isinstance(seat, int) else None
        elif kind == "event":
            self._event(msg["event"])
        elif kind == "table":
            self._table(msg["observation"])
        elif kind == "result":
            self.flush()
            self.say(f"== Game over ({msg.get('reason')}): scores "
                     + " / ".join(str(s) for s in msg.get("scores") or []))
        elif kind == "notice":
            self.say(f"[table] {str(msg.get('text'))[:300]}")
        return kind == "bye"

    def _event(self, event: Any) -> None:
        if not isinstance(event, dict):
            raise TypeError("an event that is not an object")
        describe_event(event, self.label, only_cards(self.style.card))  # it can be told
        kind = event.get("type")
        if kind == "hand_started":
            self.by, self.hand = None, []
        elif self.by is not None and kind in MOVE_EVENTS and event.get("seat") == self.by[0]:
            event = dict(event, by=self.by[1])
        self.hand.append(event)
        if kind != "hand_ended":
            self.events.append(event)
            return
        plays = story(self.events, self.label, self.style.card)
        self.events = []
        self.say(render_hand_end(event, Side(None, len(self.names) in (4, 6), self.labels),
                                 Screen(self.style, self.width), plays))

    def _table(self, obs: Any) -> None:
        """Drawn at the start of each turn (and when the spectator comes in); the plays of a
        turn are told with the next table.  A game's end is told by its result."""
        if not isinstance(obs, dict):
            raise TypeError("a table that is not an object")
        turn = (obs.get("hand_no"), obs.get("turn_seat"))
        if obs.get("phase") == "game_over" or turn == self.drawn:
            return
        text = render_table(obs, self.events, self.names, Screen(self.style, self.width),
                            self.hand)
        self.drawn, self.events = turn, []
        self.show("")
        self.say(text)

    def flush(self) -> None:
        """The plays no table has told yet, as lines (the end of a game, of the connection)."""
        told, self.events = self.events, []
        for text in story(told, self.label, self.style.card):
            self.say("    " + text)


def tls_context(ca: str | None) -> ssl.SSLContext:
    """The client's TLS: the system's certificate authorities, or the host's own certificate
    (``--tls-ca``) for a self-signed one; the host name is always checked."""
    try:
        return ssl.create_default_context(cafile=ca)
    except (OSError, ssl.SSLError) as exc:
        raise JoinError(f"--tls-ca {ca}: {exc}") from None


def server_tls(cert: str, key: str) -> ssl.SSLContext:
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        ctx.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise ValueError(f"--tls-cert/--tls-key: {exc}") from None
    return ctx
