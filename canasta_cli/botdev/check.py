"""``canasta bot check``: put a bot through every kind of request and the rule edges.

Each check sets up a situation exactly (a stacked deal plus scripted moves:
``rare_deals.CLASSIC_DEALS``), shows the bot the game from the seat that decides there
(``game_start``, the events it may see, then ``act``), checks that it answers in time with a
legal move, and then plays the hand out with the bot in that seat and the built-in greedy
player in the others, so that the bot also meets what follows its own answers (the discard
after its melds, the partner's answer to its question...).  Every request is sorted into the
kinds of ``KINDS``; between them the checks' first decisions reach each kind, whatever the
bot answers, and a last check says that each kind was asked and answered legally.  The bot
process is reused across checks, as in a match.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..core import (
    CLASSIC,
    GameState,
    Phase,
    Ruleset,
    apply,
    format_move,
    legal_moves,
)
from ..core.moves import Add, Ask, Discard, Draw, EndHand, Meld, Move, TakePile
from ..players.greedy import GreedyPlayer
from ..protocol.messages import (
    PROTOCOL,
    PROTOCOL_1_1,
    PROTOCOLS,
    act_message,
    error_message,
    event_message,
    game_end_message,
    game_start_message,
    granted,
    hello_message,
)
from ..protocol.replies import IllegalReply, ProtocolError, read_ready, read_reply
from ..protocol.statuses import SeatStatus
from ..seats.base import SeatFailure
from ..seats.box import DEFAULT_POLICY, BoxPolicy
from ..seats.subprocess_seat import SubprocessSeat
from .rare_deals import check_deals


@dataclass
class Check:
    name: str
    passed: bool
    detail: str
    ms: float


# The kinds of request a bot is asked (protocol/README.md: ``observation.phase`` and the move
# list), each with what the bot must decide there.  A request may be of several kinds.
KINDS: dict[str, str] = {
    "draw": "phase draw with stock left: draw",
    "pile": "a pile take offered in phase draw: take the pile or leave it",
    "pile opening": "phase pile_opening: meld from the hand to open by the pile",
    "meld": "a new meld offered",
    "add": "an addition to the side's meld offered",
    "discard": "every listed move a discard: the bot must discard",
    "go-out question": "'ask' offered: go out, or ask the partner 'may I go out?' first",
    "go-out answer": "phase answer: answer the partner's 'may I go out?'",
    "forced take": "the stock gone and the pile compulsory: pile takes only",
    "stock end": "the stock gone and 'end' offered: end the hand",
}
MAX_REQUESTS = 400  # a check's requests to the bot at most (a hand takes far fewer)


def request_kinds(state: GameState, moves: list[Move]) -> list[str]:
    """The kinds (``KINDS``) of the request to act in ``state`` with ``moves`` listed."""
    phase = state.phase
    if phase is Phase.ANSWER:
        return ["go-out answer"]
    takes = any(isinstance(m, TakePile) for m in moves)
    if phase is Phase.DRAW:
        if any(isinstance(m, Draw) for m in moves):
            return ["draw", "pile"] if takes else ["draw"]
        if any(isinstance(m, EndHand) for m in moves):
            return ["pile", "stock end"] if takes else ["stock end"]
        return ["forced take"] if takes else []
    kinds = ["pile opening"] if phase is Phase.PILE_OPENING else []
    if any(isinstance(m, Ask) for m in moves):
        kinds.append("go-out question")
    if any(isinstance(m, Meld) for m in moves):
        kinds.append("meld")
    if any(isinstance(m, Add) for m in moves):
        kinds.append("add")
    if moves and all(isinstance(m, Discard) for m in moves):
        kinds.append("discard")
    return kinds


def run_checks(command: str, timeout: float = 5.0, box: BoxPolicy = DEFAULT_POLICY,
               stderr: list[str] | None = None, covered: list[str] | None = None,
               played: list[str] | None = None) -> list[Check]:
    """The checks, in order; ``stderr`` (when given) receives the end of the bot's stderr,
    ``covered`` the kinds of request (``KINDS``) the bot was asked and answered legally,
    ``played`` those it was never asked since they came with one move listed and it was
    granted auto_forced."""
    seat = SubprocessSeat(command, box=box)
    run = _Run(seat, timeout)
    try:
        return _run_checks(run)
    finally:
        if covered is not None:
            covered.extend(k for k in KINDS if k in run.covered)
        if played is not None:
            played.extend(k for k in KINDS if k not in run.covered and k in run.played)
        if stderr is not None:
            stderr.append(seat.stderr_tail(4096))


@dataclass
class _Run:
    """What the checks share: the bot, its time per answer, the next request id (ids never
    repeat for a bot process) and the kinds of request answered so far."""

    seat: SubprocessSeat
    timeout: float
    next_id: int = 1
    covered: dict[str, int] = field(default_factory=dict)
    played: set[str] = field(default_factory=set)  # kinds met only as forced moves played
    # for a bot granted auto_forced (the referee does not ask it a one-move request)

    def ask(self, game: int, state: GameState, extra: dict[str, object] | None = None
            ) -> Move:
        """The bot's move for the request to act in ``state`` (SeatFailure, ProtocolError or
        IllegalReply when there is none)."""
        moves = legal_moves(state)
        request, self.next_id = self.next_id, self.next_id + 1
        seat = self.seat
        msg = act_message(game, request, state, moves, int(self.timeout * 1000), 0,
                          caps=seat.caps)
        reply = seat.request({**msg.message(), **extra}, self.timeout) if extra else \
            seat.act(msg, self.timeout)
        return read_reply(reply, request, state, moves)


def _run_checks(run: _Run) -> list[Check]:
    seat, timeout = run.seat, run.timeout
    checks: list[Check] = []

    def record(name: str, start: float, passed: bool, detail: str) -> None:
        checks.append(Check(name, passed, detail, (time.monotonic() - start) * 1000))

    start = time.monotonic()
    try:
        ready = read_ready(seat.start(hello_message(0, check_rules(), {
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
        deals = check_deals()
        for game, (name, deal) in enumerate(deals, start=1):
            checks.append(_play_on(run, game, name, deal.state) if seat.alive else
                          Check(name, False, "not asked: the bot stopped in an earlier check", 0))
        checks.append(_coverage(run))
        first = {name: deal.state for name, deal in deals}
        checks.append(_retry(run, len(deals) + 1, first[deals[0][0]]))
        checks.append(_unknown_fields(run, len(deals) + 2, first["going out is possible"]))
        strays = seat.unsolicited() + seat.late()
        more = f"; and {len(strays) - 3} more" if len(strays) > 3 else ""
        checks.append(Check("speaks only when asked, once", not strays,
                            "; ".join(strays[:3]) + more or "yes", 0))
    finally:
        start = time.monotonic()
        seat.close(grace=2.0)
        proc = seat.proc
        clean = proc is not None and proc.returncode == 0
        checks.append(Check("exits on bye", clean,
                            f"exit code {proc.returncode if proc else None}",
                            (time.monotonic() - start) * 1000))
    return checks


def _coverage(run: _Run) -> Check:
    """Every kind of request asked and answered legally; for a bot granted auto_forced, a
    kind met only as one-move requests counts as played for it (it is never asked those)."""
    missing = [k for k in KINDS if k not in run.covered and k not in run.played]
    played = [k for k in KINDS if k not in run.covered and k in run.played]
    answered = sum(run.covered.values())
    detail = (f"all {len(KINDS) - len(played)} kinds asked ({answered} answers)"
              if not missing else "never answered legally: " + ", ".join(missing))
    if played:
        detail += "; played for it (auto_forced, one move listed): " + ", ".join(played)
    return Check("every kind of request asked and answered", not missing, detail, 0)


def coverage_line(covered: list[str], played: list[str]) -> str:
    """The line ``covered: draw, pile, ...`` (what was not, after it)."""
    missing = [k for k in KINDS if k not in covered and k not in played]
    return (f"covered: {', '.join(covered) or 'none'}"
            + (f"; played for the bot (auto_forced): {', '.join(played)}" if played else "")
            + (f"; not covered: {', '.join(missing)}" if missing else ""))


def check_rules() -> Ruleset:
    """The rules of the checks' games: classic, one hand each."""
    return CLASSIC.with_options(max_hands=1)


