"""The referee: plays games between seats, one decision at a time, against the engine.

It greets every seat (``hello``/``ready``, the protocol version and capabilities), sends each
seat the events that seat may see, and asks the seat to act for every decision.  It times
each decision on the monotonic clock (the deadline, the time bank, the margin), judges the
answer with the engine, asks again or plays a default move after a bad one, and turns every
failure into a seat status.  It writes the game's sealed record line by line through
``records.RecordWriter`` (the reveal once the game is over; a saved game's seed in its
secret file meanwhile), so that nothing a bot does can crash it or lose the record.

The seats do their own reading and writing (a bot's pipes, the prompt, a socket) within the
time the referee gives them; the players' clocks are their own.
"""

from __future__ import annotations

import contextlib
import json
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from time import monotonic as _monotonic
from typing import Any, Literal

from ..core import (
    GameState,
    Move,
    Ruleset,
    apply,
    format_move,
    legal_moves,
    new_game,
)
from ..core.cards import TEXT_OF
from ..core.events import Event
from ..core.moves import Answer, Discard, Draw
from ..core.reasons import GOES_ON, GameEnd
from ..protocol.messages import (
    PROTOCOL,
    PROTOCOL_1_1,
    PROTOCOLS,
    ActRequest,
    act_message,
    error_message,
    event_message,
    game_end_message,
    game_start_message,
    granted,
    hello_message,
    match_end_message,
)
from ..protocol.replies import IllegalReply, ProtocolError, quote, read_ready, read_reply
from ..protocol.statuses import SeatStatus
from ..seats.base import Interrupted, Seat, SeatFailure
from ..seats.subprocess_seat import SubprocessSeat, hold_idle_bots
from ..util.private_files import write_private
from .records import RecordWriter, failure_line

FailurePolicy = Literal["default", "forfeit"]


@dataclass(frozen=True)
class TimeControl:
    """Per-decision deadline plus a bank drawn on when a decision runs over (Kaggle-style)."""

    startup_ms: int = 10_000
    decision_ms: int = 1_000
    bank_ms: int = 10_000
    margin_ms: int = 50  # slack for pipe hiccups, never charged to the bot

    def to_json(self) -> dict[str, int]:
        return {"startup_ms": self.startup_ms, "decision_ms": self.decision_ms,
                "bank_ms": self.bank_ms, "margin_ms": self.margin_ms}


@dataclass
class SeatReport:
    name: str
    status: SeatStatus = SeatStatus.OK
    failures: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    decisions: int = 0
    default_moves: int = 0
    time_ms: float = 0.0
    bank_ms: float = 0.0
    alive: bool = True  # still asked to decide in this game (else default moves)
    late: int = 0  # replies to earlier requests, dropped
    gone: bool = False  # crashed: nothing more is sent to it

    def fail(self, status: SeatStatus, reason: str) -> None:
        self.failures[status] += 1
        if self.status == SeatStatus.OK or status == SeatStatus.CRASHED:
            self.status = status
        if len(self.errors) < 20:
            self.errors.append(f"{status}: {reason}")

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "failures": dict(self.failures),
                "errors": self.errors, "decisions": self.decisions,
                "default_moves": self.default_moves, "time_ms": round(self.time_ms, 1),
                "late_replies": self.late}


@dataclass
class GameResult:
    game: int
    seed: int
    winner: int | None
    reason: str
    scores: tuple[int, ...]
    hands: int
    hand_scores: list[tuple[int, ...]]
    seats: list[dict[str, Any]]
    forfeit: int | None = None
    record: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "seed": self.seed, "winner": self.winner,
                "reason": self.reason, "scores": list(self.scores), "hands": self.hands,
                "hand_scores": [list(h) for h in self.hand_scores], "seats": self.seats,
                "forfeit": self.forfeit, "record": self.record}


def _recorded_move(state: GameState, line: dict[str, Any]) -> tuple[Move, str]:
    """A move line of a record, checked against the game as replayed so far."""
    from ..core import parse_move
    from ..core.cards import KIND_OF
    if line.get("seat") != state.actor:
        raise ValueError(f"the record has seat {line.get('seat')} moving, but it is seat"
                         f" {state.actor}'s turn")
    top = KIND_OF[state.pile[-1]] if state.pile else None
    move = parse_move(str(line.get("move")), top_rank=top)
    if move not in legal_moves(state):
        raise ValueError(f"recorded move {line.get('move')!r} is not legal at that point")
    return move, str(line.get("by", "bot"))


