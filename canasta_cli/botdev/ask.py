"""``canasta bot ask``: one recorded decision put to a bot again, exactly as in the game.

The game is played again from its record (the seed and decks of its ``reveal`` line) by a
referee whose every decision is the recorded move.  The bot sits in its recorded seat and
hears everything that seat heard: the handshake, ``game_start``, each event and each ``act``
before the chosen one (the same request ids and the same bytes; its answers to those are
read and compared with the record, never played), then the chosen ``act``, whose answer,
time and the bot's stderr are reported.  When the game is a later game of a match, the
match's earlier games (their records, given by the caller) are played to the bot first, in
the same way, so that it meets the game as it did (the same request ids, the same history).
What cannot be the same is the time bank: full, as when the bot never ran over its time.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..core import (
    GameState,
    Move,
    Ruleset,
    format_move,
    new_game,
    parse_card_sequence,
    parse_move,
)
from ..core.cards import KIND_OF
from ..core.errors import CanastaError
from ..hosting.referee import GameStart, Referee, TimeControl
from ..protocol.messages import ActRequest, act_message, encode
from ..protocol.statuses import SeatStatus
from ..seats.base import Message, Seat, SeatFailure
from ..seats.box import DEFAULT_POLICY, BoxPolicy
from ..seats.subprocess_seat import SubprocessSeat
from ..util.safetext import visible
from ..util.words import plural

_Q = TypeVar("_Q", Message, ActRequest)
MAX_MS = 86_400_000  # a day: the longest clock a command takes (commands/bounds.py)
MAX_GAME = 10_000_000  # game numbers, as --as-game and --game bound them


class AskError(CanastaError):
    """The record or the decision asked for cannot be used; the message is one line."""


STDERR_SHOWN = 8192  # bytes of the end of a bot's stderr that ``bot ask`` shows

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
    game: int = 0              # the game's number in its match
    games_before: int = 0      # earlier games of the match played to the bot first

    def request_text(self) -> str:
        return self.request.decode("utf-8", "replace").rstrip("\n")

    def to_json(self) -> dict[str, Any]:
        """What ``bot ask --json`` prints."""
        return {"seat": self.seat, "game": self.game, "decision": self.decision,
                "move": self.step or None, "games_before": self.games_before,
                "recorded": self.recorded, "request": self.request_text(),
                "answer": self.answer, "failure": self.failure, "ms": round(self.ms, 1),
                "stderr": self.stderr, "earlier_differences": self.earlier}

    def lines(self) -> list[str]:
        """What ``bot ask`` prints: the decision, the request as sent, the answer or why
        there is none, earlier answers that differ, the end of the bot's stderr."""
        where = f" (move {self.step} of the game)" if self.step else ""
        out = [f"seat {self.seat}, game {self.game}, its decision {self.decision}{where};"
               f" in the game: {visible(self.recorded)}"]
        if self.games_before:
            out.append(f"played to the bot first: {plural(self.games_before, 'earlier game')}"
                       " of the match")
        out += [f"request ({len(self.request)} bytes, as sent in the game):",
                visible(self.request_text())]
        out.append(f"no answer: {visible(self.failure)}" if self.failure is not None else
                   f"answer in {self.ms:.0f} ms: {visible(json.dumps(self.answer))}")
        out += [f"note: an earlier answer differs from the game: {visible(note)}"
                for note in self.earlier]
        if self.stderr.strip():
            out += ["the end of the bot's stderr:", stderr_block(self.stderr)]
        return out


def stderr_block(text: str) -> str:
    """A bot's stderr, printable: each line made safe to show."""
    return "\n".join("  | " + visible(line) for line in text.splitlines()[-40:])


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
        self.final = True  # False while an earlier game of the match is played
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
        reply, failure, ms = timed(seat.act, msg, budget)
        if self.final and self.count == self.decision:
            self.asked = Asked(self.target, self.count, self.step, wire, recorded, reply,
                               failure, ms, earlier=self.earlier)
            raise _Stop
        if failure is not None:
            raise AskError(f"the bot failed at its decision {self.count} (move {self.step}) of"
                           f" game {game}, before the one asked for: {failure}")
        said = _said(reply, moves)
        if said is not None and said != recorded and len(self.earlier) < 10:
            self.earlier.append(f"decision {self.count} (move {self.step}) of game {game}: now"
                                f" {said!r}, in the game {recorded!r}")


def timed(ask: Callable[[_Q, float], Message], msg: _Q, budget: float
          ) -> tuple[Message | None, str | None, float]:
    """Put ``msg`` to a bot within ``budget`` seconds: its reply (None if it failed), the
    failure as ``status: reason`` (None if it answered) and the milliseconds it took."""
    start = time.monotonic()
    reply: Message | None = None
    failure = None
    try:
        reply = ask(msg, budget)
    except SeatFailure as f:
        failure = f"{f.status}: {f.reason}"
    return reply, failure, (time.monotonic() - start) * 1000


def _said(reply: Message | None, moves: list[Move]) -> str | None:
    if not isinstance(reply, dict):
        return None
    if isinstance(reply.get("index"), int) and 0 <= reply["index"] < len(moves):
        return format_move(moves[reply["index"]])
    return str(reply["move"]) if isinstance(reply.get("move"), str) else None


