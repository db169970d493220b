"""``canasta bot check``: put a bot through every kind of request and the rule edges.

Each check sets up a situation exactly (stacked deck plus scripted moves), shows the bot the
game from its seat (``game_start``, the events it may see, then ``act``) and checks that it
answers in time with a legal move.  The bot process is reused across checks, as in a match.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from .core import (
    CLASSIC,
    GameState,
    apply,
    format_move,
    legal_moves,
    new_game,
    parse_deck_text,
    parse_move,
)
from .core.cards import KIND_OF
from .core.moves import Discard, Draw
from .protocol.messages import (
    PROTOCOL,
    PROTOCOL_1_1,
    PROTOCOLS,
    act_message,
    error_message,
    event_message,
    game_start_message,
    granted,
    hello_message,
)
from .protocol.replies import IllegalReply, ProtocolError, read_ready, read_reply
from .protocol.statuses import SeatStatus
from .seats.base import SeatFailure
from .seats.subprocess_seat import SubprocessSeat


@dataclass
class Check:
    name: str
    passed: bool
    detail: str
    ms: float


def _game(deck: str, *moves: str) -> GameState:
    st = new_game(CLASSIC, seed=1, decks=parse_deck_text(deck, CLASSIC, dealer=3, seed=1),
                  dealer=3)
    for text in moves:
        top = KIND_OF[st.pile[-1]] if st.pile else None
        st = apply(st, parse_move(text, top_rank=top))
    return st


def _exhausted() -> GameState:
    st = _game("seat0: Ah Ad 4c 5d 6h 7s 8c 9d 10h Js Qc\nstock: Kh 3h 3d 3h 3d")
    while st.stock or st.phase.value != "draw":
        moves = legal_moves(st)
        if Draw() in moves:
            st = apply(st, Draw())
        else:
            st = apply(st, next(m for m in moves if isinstance(m, Discard)))
    return st


OPENING = "seat0: 9h 9c Kh Kd Kc 5d 6h 7s 8c 10h Js\nstock: Jo 9d 4s"
GOING_OUT = "seat0: Kh Kd Kc Ks Kh Kd Kc Ah Ad Ac 9h\nstock: Qh Ks 4d"
# The same deals played on as real games by bot check --games (botgames.py): a name, the
# deck, the moves that lead to the decision (None: the exhausted-stock walk).
STACKED: list[tuple[str, str, list[str] | None]] = [
    ("a frozen pile offered (taken or refused)", OPENING, []),
    ("the opening meld", "seat0: Kh Kd Kc 5h 5d 2c 4c 6h 7s 8c 9d\nstock: Jh 4s", ["draw"]),
    ("opening by the pile", OPENING, ["pile 9 9"]),
    ("going out or asking the partner", GOING_OUT, ["draw"]),
    ("the partner's question answered", GOING_OUT, ["draw", "ask"]),
    ("red threes at the deal", "seat0: 3h 3d Kh Kd 7h 7d 9h 9d 5c 6c 8c\nstock: 8h Qc Qd 4s", []),
    ("the stock runs out", "seat0: Ah Ad 4c 5d 6h 7s 8c 9d 10h Js Qc\nstock: Kh 3h 3d 3h 3d",
     None),
]
SCENARIOS: list[tuple[str, Callable[[], GameState]]] = [
    ("draw or take a frozen pile with a natural pair", lambda: _game(OPENING)),
    ("initial meld: reach the minimum before discarding", lambda: _game(
        "seat0: Kh Kd Kc 5h 5d 2c 4c 6h 7s 8c 9d\nstock: Jh 4s", "draw")),
    ("opening by the pile: meld from the hand before the pick-up",
     lambda: _game(OPENING, "pile 9 9")),
    ("going out is possible", lambda: _game(GOING_OUT, "draw")),
    ("answer the partner's question", lambda: _game(GOING_OUT, "draw", "ask")),
    ("red threes laid and replaced at the deal", lambda: _game(
        "seat0: 3h 3d Kh Kd 7h 7d 9h 9d 5c 6c 8c\nstock: 8h Qc Qd 4s")),
    ("stock exhausted: take the pile or end the hand", _exhausted),
]


def run_checks(command: str, timeout: float = 5.0, sandbox: bool = False,
               stderr: list[str] | None = None) -> list[Check]:
    """The checks, in order; ``stderr`` (when given) receives the end of the bot's stderr."""
    seat = SubprocessSeat(command, sandbox=sandbox)
    try:
        return _run_checks(seat, timeout)
    finally:
        if stderr is not None:
            stderr.append(seat.stderr_tail(4096))


