"""Opponents inside the environment: the seats the learner does not play (``opponents=``).

A seat's opponent is a built-in player (``builtin:NAME``, in-process: no process), a protocol
bot's command line (a boxed subprocess, started and spoken to exactly as ``canasta match``
does: ``seats.make_seat`` with the default box), a policy ``(observation, mask) -> action
index`` (fed the environment's own vector and mask for its seat, no messages), or a ``Seat``.
The environment plays their moves inside ``reset`` and ``step`` until a learner's seat is to
act or the game is over; docs/ML.md documents it.

The seats hear what a referee would send them, in the same order: ``hello`` once, each game's
``game_start``, the events of the game as each seat sees them, a request per decision (the
canasta/1.1 ``auto_forced`` capability answered as the referee does), ``game_end``.  Built-in
players are made afresh for each game and seeded from its seed as ``canasta match --seed S``
seeds them for its first game, so a game depends on its seed alone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core import GameState, Ruleset, legal_moves
from ..core.errors import CanastaError
from ..core.moves import Move
from ..core.reasons import GameEnd
from ..hosting.referee import TimeControl
from ..protocol.messages import (
    PROTOCOL,
    PROTOCOL_1_1,
    PROTOCOLS,
    act_message,
    event_message,
    game_end_message,
    game_start_message,
    granted,
    hello_message,
)
from ..protocol.replies import IllegalReply, ProtocolError, read_ready, read_reply
from ..protocol.statuses import SeatStatus
from ..seats import Seat, SeatFailure, builtin_seat, make_seat
from ..seats.box import DEFAULT_POLICY, BoxPolicy
from ..util.safetext import visible
from ..util.seat_names import split_name

# The vector and mask of a seat to act, and the action table's moves (from the environment).
Vectors = Callable[[GameState, int], tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]]
SPEC_HELP = ("an opponent is 'builtin:NAME', a bot's command line, a policy (observation, mask)"
             " -> action index, or a Seat")


class OpponentError(CanastaError, RuntimeError):
    """An opponent gave no legal move: a bot crashed, timed out, broke the protocol or
    answered a move that is not legal, or a policy chose an action off its mask.  The
    environment does not play on for it (a referee's default move would be a move the
    opponent never chose): reset to start a new game, a failed bot is started again."""


@dataclass(frozen=True)
class Seating:
    """Who plays each seat: ``specs[seat]`` is its opponent, None at the learner's seats."""

    specs: tuple[Any, ...]

    @property
    def learners(self) -> tuple[int, ...]:
        return tuple(i for i, spec in enumerate(self.specs) if spec is None)


def seating(players: int, opponents: Any) -> Seating:
    """``opponents`` as a seating: one spec (every seat but seat 0), a dict ``{seat: spec}``
    (the seats left out are the learner's) or a list of one spec per seat (None: the
    learner's)."""
    if isinstance(opponents, Mapping):
        specs: list[Any] = [None] * players
        for seat, spec in opponents.items():
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
                raise ValueError(f"opponents: {seat!r} is not a seat (0 to {players - 1})")
            specs[seat] = _checked(spec)
    elif isinstance(opponents, list | tuple):
        if len(opponents) != players:
            raise ValueError(f"opponents: a list gives one spec (or None) per seat, {players},"
                             f" not {len(opponents)}")
        specs = [_checked(spec) for spec in opponents]
    else:
        one = _checked(opponents)
        if one is None:
            raise ValueError(f"opponents: {SPEC_HELP}, or a dict or list of them per seat")
        specs = [None] + [one] * (players - 1)
    if all(spec is not None for spec in specs):
        raise ValueError("opponents: every seat has an opponent; leave the learner at least"
                         " one seat (left out of the dict, or None in the list)")
    seats = [id(s) for s in specs if isinstance(s, Seat)]
    if len(seats) != len(set(seats)):
        raise ValueError("opponents: a Seat plays one seat; give each seat its own")
    return Seating(tuple(specs))


def _checked(spec: Any) -> Any:
    if spec is None or isinstance(spec, Seat) or (callable(spec) and not isinstance(spec, str)):
        return spec
    if isinstance(spec, str) and spec.strip():
        command = split_name(spec.strip())[1]
        if command.startswith("builtin:"):
            builtin_seat(command)  # an unknown name or argument is refused now
        return spec.strip()
    raise ValueError(f"opponents: {SPEC_HELP}, not {spec!r:.60}")