def _why(exc: Exception) -> str:
    if isinstance(exc, SeatFailure):
        return f"{exc.status}: {exc.reason}"
    return str(exc)


def _show(seat: SubprocessSeat, game: int, state: GameState) -> int:
    """``game_start`` and the game's events so far, from the seat to act; how many events."""
    actor = state.actor
    seat.send(game_start_message(game, actor, state.rules, ["check"] * state.rules.players,
                                 seat.caps if seat.protocol == PROTOCOL_1_1 else None))
    events = state.events()
    for event in events:
        seat.send(event_message(game, event, actor))
    return len(events)


def _play_on(run: _Run, game: int, name: str, state: GameState) -> Check:
    """The bot's answer in ``state``, then the hand played out: the bot in the seat to act
    (every request of that seat put to it), the built-in greedy player in the others."""
    start = time.monotonic()
    seat, me = run.seat, state.actor
    answered: dict[str, None] = {}
    first = ""
    asked = 0
    opponent = GreedyPlayer()
    auto = "auto_forced" in seat.caps
    sent = _show(seat, game, state)
    while not state.is_over and asked < MAX_REQUESTS:
        moves = legal_moves(state)
        if state.actor != me:
            msg = act_message(game, 0, state, moves, int(run.timeout * 1000), 0)
            state = apply(state, moves[opponent.choose(dict(msg.message()))])
            continue
        kinds = request_kinds(state, moves)
        if auto and len(moves) == 1:
            run.played.update(kinds)  # played for it, as the referee does: it hears the events
            state = apply(state, moves[0])
            continue
        events = state.events()
        for event in events[sent:]:
            seat.send(event_message(game, event, me))
        sent = len(events)
        asked += 1
        try:
            move = run.ask(game, state)
        except (SeatFailure, ProtocolError, IllegalReply) as exc:
            return Check(name, False, f"its request {asked} in this hand, {_kinds(kinds)}:"
                         f" {_why(exc)}", (time.monotonic() - start) * 1000)
        for kind in kinds:
            run.covered[kind] = run.covered.get(kind, 0) + 1
            answered[kind] = None
        first = first or f"answered {format_move(move)!r}; "
        state = apply(state, move)
    if state.is_over:
        for event in state.events()[sent:]:
            seat.send(event_message(game, event, me))
        seat.send(game_end_message(game, state, [SeatStatus.OK] * state.rules.players))
        seat.flush()
    end = "the hand played out" if state.is_over else "stopped there"
    said = (f"{asked} answer{'s' * (asked != 1)} ({', '.join(answered)})" if asked else
            "never asked (each time one move listed, played for it: auto_forced)")
    return Check(name, True, f"{first}{end}: {said}", (time.monotonic() - start) * 1000)