def _run_checks(seat: SubprocessSeat, timeout: float) -> list[Check]:
    checks: list[Check] = []

    def record(name: str, start: float, passed: bool, detail: str) -> None:
        checks.append(Check(name, passed, detail, (time.monotonic() - start) * 1000))

    start = time.monotonic()
    try:
        ready = read_ready(seat.start(hello_message(0, CLASSIC, {
            "decision_ms": int(timeout * 1000), "bank_ms": 0}), timeout))
        spoken = ready.get("protocol", PROTOCOL)
        if spoken not in PROTOCOLS:
            raise SeatFailure(SeatStatus.PROTOCOL_ERROR, f"ready names protocol {spoken!r}; this"
                              f" referee speaks {' or '.join(PROTOCOLS)}")
        if spoken == PROTOCOL_1_1:
            seat.protocol, seat.caps = spoken, granted(ready)
        caps = f", capabilities granted: {', '.join(sorted(seat.caps)) or 'none'}" \
            if spoken == PROTOCOL_1_1 else ""
        record("handshake: hello -> ready", start, True,
               f"name {ready.get('name')!r}, protocol {spoken}{caps}")
    except SeatFailure as f:
        record("handshake: hello -> ready", start, False, f"{f.status}: {f.reason}")
        seat.close()
        return checks
    try:
        for game, (name, build) in enumerate(SCENARIOS, start=1):
            checks.append(_scenario(seat, game, name, build(), timeout))
        checks.append(_retry(seat, len(SCENARIOS) + 1, timeout))
        checks.append(_unknown_fields(seat, len(SCENARIOS) + 2, timeout))
        strays = seat.unsolicited() + seat.late()
        checks.append(Check("speaks only when asked, once", not strays,
                            "; ".join(strays) or "yes", 0))
    finally:
        start = time.monotonic()
        seat.close(grace=2.0)
        proc = seat.proc
        clean = proc is not None and proc.returncode == 0
        checks.append(Check("exits on bye", clean,
                            f"exit code {proc.returncode if proc else None}",
                            (time.monotonic() - start) * 1000))
    return checks


def _show(seat: SubprocessSeat, game: int, state: GameState) -> int:
    actor = state.actor
    seat.send(game_start_message(game, actor, state.rules, ["check"] * state.rules.players,
                                 seat.caps if seat.protocol == PROTOCOL_1_1 else None))
    for event in state.events():
        seat.send(event_message(game, event, actor))
    return actor


def _ask(seat: SubprocessSeat, game: int, state: GameState, timeout: float,
         extra: dict[str, object] | None = None, request: int | None = None) -> str:
    moves = legal_moves(state)
    req = request if request is not None else game * 100
    msg = act_message(game, req, state, moves, int(timeout * 1000), 0, caps=seat.caps)
    reply = seat.request({**msg.message(), **extra}, timeout) if extra else \
        seat.act(msg, timeout)
    return format_move(read_reply(reply, req, state, moves))


def _scenario(seat: SubprocessSeat, game: int, name: str, state: GameState,
              timeout: float) -> Check:
    start = time.monotonic()
    try:
        _show(seat, game, state)
        move = _ask(seat, game, state, timeout)
        return Check(name, True, f"answered {move!r}", (time.monotonic() - start) * 1000)
    except SeatFailure as f:
        return Check(name, False, f"{f.status}: {f.reason}", (time.monotonic() - start) * 1000)
    except (ProtocolError, IllegalReply) as exc:
        return Check(name, False, str(exc), (time.monotonic() - start) * 1000)


def _retry(seat: SubprocessSeat, game: int, timeout: float) -> Check:
    name = "answers again after an error with retry"
    start = time.monotonic()
    state = _game(OPENING)
    try:
        _show(seat, game, state)
        _ask(seat, game, state, timeout)
        moves = legal_moves(state)
        reply = seat.request(error_message(game * 100, "ILLEGAL_MOVE",
                                           "check: please answer again", retry=True), timeout)
        move = format_move(read_reply(reply, game * 100, state, moves))
        return Check(name, True, f"answered {move!r}", (time.monotonic() - start) * 1000)
    except (SeatFailure, ProtocolError, IllegalReply) as exc:
        return Check(name, False, str(exc), (time.monotonic() - start) * 1000)


def _unknown_fields(seat: SubprocessSeat, game: int, timeout: float) -> Check:
    name = "ignores unknown fields"
    start = time.monotonic()
    state = _game(GOING_OUT, "draw")
    try:
        _show(seat, game, state)
        move = _ask(seat, game, state, timeout, {"x_future": {"anything": [1, 2]}})
        return Check(name, True, f"answered {move!r}", (time.monotonic() - start) * 1000)
    except (SeatFailure, ProtocolError, IllegalReply) as exc:
        return Check(name, False, str(exc), (time.monotonic() - start) * 1000)
