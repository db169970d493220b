"""``canasta bot ask``: one recorded decision put to a bot again, exactly as in the game.

The game is played again from its record (the seed and decks of its ``reveal`` line) by a
referee whose every decision is the recorded move.  The bot sits in its recorded seat and
hears everything that seat heard: the handshake, ``game_start``, each event and each ``act``
before the chosen one (the same request ids and the same bytes; its answers to those are
read and compared with the record, never played), then the chosen ``act``, whose answer,
time and the bot's stderr are reported.  What cannot be the same is said: the time bank
(full, as when the bot never ran over its time), and earlier games of a match (the bot
meets this game as its first).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

from .core import GameState, Move, Ruleset, format_move, parse_card_sequence, parse_move
from .core.cards import KIND_OF
from .protocol.messages import act_message, encode
from .protocol.statuses import SeatStatus
from .referee import Referee, TimeControl
from .seats.base import Message, Seat, SeatFailure
from .seats.subprocess_seat import SubprocessSeat


class AskError(ValueError):
    """The record or the decision asked for cannot be used; the message is one line."""


@dataclass
class Asked:
    seat: int
    decision: int              # the seat's decision number (1: its first in the game)
    step: int                  # the game's move number
    request: bytes             # the act, as sent
    recorded: str              # the move played in the game
    answer: Message | None     # the bot's reply (None: it failed)
    failure: str | None
    ms: float
    stderr: str = ""
    earlier: list[str] = field(default_factory=list)  # earlier answers that differ


class _Stop(Exception):
    pass


class _Quiet(Seat):
    """Another seat of the recorded game: it hears and says nothing (its moves are the
    record's)."""

    hears_events = False

    def __init__(self, name: str) -> None:
        self.name = name

    def start(self, hello: Message, timeout: float) -> Message:
        return {"type": "ready", "protocol": "canasta/1", "name": self.name}

    def send(self, msg: Message) -> None:
        pass

    def request(self, msg: Message, timeout: float) -> Message:
        raise AssertionError("a quiet seat is never asked")


class AskReferee(Referee):
    def __init__(self, seats: list[Seat], rules: Ruleset, tc: TimeControl,
                 moves: list[dict[str, Any]], target: int, decision: int) -> None:
        super().__init__(seats, rules, tc)
        self.moves = list(moves)
        self.target = target
        self.decision = decision
        self.count = 0
        self.step = 0
        self.asked: Asked | None = None
        self.earlier: list[str] = []

    def _decide(self, game: int, state: GameState, moves: list[Move],
                record: object) -> tuple[Move | None, str]:
        if not self.moves:
            raise AskError("the record ends before that decision")
        line = self.moves.pop(0)
        self.step += 1
        actor = state.actor
        if line.get("seat") != actor:
            raise AskError(f"move {self.step} of the record is seat {line.get('seat')}'s, but it"
                           f" is seat {actor}'s turn")
        top = KIND_OF[state.pile[-1]] if state.pile else None
        move = parse_move(str(line.get("move")), top_rank=top)
        if move not in moves:
            raise AskError(f"move {self.step} of the record is not legal there")
        by = str(line.get("by", "bot"))
        if by in ("bot", "default", "human"):
            self._request += 1
            if actor == self.target:
                self.count += 1
                self._put(game, state, moves, str(line.get("move")))
        return move, by

    def _put(self, game: int, state: GameState, moves: list[Move], recorded: str) -> None:
        seat = self.seats[self.target]
        rep = self.reports[self.target]
        req = self._request
        seat.last_request = req
        msg = act_message(game, req, state, moves, self.time.decision_ms, int(rep.bank_ms),
                          explains=seat.explains, caps=seat.caps)
        wire = encode(msg)
        budget = (self.time.decision_ms + self.time.bank_ms + self.time.margin_ms) / 1000
        start = time.monotonic()
        reply: Message | None = None
        failure = None
        try:
            reply = seat.act(msg, budget)
        except SeatFailure as f:
            failure = f"{f.status}: {f.reason}"
        ms = (time.monotonic() - start) * 1000
        if self.count == self.decision:
            self.asked = Asked(self.target, self.count, self.step, wire, recorded, reply,
                               failure, ms, earlier=self.earlier)
            raise _Stop
        if failure is not None:
            raise AskError(f"the bot failed at its decision {self.count} (move {self.step}),"
                           f" before the one asked for: {failure}")
        said = _said(reply, moves)
        if said is not None and said != recorded and len(self.earlier) < 10:
            self.earlier.append(f"decision {self.count} (move {self.step}): now {said!r}, in"
                                f" the game {recorded!r}")


def _said(reply: Message | None, moves: list[Move]) -> str | None:
    if not isinstance(reply, dict):
        return None
    if isinstance(reply.get("index"), int) and 0 <= reply["index"] < len(moves):
        return format_move(moves[reply["index"]])
    return str(reply["move"]) if isinstance(reply.get("move"), str) else None


def ask(command: str, lines: list[dict[str, Any]], decision: int, seat: int | None,
        stderr_limit: int = 8192) -> Asked:
    """Put decision ``decision`` to the bot ``command``: with ``seat``, that seat's
    ``decision``-th decision; without, the game's ``decision``-th move (and its seat)."""
    header = lines[0]
    reveal = next((ln for ln in lines if ln.get("type") == "reveal"), None)
    if header.get("type") != "header" or reveal is None:
        raise AskError("not a finished game's record (no header, or no reveal line with the"
                       " seed)")
    try:
        rules = Ruleset.from_dict(header["rules"])
        names = [str(n) for n in header["seats"]]
        tc = TimeControl(**{k: int(v) for k, v in header.get("time", {}).items()})
        decks = [parse_card_sequence(d, rules.decks) for d in reveal.get("decks", [])]
        seed = int(reveal["seed"])
    except (KeyError, TypeError, ValueError) as exc:
        raise AskError(f"bad record header: {exc}") from None
    moves = [ln for ln in lines if ln.get("type") == "move"]
    if seat is None:
        if not 1 <= decision <= len(moves):
            raise AskError(f"--decision must be a move of the game, from 1 to {len(moves)}")
        target = moves[decision - 1].get("seat")
        if not isinstance(target, int):
            raise AskError(f"move {decision} of the record names no seat")
        asked_before = sum(1 for m in moves[:decision]
                           if m.get("seat") == target and m.get("by", "bot") != "auto")
        if moves[decision - 1].get("by") == "auto":
            raise AskError(f"move {decision} was forced and not asked (auto_forced)")
        seat, decision = target, asked_before
    if not 0 <= seat < rules.players:
        raise AskError(f"--seat must be from 0 to {rules.players - 1}")
    bot = SubprocessSeat(command, name=names[seat], spin_us=0)
    seats: list[Seat] = [bot if i == seat else _Quiet(n) for i, n in enumerate(names)]
    referee = AskReferee(seats, rules, tc, moves, seat, decision)
    start = header.get("start") or {}
    try:
        with contextlib.suppress(_Stop):
            referee.play(int(header.get("game", 1)), seed=seed, decks=decks,
                         dealer=header.get("dealer", reveal.get("dealer")),
                         scores=start.get("scores"), hand_no=int(start.get("hand_no", 1)))
        if referee.reports[seat].status != SeatStatus.OK and referee.asked is None:
            raise AskError(f"the bot failed before that decision: "
                           f"{'; '.join(referee.reports[seat].errors[:1])}")
        if referee.asked is None:
            raise AskError(f"seat {seat} made {referee.count} decisions in this game, not"
                           f" {decision}")
        asked = referee.asked
    finally:
        bot.close(grace=0.5)
    asked.stderr = bot.stderr_tail(stderr_limit)  # closed: all of its stderr is read
    return asked