def _kinds(kinds: list[str]) -> str:
    """``kind discard (every listed move a discard: the bot must discard)``."""
    if not kinds:
        return "of no listed kind"
    return (f"kind{'s' * (len(kinds) > 1)} {', '.join(kinds)}"
            f" ({'; '.join(KINDS[k] for k in kinds)})")


def _retry(run: _Run, game: int, state: GameState) -> Check:
    name = "answers again after an error with retry"
    start = time.monotonic()
    seat = run.seat
    try:
        _show(seat, game, state)
        request = run.next_id
        run.ask(game, state)
        moves = legal_moves(state)
        reply = seat.request(error_message(request, SeatStatus.ILLEGAL_MOVE,
                                           "check: please answer again", retry=True),
                             run.timeout)
        move = format_move(read_reply(reply, request, state, moves))
        return Check(name, True, f"answered {move!r}", (time.monotonic() - start) * 1000)
    except (SeatFailure, ProtocolError, IllegalReply) as exc:
        return Check(name, False, _why(exc), (time.monotonic() - start) * 1000)


def _unknown_fields(run: _Run, game: int, state: GameState) -> Check:
    name = "ignores unknown fields"
    start = time.monotonic()
    try:
        _show(run.seat, game, state)
        move = format_move(run.ask(game, state, {"x_future": {"anything": [1, 2]}}))
        return Check(name, True, f"answered {move!r}", (time.monotonic() - start) * 1000)
    except (SeatFailure, ProtocolError, IllegalReply) as exc:
        return Check(name, False, _why(exc), (time.monotonic() - start) * 1000)