@dataclass
class _Game:
    number: int
    rules: Ruleset
    names: list[str]
    time: TimeControl
    decks: list[list[int]]
    seed: int
    dealer: Any
    start: dict[str, Any]
    moves: list[dict[str, Any]]


def _game(lines: list[dict[str, Any]]) -> _Game:
    """The game of a finished game's record, checked as ``replay`` checks one: its deal is
    dealt once here, so that a bad header is an AskError before any bot starts."""
    header = lines[0]
    reveal = next((ln for ln in lines if ln.get("type") == "reveal"), None)
    if header.get("type") != "header" or reveal is None:
        raise AskError("not a finished game's record (no header, or no reveal line with the"
                       " seed)")
    try:
        rules = Ruleset.from_dict(header["rules"])
        start = header.get("start") or {}
        clock = header.get("time", {})
        if not isinstance(start, dict) or not isinstance(clock, dict):
            raise TypeError("'start' and 'time' must be objects")
        g = _Game(int(header.get("game", 1)), rules, [str(n) for n in header["seats"]],
                  TimeControl(**{k: _ms(k, v) for k, v in clock.items()}),
                  [parse_card_sequence(d, rules.decks) for d in reveal.get("decks", [])],
                  int(reveal["seed"]), header.get("dealer", reveal.get("dealer")), start,
                  [ln for ln in lines if ln.get("type") == "move"])
        new_game(rules, seed=g.seed, decks=g.decks, dealer=g.dealer,
                 scores=start.get("scores"), hand_no=int(start.get("hand_no", 1)))
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise AskError(f"bad record header: {str(exc)[:200]}") from None
    if len(g.names) != rules.players or not 1 <= g.number <= MAX_GAME:
        raise AskError(f"bad record header: {len(g.names)} seats for {rules.players} players,"
                       f" game {str(g.number)[:20]}")
    return g


def _ms(key: str, value: object) -> int:
    """A time control's milliseconds from a record, bounded as the commands bound them."""
    if type(value) is not int or not 0 <= value <= MAX_MS:
        raise ValueError(f"'time' gives {key} as {str(value)[:30]}, not a whole number of"
                         f" milliseconds from 0 to {MAX_MS:,}")
    return value


def ask(command: str, lines: list[dict[str, Any]], decision: int, seat: int | None,
        before: list[list[dict[str, Any]]] | None = None,
        box: BoxPolicy = DEFAULT_POLICY) -> Asked:
    """Put decision ``decision`` to the bot ``command``: with ``seat``, that seat's
    ``decision``-th decision; without, the game's ``decision``-th move (and its seat).
    ``before``: the records of the match's earlier games, in order, played to the bot
    first."""
    this = _game(lines)
    earlier = [_game(x) for x in before or []]
    for g in earlier:
        if (g.names, g.rules, g.time) != (this.names, this.rules, this.time):
            raise AskError(f"the record of game {g.number} is not of the same match (other"
                           f" seats, rules or time control)")
    rules, names, moves = this.rules, this.names, this.moves
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
    bot = SubprocessSeat(command, name=names[seat], spin_us=0, box=box)
    seats: list[Seat] = [bot if i == seat else _Quiet(n) for i, n in enumerate(names)]
    referee = AskReferee(seats, rules, this.time, moves, seat, decision)
    try:
        for g in [*earlier, this]:
            referee.final = g is this
            referee.moves, referee.count, referee.step = list(g.moves), 0, 0
            with contextlib.suppress(_Stop):
                referee.play(g.number, g.seed, GameStart(
                    g.decks, g.dealer, scores=g.start.get("scores"),
                    hand_no=int(g.start.get("hand_no", 1))))
            if referee.reports[seat].status != SeatStatus.OK and referee.asked is None:
                raise AskError(f"the bot failed in game {g.number}, before that decision: "
                               f"{'; '.join(referee.reports[seat].errors[:1])}")
        if referee.asked is None:
            raise AskError(f"seat {seat} made {referee.count} decisions in this game, not"
                           f" {decision}")
        asked = referee.asked
    finally:
        bot.close(grace=0.5)
    asked.stderr = bot.stderr_tail(STDERR_SHOWN)  # closed: all of its stderr is read
    asked.game, asked.games_before = this.number, len(earlier)
    return asked


def match_before(record: Path) -> list[Path]:
    """The records of the games played before ``record`` in its match: the files
    ``game-NNNN.jsonl`` beside it with the numbers just below (a match writes its games there,
    numbered from 1, or from N with ``--as-game N``), oldest first.  None in a tournament's
    ``OUT/records/`` (each tournament game starts its bots afresh)."""
    folder = record.parent
    if (folder.parent / "games.jsonl").exists() and folder.name == "records":
        return []
    name = record.name
    if not (name.startswith("game-") and name.endswith(".jsonl") and name[5:-6].isdigit()):
        return []
    out = []
    for n in range(int(name[5:-6]) - 1, 0, -1):
        path = folder / f"game-{n:04d}.jsonl"
        if not path.is_file():
            break
        out.append(path)
    return out[::-1]
