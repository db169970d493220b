"""Game state: immutable by contract, copied on every ``apply``.

The state is a flat slotted object rather than a frozen dataclass because ``apply`` runs tens
of thousands of times a second in random play; ``copy`` plus tuple fields keeps it pure.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

from mypy_extensions import mypyc_attr

from .melds import EMPTY_MELDS, EMPTY_ROW_INFO, MeldState, RowInfo, kind_counts, row_info, with_meld
from .reasons import GameEnd

if TYPE_CHECKING:
    from .events import Event
    from .moves import Move
    from .rules import Ruleset
    from .scoring import HandResult


class Phase(enum.Enum):
    DRAW = "draw"                    # draw from the stock or take the pile
    MELD = "meld"                    # meld, add, discard (or ask first)
    ANSWER = "answer"                # the partner answers "may I go out?"
    PILE_OPENING = "pile_opening"    # opening by the pile: more melds from hand before the pick-up
    MELD_NO_DISCARD = "meld_no_discard"  # last stock card was a red three: meld, then end
    GAME_OVER = "game_over"


# One line per field: (name, what it holds).  The constructor, ``copy`` and the docs use it.
FIELDS: tuple[tuple[str, str], ...] = (
    ("rules", "the Ruleset in force"),
    ("seed", "the game's seed: every unstacked hand's deck derives from (seed, hand number)"),
    ("stacked", "the stacked decks of the first hands, complete, top card first"),
    ("first_hand", "the number of the first hand dealt (``new_game(hand_no=...)``)"),
    ("hand_no", "the number of the hand being played"),
    ("dealer", "the seat that dealt this hand"),
    ("phase", "what the player to act may do (a Phase)"),
    ("actor", "the seat to act: the turn's player, or the partner asked; -1 once over"),
    ("turn_seat", "the seat whose turn it is"),
    ("hands", "each seat's hand, card ids sorted"),
    ("stock", "the stock, the next card drawn first"),
    ("pile", "the discard pile, bottom first (its top card last)"),
    ("pile_frozen", "whether the pile is frozen for everyone (a wild card or a three in it)"),
    ("melds", "per meld row (side), per kind: the MeldState or None"),
    ("red3", "per side: the red threes laid, in the order laid"),
    ("scores", "cumulative score per side, hands finished so far"),
    ("turn_no", "turns begun in the whole game (the limit ``max_turns`` counts these)"),
    ("hand_turns", "turns begun in this hand"),
    ("side_open_at_start", "whether the turn's row held a meld when the turn began"),
    ("seat_melded", "per seat: whether it has melded this hand (concealed going out)"),
    ("seat_melded_at_start", "whether the turn's player had melded before this turn"),
    ("opening_total", "points melded this turn toward the initial-meld minimum"),
    ("took_pile", "whether the turn's player took the pile this turn"),
    ("pile_pending", "an opening by the pile whose pick-up waits for the minimum"),
    ("from_pile", "card ids picked up with the pile this turn (not melded concealed)"),
    ("acted", "whether the turn's player has melded or added this turn"),
    ("asked", "whether the turn's player asked the partner 'may I go out?' this turn"),
    ("permission", "the partner's answer this turn, None if not asked"),
    ("foreign_add", "whether the turn's player added to a meld another seat began"),
    ("committed_out", "a black-three meld was laid: the player must go out this turn"),
    ("results", "the HandResult of every finished hand, in order"),
    ("winner", "the winning side once the game is over; None for a draw or while playing"),
    ("game_end_reason", "why the game ended (target, draw, hand_limit, turn_limit) or None"),
    ("log", "the event log as a cons list (previous, event), newest first; None if empty"),
    ("hand_log", "the log keeps only this hand (from the move that dealt it), not the game"),
    ("team", "per seat: the meld row it plays on (its side's, or a cut-throat partner's)"),
    ("lone", "cut-throat: the seat playing alone this hand once partners formed, else None"),
    ("hc", "per seat: card counts per kind of its hand (kept beside ``hands``)"),
    ("minfo", "per meld row: its RowInfo counts (kept beside ``melds``)"),
    ("minimums", "per side: the initial-meld minimum for this hand"),
    ("views", "shared by every state of one game: each seat's event views up to a log node"),
)


@mypyc_attr(serializable=True)  # compiled: __new__ makes an instance without __init__ (copy)
class GameState:
    """Everything about a game in progress (the fields: ``FIELDS``).  Treat as immutable:
    ``engine.apply`` makes the next state; ``copy`` and ``replace`` make changed copies.

    Made only by ``GameState(...)`` (``engine.new_game``; ``core.determinize`` for a deal
    consistent with what a seat knows); the fields the deal sets default to an empty table."""

    __slots__ = (*(name for name, _ in FIELDS), "_legal")

    rules: Ruleset
    seed: int
    stacked: tuple[tuple[int, ...], ...]
    first_hand: int
    hand_no: int
    dealer: int
    phase: Phase
    actor: int
    turn_seat: int
    hands: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]
    pile: tuple[int, ...]
    pile_frozen: bool
    melds: tuple[tuple[MeldState | None, ...], ...]
    red3: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    turn_no: int
    hand_turns: int
    side_open_at_start: bool
    seat_melded: tuple[bool, ...]
    seat_melded_at_start: bool
    opening_total: int
    took_pile: bool
    pile_pending: bool
    from_pile: frozenset[int]
    acted: bool
    asked: bool
    permission: bool | None
    foreign_add: bool
    committed_out: bool
    results: tuple[HandResult, ...]
    winner: int | None
    game_end_reason: GameEnd | None
    log: tuple[Any, ...] | None
    hand_log: bool
    team: tuple[int, ...]
    lone: int | None
    hc: tuple[tuple[int, ...], ...]
    minfo: tuple[RowInfo, ...]
    minimums: tuple[int, ...]
    views: dict[int, tuple[Any, list[dict[str, Any]]]]
    _legal: tuple[Move, ...] | None  # legality's cache of this state's listed moves

    def __init__(self, rules: Ruleset, seed: int, *, stacked: tuple[tuple[int, ...], ...] = (),
                 first_hand: int = 1, hand_no: int = 1, dealer: int = 0,
                 phase: Phase = Phase.DRAW, actor: int = 0, turn_seat: int = 0,
                 hands: tuple[tuple[int, ...], ...] = (), stock: tuple[int, ...] = (),
                 pile: tuple[int, ...] = (), pile_frozen: bool = False,
                 melds: tuple[tuple[MeldState | None, ...], ...] = (),
                 red3: tuple[tuple[int, ...], ...] = (), scores: tuple[int, ...] = (),
                 turn_no: int = 0, hand_turns: int = 0, side_open_at_start: bool = False,
                 seat_melded: tuple[bool, ...] = (), seat_melded_at_start: bool = False,
                 opening_total: int = 0, took_pile: bool = False, pile_pending: bool = False,
                 from_pile: frozenset[int] = frozenset(), acted: bool = False,
                 asked: bool = False, permission: bool | None = None,
                 foreign_add: bool = False, committed_out: bool = False,
                 results: tuple[HandResult, ...] = (), winner: int | None = None,
                 game_end_reason: GameEnd | None = None, log: tuple[Any, ...] | None = None,
                 team: tuple[int, ...] | None = None, lone: int | None = None,
                 hand_log: bool = False) -> None:
        n, sides = rules.players, rules.sides
        self.rules = rules
        self.seed = seed
        self.stacked = stacked
        self.first_hand = first_hand
        self.hand_no = hand_no
        self.dealer = dealer
        self.phase = phase
        self.actor = actor
        self.turn_seat = turn_seat
        self.hands = hands or ((),) * n
        self.stock = stock
        self.pile = pile
        self.pile_frozen = pile_frozen
        self.melds = melds or (EMPTY_MELDS,) * sides
        self.red3 = red3 or ((),) * sides
        self.scores = scores or (0,) * sides
        self.turn_no = turn_no
        self.hand_turns = hand_turns
        self.side_open_at_start = side_open_at_start
        self.seat_melded = seat_melded or (False,) * n
        self.seat_melded_at_start = seat_melded_at_start
        self.opening_total = opening_total
        self.took_pile = took_pile
        self.pile_pending = pile_pending
        self.from_pile = from_pile
        self.acted = acted
        self.asked = asked
        self.permission = permission
        self.foreign_add = foreign_add
        self.committed_out = committed_out
        self.results = results
        self.winner = winner
        self.game_end_reason = game_end_reason
        self.log = log
        self.hand_log = hand_log
        self.team = team if team is not None else tuple(rules.side_of(s) for s in range(n))
        self.lone = lone
        self.views = {}
        self.recount()

    def copy(self) -> GameState:
        """A copy to change (``apply`` makes each next state so): every field is shared, which
        is safe because every field is immutable except ``views``, a cache shared on purpose
        by every state of one game.  The derived counts must be rebuilt (``recount``) after
        changing ``hands``, ``melds`` or ``scores`` by hand; ``replace`` does that."""
        new = GameState.__new__(GameState)
        new.rules = self.rules
        new.seed = self.seed
        new.stacked = self.stacked
        new.first_hand = self.first_hand
        new.hand_no = self.hand_no
        new.dealer = self.dealer
        new.phase = self.phase
        new.actor = self.actor
        new.turn_seat = self.turn_seat
        new.hands = self.hands
        new.stock = self.stock
        new.pile = self.pile
        new.pile_frozen = self.pile_frozen
        new.melds = self.melds
        new.red3 = self.red3
        new.scores = self.scores
        new.turn_no = self.turn_no
        new.hand_turns = self.hand_turns
        new.side_open_at_start = self.side_open_at_start
        new.seat_melded = self.seat_melded
        new.seat_melded_at_start = self.seat_melded_at_start
        new.opening_total = self.opening_total
        new.took_pile = self.took_pile
        new.pile_pending = self.pile_pending
        new.from_pile = self.from_pile
        new.acted = self.acted
        new.asked = self.asked
        new.permission = self.permission
        new.foreign_add = self.foreign_add
        new.committed_out = self.committed_out
        new.results = self.results
        new.winner = self.winner
        new.game_end_reason = self.game_end_reason
        new.log = self.log
        new.hand_log = self.hand_log
        new.team = self.team
        new.lone = self.lone
        new.hc = self.hc
        new.minfo = self.minfo
        new.minimums = self.minimums
        new.views = self.views
        new._legal = None
        return new

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (and deep-copied) as its fields, with the event log as a list: as a cons
        list it is as deep as the hand is long, past pickle's recursion limit.  The views
        cache is left out (the copy starts its own)."""
        return (_unpickled, ({name: getattr(self, name) for name in _PICKLED}, self.events()))

    def replace(self, **changes: Any) -> GameState:
        """A copy with these fields changed and the derived counts rebuilt: how puzzles,
        benchmarks and tests set up a position (``state.replace(hands=..., stock=...)``)."""
        unknown = set(changes) - _SETTABLE
        if unknown:
            raise TypeError(f"GameState has no field {sorted(unknown)[0]!r} to replace")
        new = self.copy()
        for name, value in changes.items():
            setattr(new, name, value)
        new.recount()
        return new

    # Read-only conveniences ----------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.phase is Phase.GAME_OVER

    @property
    def top(self) -> int | None:
        return self.pile[-1] if self.pile else None

    def side_of(self, seat: int) -> int:
        return self.rules.side_of(seat)

    def recount(self) -> None:
        """Rebuild the counts kept beside ``hands``, ``melds`` and ``scores`` (``hc``,
        ``minfo``, ``minimums``) and forget the listed moves."""
        self.hc = tuple(kind_counts(h) for h in self.hands)
        self.minfo = tuple(row_info(row) for row in self.melds)
        self.minimums = tuple(self.rules.initial_minimum(s) for s in self.scores)
        self._legal = None

    def meld_side(self, seat: int) -> int:
        """The row of ``melds`` that ``seat`` plays on: its side's, except in cut-throat, where
        partners formed during the hand share the row of the lower seat."""
        return self.team[seat]

    def side_has_melded(self, side: int) -> bool:
        """Whether the meld row ``side`` (see ``meld_side``) holds any meld."""
        return self.minfo[side].melded

    def events(self) -> list[Event]:
        """The event log, oldest first (kept as a cons list so that apply is O(1)): the whole
        game's, or with ``hand_log`` this hand's, from the move that dealt it."""
        out: list[Event] = []
        node = self.log
        while node is not None:
            out.append(node[1])
            node = node[0]
        out.reverse()
        return out

    def __repr__(self) -> str:
        return (f"<GameState {self.rules.name} hand {self.hand_no} turn {self.hand_turns} "
                f"{self.phase.value} seat {self.actor} scores {list(self.scores)}>")


_SETTABLE = frozenset(name for name, _ in FIELDS) - {"hc", "minfo", "minimums", "views"}
_PICKLED = tuple(name for name, _ in FIELDS if name not in ("log", "views"))


def _unpickled(fields: dict[str, Any], events: list[Event]) -> GameState:
    """The state ``GameState.__reduce__`` describes."""
    state = GameState.__new__(GameState)
    for name, value in fields.items():
        setattr(state, name, value)
    log: tuple[Any, ...] | None = None
    for event in events:
        log = (log, event)
    state.log = log
    state.views = {}
    state._legal = None
    return state

__all__ = ["EMPTY_MELDS", "EMPTY_ROW_INFO", "FIELDS", "GameState", "MeldState", "Phase", "RowInfo",
           "kind_counts", "row_info", "with_meld"]