def default_move(moves: list[Move]) -> Move:
    """What the referee plays for a seat that failed: draw, else answer no, else the first
    discard, else the first legal move (all of them keep the game legal)."""
    for wanted in (Draw(), Answer(False)):
        if wanted in moves:
            return wanted
    for m in moves:
        if isinstance(m, Discard):
            return m
    return moves[0]


@dataclass(frozen=True)
class GameStart:
    """What a game starts from besides its seed: stacked ``decks`` (one per hand) and the
    first ``dealer``, a save's recorded ``move`` lines to replay first (``prefix``), and the
    totals and hand number of a game taken up part-way (``new_game``'s ``scores``,
    ``hand_no``)."""

    decks: list[list[int]] | None = None
    dealer: int | None = None
    prefix: list[dict[str, Any]] | None = None
    scores: list[int] | None = None
    hand_no: int = 1


FROM_THE_DEAL = GameStart()  # a game dealt from its seed alone


@dataclass(frozen=True)
class _Asking:
    """One decision being asked: the state, its listed moves, the request, the record, and
    when the asking started (the seat's clock runs from there)."""

    state: GameState
    moves: list[Move]
    act: ActRequest
    record: RecordWriter | None
    start: float


@dataclass(frozen=True)
class _Failure:
    """Why a seat gave no legal move; ``noted``: the record already says so (its last bad
    answer was noted when the retries ran out)."""

    status: SeatStatus
    reason: str
    noted: bool = False


@dataclass
class _Run:
    """A game in play: its state as it goes, and how it stopped."""

    game: int
    state: GameState
    record: RecordWriter | None
    pending: list[dict[str, Any]]  # recorded moves still to replay
    forfeit: int | None = None
    saved: bool = False