class Opponents:
    """Plays the opponents' seats of one environment.  ``vectors(state, seat)`` gives a
    policy its vector and mask; ``moves`` is the action table's moves."""

    box: BoxPolicy = DEFAULT_POLICY
    time: TimeControl = TimeControl()

    def __init__(self, rules: Ruleset, seats: Seating, vectors: Vectors,
                 moves: tuple[Move, ...]) -> None:
        self.rules = rules
        self.specs = seats.specs
        self.vectors = vectors
        self.moves = moves
        self.policies: dict[int, Callable[..., Any]] = {
            i: s for i, s in enumerate(seats.specs)
            if s is not None and not isinstance(s, str | Seat)}
        self.seats: list[Seat | None] = [s if isinstance(s, Seat) else None for s in self.specs]
        self.game = 0
        self.request = 0
        self.playing = False
        self._sent: Any = None  # the last event log node the seats were sent

    # A game ----------------------------------------------------------------------------------

    def begin(self, state: GameState, seed: int) -> None:
        """A new game from ``seed``: built-ins made afresh (seeded as ``canasta match --seed``
        seeds its first game's), bots started if they are not running, ``game_start`` sent."""
        self.game += 1
        for i, spec in enumerate(self.specs):
            if not isinstance(spec, str):
                continue
            seat = self.seats[i]
            if split_name(spec)[1].startswith("builtin:") or seat is None or not seat.usable:
                if seat is not None:
                    _close(seat)
                self.seats[i] = make_seat(spec, i, seed, None, box=self.box)
        self._handshake()
        names = [s.name if s is not None else "policy" if i in self.policies else f"seat_{i}"
                 for i, s in enumerate(self.seats)]
        for i, seat in enumerate(self.seats):
            if seat is not None:
                caps = seat.caps if seat.protocol == PROTOCOL_1_1 else None
                seat.send(game_start_message(self.game, i, self.rules, names, caps))
        self._sent = None
        self.playing = True

    def move(self, state: GameState) -> Move:
        """The move of the opponent to act in ``state``."""
        actor = state.actor
        policy = self.policies.get(actor)
        if policy is not None:
            return self._policy_move(policy, state)
        seat = self.seats[actor]
        assert seat is not None
        moves = legal_moves(state)
        if len(moves) == 1 and "auto_forced" in seat.caps:
            return moves[0]  # as the referee plays it: the seat is not asked
        self._publish(state)
        self.request = max(self.request, seat.last_request) + 1
        seat.last_request = self.request
        time = self.time
        act = act_message(self.game, self.request, state, moves, time.decision_ms,
                          time.bank_ms, explains=seat.explains, caps=seat.caps)
        try:
            reply = seat.act(act, (time.decision_ms + time.bank_ms) / 1000)
            return read_reply(reply, self.request, state, moves)
        except (SeatFailure, ProtocolError, IllegalReply) as exc:
            raise self._failed(actor, getattr(exc, "reason", str(exc))) from None

    def finish(self, state: GameState) -> None:
        """The game is over (or given up for a new one): the last events and ``game_end``."""
        if not self.playing:
            return
        self.playing = False
        self._publish(state)
        end = game_end_message(self.game, state, [SeatStatus.OK] * self.rules.players)
        end.update(winner=state.winner, reason=state.game_end_reason or GameEnd.UNFINISHED)
        for seat in self.seats:
            if seat is not None and seat.usable:
                seat.send(end)
                seat.flush()

    def close(self) -> None:
        """Stop every bot (a built-in holds nothing); safe to call twice."""
        for i, seat in enumerate(self.seats):
            if seat is not None:
                _close(seat)
                if isinstance(self.specs[i], str):
                    self.seats[i] = None
        self.playing = False

    # Helpers ---------------------------------------------------------------------------------

    def _handshake(self) -> None:
        """``hello`` and ``ready`` with every seat not yet greeted (bots start at once)."""
        fresh = [(i, s) for i, s in enumerate(self.seats) if s is not None and not s.started]
        for _, seat in fresh:
            seat.launch()
        for i, seat in fresh:
            hello = hello_message(i, self.rules, self.time.to_json(), seat.name)
            try:
                ready = read_ready(seat.start(hello, self.time.startup_ms / 1000))
            except (SeatFailure, ProtocolError) as exc:
                raise self._failed(i, f"handshake: {getattr(exc, 'reason', exc)}") from None
            spoken = ready.get("protocol", PROTOCOL)
            if spoken not in PROTOCOLS:
                raise self._failed(i, f"speaks {spoken[:40]!r}, not {' or '.join(PROTOCOLS)}")
            seat.protocol = spoken
            seat.caps = granted(ready) if spoken == PROTOCOL_1_1 else frozenset()
            seat.started = True

    def _publish(self, state: GameState) -> None:
        """Every event since the last sent, to each seat that hears events, as it sees it."""
        fresh = []
        node = state.log
        while node is not None and node is not self._sent:
            fresh.append(node[1])
            node = node[0]
        self._sent = state.log
        hearing = [(i, s) for i, s in enumerate(self.seats) if s is not None and s.hears_events]
        for event in reversed(fresh):
            for i, seat in hearing:
                seat.send(event_message(self.game, event, i))

    def _policy_move(self, policy: Callable[..., Any], state: GameState) -> Move:
        vec, mask = self.vectors(state, state.actor)
        action = policy(vec, mask)
        if (isinstance(action, bool) or not isinstance(action, int | np.integer)
                or not 0 <= action < len(self.moves) or not mask[action]):
            raise self._failed(state.actor, f"the policy chose {action!r:.40}, which is not"
                               " a legal action here")
        return self.moves[int(action)]

    def _failed(self, seat: int, reason: str) -> OpponentError:
        spec = self.specs[seat]
        what = visible(spec if isinstance(spec, str) else type(spec).__name__)
        if len(what) > 80:
            what = what[:77] + "..."
        return OpponentError(f"the opponent at seat {seat} ({what}): {reason}")


def _close(seat: Seat) -> None:
    with contextlib.suppress(Exception):  # one seat's trouble must not stop the others
        seat.close()