class Referee:
    """Plays games between ``seats`` (one per player, seat 0 first)."""

    def __init__(self, seats: Sequence[Seat], rules: Ruleset, time_control: TimeControl | None = None,
                 on_failure: FailurePolicy = "default", record_dir: Path | None = None,
                 max_retries: int = 2) -> None:
        if len(seats) != rules.players:
            raise ValueError(f"{rules.name} needs {rules.players} seats, got {len(seats)}")
        self.seats = list(seats)
        self.rules = rules
        self.time = time_control or TimeControl()
        self.on_failure = on_failure
        self.record_dir = record_dir
        self.max_retries = max_retries
        self.reports = [SeatReport(s.name) for s in seats]
        self._started = False
        # Request ids never repeat for a seat, even across referees (a tournament reuses bot
        # processes), so that a reply from an earlier game is recognised as late.
        self._request = max((s.last_request for s in seats), default=0)
        self._pending: list[dict[str, Any]] = []  # handshake failures, for the first record
        # act built -> legal move in hand, per bot decision: 8 bytes each, not a float object's 32
        self.round_trips_ms: array[float] = array("d")
        # Seats that queue what they are sent (bots on a pipe); the others need no flush.
        self._flushing = [i for i, s in enumerate(seats) if type(s).flush is not Seat.flush]
        for i in self._flushing:
            seats[i].while_waiting = partial(self._flush_others, i)
        self._hearing = [i for i, s in enumerate(seats) if s.hears_events]  # seats are fixed
        # Seats that can have sent something unasked (the others always report nothing).
        self._stray_checks = [type(s).unsolicited is not Seat.unsolicited
                              or type(s).late is not Seat.late for s in seats]

    # Setup -----------------------------------------------------------------------------------
    def start(self) -> None:
        """Handshake with every seat (once, before the first game)."""
        if self._started:
            return
        self._started = True
        for seat in self.seats:
            if not seat.started:
                seat.launch()
        for i, seat in enumerate(self.seats):
            if seat.started:
                continue  # kept alive from an earlier match (tournaments reuse bot processes)
            hello = hello_message(i, self.rules, self.time.to_json(), seat.name)
            try:
                ready = read_ready(seat.start(hello, self.time.startup_ms / 1000))
                spoken = ready.get("protocol", PROTOCOL)
                if spoken not in PROTOCOLS:
                    raise SeatFailure(SeatStatus.PROTOCOL_ERROR, f"speaks {quote(str(spoken))}, not"
                                      f" {' or '.join(PROTOCOLS)}")
                seat.protocol = spoken
                seat.caps = granted(ready) if spoken == PROTOCOL_1_1 else frozenset()
                seat.started = True
            except SeatFailure as f:
                seat.close()  # a bot that failed its handshake is not kept running
                self._dead(i, f.status, f"handshake: {f.reason}")

    def _dead(self, seat: int, status: SeatStatus, reason: str) -> None:
        self.reports[seat].fail(status, reason)
        self.reports[seat].alive = False
        self._pending.append(failure_line(seat, status, reason))

    def end_match(self, results: list[GameResult]) -> None:
        """canasta/1.1 seats hear ``match_end`` (the results so far) before ``bye``."""
        summary = [{"game": r.game, "winner": r.winner, "reason": r.reason,
                    "scores": list(r.scores)} for r in results]
        for i, seat in enumerate(self.seats):
            if seat.protocol == PROTOCOL_1_1:
                self._send(i, match_end_message(i, summary))
                if i in self._flushing and self._listening(i):
                    seat.flush()

    def close(self) -> None:
        for seat in self.seats:
            seat.while_waiting = None
            with contextlib.suppress(Exception):  # one seat's trouble must not stop the others
                seat.close()

    # A game ----------------------------------------------------------------------------------
    def play(self, game: int = 1, seed: int = 0, setup: GameStart = FROM_THE_DEAL,
             record_file: Path | None = None, secret_file: Path | None = None) -> GameResult:
        """Play one game from ``seed`` (and ``setup``).  A person quitting (``Interrupted``)
        ends the game as "saved"; its record is the save.

        The record is sealed while the game runs: it holds what every seat may see and no
        more (no seed, no deck, no hidden card), and a ``reveal`` line with the seed and decks
        is added when the game is over.  ``secret_file`` (saved games) keeps the seed and decks
        meanwhile, for resuming; it is removed once the reveal is written."""
        self.start()
        # Events go out (and into the record) as they happen, so the state keeps only this
        # hand's, unless a seat's observations carry the whole game's history.
        state = new_game(self.rules, seed=seed, decks=setup.decks or [], dealer=setup.dealer,
                         scores=setup.scores, hand_no=setup.hand_no,
                         hand_log=not any("history" in s.caps for s in self.seats))
        record = self._open_record(game, record_file)
        self._fresh_reports()
        secret = {"seed": seed, "dealer": state.dealer,
                  "decks": [[TEXT_OF[c] for c in d] for d in state.stacked]}
        self._begin(game, state, setup, record, (secret_file, secret))
        run = _Run(game, state, record, list(setup.prefix or []))
        try:
            self._moves(run)
        finally:
            result = self._finish(game, seed, run.state, run.forfeit, record, run.saved)
            # A saved game may go on later (even one cut short by an error): its seed stays
            # in the secret file until the game is really over.
            over = secret_file is None or result.reason not in GOES_ON
            if record is not None:
                if over:
                    record.reveal(secret)
                    if secret_file is not None:
                        secret_file.unlink(missing_ok=True)
                record.result(result.to_json(), sealed=not over)
                record.close()
        return result

    def _fresh_reports(self) -> None:
        """A fresh report per game; a bot whose process is gone stays out, with its status."""
        old = self.reports
        self.reports = [SeatReport(s.name) for s in self.seats]
        for rep, before, seat in zip(self.reports, old, self.seats, strict=True):
            rep.bank_ms = float(self.time.bank_ms)
            if not before.alive and (not seat.started or not seat.usable):
                rep.alive, rep.status, rep.errors = False, before.status, before.errors[:1]

    def _begin(self, game: int, state: GameState, setup: GameStart,
               record: RecordWriter | None, sealed: tuple[Path | None, dict[str, Any]]) -> None:
        """The record's header (``start`` keeps a game begun from given totals, so that it
        replays), the sealed seed kept for a save, the failures noted before the game, and
        each seat's ``game_start``."""
        names = [s.name for s in self.seats]
        header = {"protocol": PROTOCOL, "game": game, "sealed": True,
                  "dealer": state.dealer, "rules": self.rules.to_dict(), "seats": names,
                  "time": self.time.to_json(), "on_failure": self.on_failure}
        if setup.scores is not None or setup.hand_no != 1:
            header["start"] = {"scores": list(state.scores), "hand_no": setup.hand_no}
        secret_file, secret = sealed
        if secret_file is not None:
            header["secret"] = secret_file.name
            if not secret_file.exists():
                write_private(secret_file, json.dumps(secret) + "\n")
        if record is not None:
            record.header(**header)
        for note in self._pending:
            self.reports[note["seat"]].failures[note["status"]] += 1  # counted in this game
            if record is not None:
                record.write(note)
        self._pending.clear()
        for i, seat in enumerate(self.seats):
            self._send(i, game_start_message(
                game, i, self.rules, names, seat.caps if seat.protocol == PROTOCOL_1_1 else None))

    def _moves(self, run: _Run) -> None:
        """The game's moves to its end: a save's recorded ones first (the seats hear them but
        are not asked), then each seat's decisions; a seat that fails with ``forfeit`` ends
        it, a person quitting saves it."""
        sent: Any = None
        record, game = run.record, run.game
        while True:
            state = run.state
            if record is not None or self._hearing:
                sent = self._publish(game, state, sent, record)
            if state.is_over:
                return
            moves = legal_moves(state)
            actor = state.actor
            move: Move | None
            if run.pending:
                move, by = _recorded_move(state, run.pending.pop(0))
            elif len(moves) == 1 and "auto_forced" in self.seats[actor].caps:
                move, by = moves[0], "auto"  # asked for: a forced move is not asked
            else:
                try:
                    move, by = self._decide(game, state, moves, record)
                except Interrupted:
                    run.saved = True
                    return
            if move is None:
                run.forfeit = actor
                return
            run.state = apply(state, move)
            if record is not None:
                record.move(actor, format_move(move), by)

    def _decide(self, game: int, state: GameState, moves: list[Move],
                record: RecordWriter | None) -> tuple[Move | None, str]:
        """The move of the seat to act, and who chose it: the seat, or the referee's default
        (a seat out of the game, or one that failed; ``forfeit`` gives no move)."""
        actor = state.actor
        rep = self.reports[actor]
        seat = self.seats[actor]
        rep.decisions += 1
        if not rep.alive:
            rep.default_moves += 1
            return default_move(moves), "default"
        self._request += 1
        req = self._request
        seat.last_request = req
        start = _monotonic()
        act = act_message(game, req, state, moves, self.time.decision_ms, int(rep.bank_ms),
                          explains=seat.explains, caps=seat.caps)
        if not seat.timed:
            self._flush_others(actor)  # a person thinks for seconds: the bots catch up now
        if not isinstance(seat, SubprocessSeat):
            hold_idle_bots()  # a bot holds the others itself, once its request is written
        asking = _Asking(state, moves, act, record, start)
        move, failure = self._ask(asking)
        used = (_monotonic() - start) * 1000
        rep.time_ms += used
        over = used - self.time.decision_ms
        if over > 0 and seat.timed:
            rep.bank_ms = max(0.0, rep.bank_ms - over)
        if self._stray_checks[actor]:
            self._strays(actor, record)
        if move is not None:
            self.round_trips_ms.append(used)
            return move, seat.played_by or ("bot" if seat.timed else "human")
        assert failure is not None
        return self._failed(asking, failure)

    def _ask(self, a: _Asking) -> tuple[Move | None, _Failure | None]:
        """Ask until a legal move comes, asking again after a bad answer (``max_retries``
        times with ``on_failure=default``) while the seat's time lasts."""
        actor, req = a.state.actor, a.act.id
        seat = self.seats[actor]
        budget = self.time.decision_ms + self.reports[actor].bank_ms if seat.timed else 1e12
        retry: dict[str, Any] | None = None  # the error message that asks again
        max_retries = self.max_retries if self.on_failure == "default" else 0
        last_error: tuple[SeatStatus, str] = (SeatStatus.PROTOCOL_ERROR, "")
        retries = 0
        while True:
            if retries > max_retries:
                return None, _Failure(last_error[0], f"{last_error[1]} (after {retries} tries)",
                                      noted=True)
            left = budget + self.time.margin_ms - (_monotonic() - a.start) * 1000
            if left <= 0:
                return None, _Failure(SeatStatus.TIMEOUT, f"no legal move within {budget:.0f} ms")
            try:
                reply = seat.act(a.act, left / 1000) if retry is None else \
                    seat.request(retry, left / 1000)
                return read_reply(reply, req, a.state, a.moves), None
            except SeatFailure as f:
                if f.status != SeatStatus.PROTOCOL_ERROR or not seat.usable:
                    return None, _Failure(f.status, f.reason)
                last_error = (f.status, f.reason)
            except ProtocolError as exc:
                last_error = (exc.code, str(exc))
            except IllegalReply as exc:
                last_error = (SeatStatus.ILLEGAL_MOVE, str(exc))
            retries += 1
            self._note(a.record, actor, *last_error)
            retry = error_message(req, last_error[0], last_error[1],
                                  retry=retries <= max_retries)

    def _failed(self, a: _Asking, failure: _Failure) -> tuple[Move | None, str]:
        """A seat that gave no legal move: noted; a stuck or dead bot is out for the rest of
        the game; then a default move (told to the seat), or none with ``forfeit``."""
        actor, req = a.state.actor, a.act.id
        rep, seat = self.reports[actor], self.seats[actor]
        status, reason = failure.status, failure.reason
        if not failure.noted:
            self._note(a.record, actor, status, reason)
        if status in (SeatStatus.CRASHED, SeatStatus.TIMEOUT) or not seat.usable:
            rep.alive = False  # a stuck or dead bot gets default moves for the rest of the game
        rep.gone = status == SeatStatus.CRASHED or not seat.usable
        if self.on_failure == "forfeit":
            return None, "forfeit"
        self._send(actor, error_message(req, status, reason + "; the referee played a default"
                                        " move", retry=False))
        rep.default_moves += 1
        return default_move(a.moves), "default"

    def _strays(self, i: int, record: RecordWriter | None) -> None:
        """Messages a seat sent unasked are counted; late replies are only noted."""
        seat = self.seats[i]
        for stray in seat.unsolicited():
            self._note(record, i, SeatStatus.PROTOCOL_ERROR, stray)
        for note in seat.late():
            self.reports[i].late += 1
            if record is not None:
                record.late(i, note)

    def _note(self, record: RecordWriter | None, seat: int, status: SeatStatus, reason: str) -> None:
        self.reports[seat].fail(status, reason)
        if record is not None:
            record.failure(seat, status, reason)

    def _listening(self, i: int) -> bool:
        """A seat whose process runs hears everything, even after it failed (it is then no
        longer asked to decide in this game)."""
        seat = self.seats[i]
        return seat.started and seat.usable and not self.reports[i].gone

    def _send(self, seat: int, msg: dict[str, Any]) -> None:
        if self._listening(seat):
            self.seats[seat].send(msg)

    def _publish(self, game: int, state: GameState, sent: Any, record: RecordWriter | None) -> Any:
        """Send every event since ``sent`` (a log node) to every seat, as that seat sees it."""
        hearing = self._hearing
        if record is None and not hearing:
            return state.log  # nobody to tell: in-process players that ignore events
        fresh: list[Event] = []
        node = state.log
        while node is not None and node is not sent:
            fresh.append(node[1])
            node = node[0]
        for event in reversed(fresh):
            if record is not None:
                record.event(event.view(-1))
            for i in hearing:
                self._send(i, event_message(game, event, i))
        # Events stay queued: a bot gets them with its next request, or while another bot
        # thinks (``_flush_others``), or when its queue grows large.  A bot that answers at
        # once then wakes the others for nothing: on two cores they would only compete.
        return state.log

    def _flush_others(self, actor: int) -> None:
        """The bot to act is thinking: hand the other bots their news meanwhile."""
        for i in self._flushing:
            if i != actor and self._listening(i):
                self.seats[i].flush()

    def _finish(self, game: int, seed: int, state: GameState, forfeit: int | None,
                record: RecordWriter | None, saved: bool = False) -> GameResult:
        rules = self.rules
        winner, reason = state.winner, state.game_end_reason or GameEnd.UNFINISHED
        if saved:
            reason = GameEnd.SAVED
        if forfeit is not None:
            loser = rules.side_of(forfeit)
            others = [s for s in range(rules.sides) if s != loser]
            best = max(others, key=lambda s: state.scores[s])
            winner, reason = best, GameEnd.FORFEIT
        statuses = [r.status for r in self.reports]
        end = game_end_message(game, state, statuses)
        end.update(winner=winner, reason=reason)
        for i in range(len(self.seats)):
            self._send(i, end)
        result = GameResult(game, seed, winner, reason, state.scores, len(state.results),
                            [r.totals for r in state.results],
                            [r.to_json() for r in self.reports], forfeit,
                            record.name if record is not None else None)
        return result

    # Records -------------------------------------------------------------------------------
    def _open_record(self, game: int, path: Path | None = None) -> RecordWriter | None:
        if path is None:
            if self.record_dir is None:
                return None
            path = self.record_dir / f"game-{game:04d}.jsonl"
        return RecordWriter(path)
