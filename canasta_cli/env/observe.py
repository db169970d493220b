"""The observation vector: a fixed-size numeric view of what one seat may see.

Two encoders make the same vector.  ``from_view`` is the definition: it reads only the
seat's protocol observation (``core.observation``) and the public facts of events, so it
cannot hold anything hidden.  ``from_state`` is the environment's fast path, reading the
same public fields from the state directly; the test suite checks at every step of random
games that both agree, for every seat and preset.  Seats and sides are relative: index 0 is
the observing seat (its side), then the next seats in playing order.  docs/ML.md documents
every field; ``Layout.fields`` is the list it is checked against.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

from ..core.cards import (
    BLACK3,
    DEUCE,
    JOKER,
    KIND_OF,
    KIND_VALUE,
    N_KINDS,
    RED3,
    full_deck,
    parse_kind,
)
from ..core.rules import Ruleset
from ..core.state import GameState, MeldState, Phase, RowInfo
from .public import PublicTracker, face_of_text

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

PHASES = ("draw", "meld", "answer", "pile_opening", "meld_no_discard")
# The largest initial-meld minimum: the scale of ``minimums`` and of the opening total.
MOST_MINIMUM = 150.0


@dataclass(frozen=True)
class Field:
    name: str
    size: int
    low: float
    high: float
    doc: str


def _pack_counts(rules: Ruleset) -> tuple[int, ...]:
    counts = [0] * N_KINDS
    for c in full_deck(rules.decks):
        counts[KIND_OF[c]] += 1
    return tuple(counts)


def score_bound(rules: Ruleset) -> float:
    """A bound on a side's total at any point of a game: in a hand a side wins or loses at
    most every card's points, a canasta bonus (and the concealed one) for every seven cards,
    its red threes, the going-out bonus and the permission penalty; a game has at most
    ``max_hands`` hands."""
    pack = _pack_counts(rules)
    cards = sum(KIND_VALUE[KIND_OF[c]] for c in full_deck(rules.decks))
    canastas = rules.deck_size // 7 * (500 + abs(rules.concealed_canasta_bonus))
    red3 = max(100 * pack[RED3], 1200, abs(rules.red3_no_meld_all_four))
    out = max(abs(rules.going_out_bonus), abs(rules.concealed_going_out_bonus))
    per_hand = cards + canastas + red3 + out + abs(rules.permission_fail_penalty)
    return float(per_hand * rules.max_hands)


class Layout:
    """The fields, in order, for one ruleset (their sizes follow the number of players)."""

    def __init__(self, rules: Ruleset) -> None:
        p, s, k = rules.players, rules.sides, N_KINDS
        pack = _pack_counts(rules)
        most = float(max(pack))
        deck = float(rules.deck_size)
        points = float(sum(KIND_VALUE[KIND_OF[c]] for c in full_deck(rules.decks)))
        # Three groups, in this order: what changes at every step; the table (melds, red
        # threes, scores: changes seldom); the public facts of other hands.
        f = [
            Field("phase", 5, 0, 1, "one-hot: draw, meld, answer, pile_opening, meld_no_discard"
                  " (all 0 once the game is over)"),
            Field("turn_seat", p, 0, 1, "one-hot, relative seat whose turn it is (not 0 when"
                  " answering the partner's question)"),
            Field("hand", k, 0, most, "own cards by kind"),
            Field("hand_sizes", p, 0, deck, "cards in each hand, relative seats"),
            Field("pile_top", k, 0, 1, "one-hot kind of the pile's top card (all 0: empty)"),
            Field("pile_size", 1, 0, deck, "cards in the discard pile"),
            Field("pile_frozen", 1, 0, 1, "frozen for everyone"),
            Field("pile_frozen_for_me", 1, 0, 1, "frozen for the observing seat's side"),
            Field("pile_stopped", 1, 0, 1, "a wild card or black three on top"),
            Field("pile_cards", k, 0, most, "the discard pile by kind (all face up)"),
            Field("stock_size", 1, 0, deck, "cards left in the stock"),
            Field("turn", 5, 0, points, "took_pile, asked, permission yes, permission no,"
                  " opening_total (points melded this turn toward the minimum)"),
            Field("unseen", k, 0, most, "per kind, the copies the seat has not seen: the pack"
                  " less its hand, melds, red threes, the pile and the known cards"),
            Field("red_threes", s, 0, float(pack[RED3]), "per relative side: red threes laid"),
            Field("side_melded", s, 0, 1, "per relative side: its row of melds holds a meld"),
        ]
        if rules.cutthroat:
            f += [Field("lone_hand", p, 0, 1, "cut-throat: one-hot relative seat of the lone"
                        " hand (all 0 until there is one)"),
                  Field("meld_row", p * s, 0, 1, "cut-throat: per relative seat, one-hot"
                        " relative side of the row of melds it plays on")]
        f += [
            Field("melds", s * MELD_BLOCK, 0, most, "per relative side, 25 values: natural"
                  " cards in its meld of each rank 4..A (11; 0: no meld), wild cards in each"
                  " (11), natural canastas, mixed canastas, black threes melded (going out)"),
            Field("scores", s, -score_bound(rules), score_bound(rules), "per relative side:"
                  " points at the start of the hand"),
            Field("minimums", s, 0, MOST_MINIMUM, "per relative side: initial-meld minimum"
                  " this hand"),
            Field("known", (p - 1) * k, 0, most, "per other relative seat (1, 2, ...): cards"
                  " certainly in its hand (picked up with the pile), by kind"),
            Field("discards", p * k, 0, float(rules.max_turns), "per relative seat: its discards"
                  " this hand, by kind (a card may be discarded again after a pile take)"),
        ]
        self.fields = tuple(f)
        self.size = sum(x.size for x in f)
        self.offsets: dict[str, int] = {}
        at = 0
        for x in f:
            self.offsets[x.name] = at
            at += x.size
        wilds = float(pack[DEUCE] + pack[JOKER])
        self._highs = [float(pack[i % k]) if x.name in _PER_KIND_PACK
                       else _meld_high(i % MELD_BLOCK, most, wilds, float(pack[BLACK3]))
                       if x.name == "melds" else x.high
                       for x in f for i in range(x.size)]
        self._lows = [x.low for x in f for _ in range(x.size)]
        self._scales = [_scale(x.name, i, pack, deck, float(rules.target)) if x.name != "melds"
                        else 1.0 / self._highs[self.offsets["melds"] + i]
                        for x in f for i in range(x.size)]

    def bounds(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """The lowest and highest value of each element (finite, and never passed)."""
        import numpy as np
        return np.array(self._lows, np.float32), np.array(self._highs, np.float32)

    def scales(self) -> list[float]:
        """What ``normalize=True`` multiplies each element by (the result is then clipped to
        [-1, 1]): 1 / the element's bound where that bound is a count a network can use
        (cards of a kind: the pack's; hand, pile and stock sizes: the pack's size), else 1 /
        a scale of the game (scores: the target; minimums and the opening total: 150;
        discards: the pack's count of the kind).  docs/ML.md lists them per field."""
        return list(self._scales)

    def slice(self, name: str) -> slice:
        at = self.offsets[name]
        size = next(x.size for x in self.fields if x.name == name)
        return slice(at, at + size)


MELD_BLOCK = 25


def _meld_high(i: int, naturals: float, wilds: float, black3: float) -> float:
    return naturals if i < 11 else wilds if i < 22 else 11.0 if i < 24 else black3


# Fields counted per kind (the vector cycles through 15 kinds), scaled by the pack's count of
# the kind; fields counting cards of the whole pack, scaled by its size.
_PER_KIND_SCALED = frozenset({"hand", "pile_cards", "known", "unseen", "discards"})
_PACK_SCALED = frozenset({"hand_sizes", "pile_size", "stock_size"})


def _scale(name: str, i: int, pack: tuple[int, ...], deck: float, target: float) -> float:
    """The scale of element ``i`` of field ``name`` (``Layout.scales``), melds aside."""
    if name in _PER_KIND_SCALED:
        return 1.0 / max(pack[i % N_KINDS], 1)
    if name in _PACK_SCALED:
        return 1.0 / deck
    if name == "red_threes":
        return 1.0 / max(pack[RED3], 1)
    if name == "minimums" or (name == "turn" and i == 4):
        return 1.0 / MOST_MINIMUM
    if name == "scores":
        return 1.0 / target
    return 1.0


# Fields whose bound is the pack's count of each kind (the vector cycles through 15 kinds).
_PER_KIND_PACK = frozenset({"hand", "pile_cards", "known", "unseen"})


def _onehot(n: int, i: int | None) -> tuple[int, ...]:
    return tuple(int(j == i) for j in range(n))


_PHASE_VEC = {Phase(p): _onehot(5, i) for i, p in enumerate(PHASES)}
_PHASE_VEC[Phase.GAME_OVER] = (0,) * 5
_PHASE_TEXT_VEC = {p: _onehot(5, i) for i, p in enumerate(PHASES)}
_PHASE_TEXT_VEC["game_over"] = (0,) * 5
_NO_KIND = (0,) * N_KINDS
_TOP_VEC = tuple(_onehot(N_KINDS, k) for k in range(N_KINDS))
_STOPS = frozenset({DEUCE, JOKER, BLACK3})
_MELDED = attrgetter("melded")
_from_bytes = int.from_bytes
_TOP_BYTES: dict[int | None, bytes] = {k: bytes(_TOP_VEC[k]) for k in range(N_KINDS)}
_TOP_BYTES[None] = bytes(N_KINDS)


def _getter(order: tuple[int, ...]) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """Picks ``order`` out of a sequence, always as a tuple (``itemgetter`` of one does not)."""
    if len(order) == 1:
        return lambda t: (t[order[0]],)
    return itemgetter(*order)

# numpy, bound on first use (the view encoder, and importing this module, need no numpy).
_frombuffer: Any = None
_UINT8: Any = None
_FLOAT32: Any = None


def _load_numpy() -> None:
    global _frombuffer, _UINT8, _FLOAT32
    import numpy as np
    _frombuffer, _UINT8, _FLOAT32 = np.frombuffer, np.dtype(np.uint8), np.dtype(np.float32)


def _view_block(row: list[dict[str, Any]]) -> list[int]:
    """A row of melds (protocol JSON) as its 25 values of the ``melds`` field."""
    nat, wild = [0] * 11, [0] * 11
    natural = mixed = black3 = 0
    for m in row:
        rank, n, w = parse_kind(str(m["rank"])), int(m["naturals"]), int(m["wilds"])
        if rank == BLACK3:
            black3 = n
            continue
        nat[rank], wild[rank] = n, w
        if m["canasta"] == "natural":
            natural += 1
        elif m["canasta"] == "mixed":
            mixed += 1
    return nat + wild + [natural, mixed, black3]


# Byte maps: a count to 1 when it makes a canasta (7 cards or more), and when it is not 0.
_CANASTA = bytes(int(i >= 7) for i in range(256))
_SOME = bytes(int(i > 0) for i in range(256))


def _state_block(info: RowInfo, row: tuple[MeldState | None, ...]) -> bytes:
    """The same from the engine's summary of the row (``RowInfo``).  The canastas are
    counted a byte per rank: ranks of 7 cards or more, and of those the ones with a wild
    card (mixed), as bits of two integers (this runs whenever a row changes)."""
    wild = bytes(info.wild)
    natural = mixed = 0
    if info.canastas:
        done = _from_bytes(bytes(info.tot).translate(_CANASTA), "little")
        mixed = (done & _from_bytes(wild.translate(_SOME), "little")).bit_count()
        natural = done.bit_count() - mixed
    b3 = row[BLACK3]
    return b"".join((bytes(info.nat), wild, bytes((natural, mixed, len(b3.cards) if b3 else 0))))


def _sizes_getter(order: tuple[int, ...]) -> Callable[[tuple[Any, ...]], bytes]:
    """The hand sizes of per-seat ``hands`` in ``order``, as bytes (spelt out for the usual
    table sizes: this runs at every step)."""
    if len(order) == 2:
        a, b = order
        return lambda h: bytes((len(h[a]), len(h[b])))
    if len(order) == 3:
        a, b, c = order
        return lambda h: bytes((len(h[a]), len(h[b]), len(h[c])))
    if len(order) == 4:
        a, b, c, d = order
        return lambda h: bytes((len(h[a]), len(h[b]), len(h[c]), len(h[d])))
    if len(order) == 5:
        a, b, c, d, e = order
        return lambda h: bytes((len(h[a]), len(h[b]), len(h[c]), len(h[d]), len(h[e])))
    if len(order) == 6:
        a, b, c, d, e, f = order
        return lambda h: bytes((len(h[a]), len(h[b]), len(h[c]), len(h[d]), len(h[e]),
                                len(h[f])))
    pick = itemgetter(*order)
    return lambda h: bytes(map(len, pick(h)))


# A table key's points part (the scores, their bytes with 0 where a value does not fit a
# byte, and the (index, value) pairs of those), cut-throat's rows per seat (the team and lone
# they were read from, the rows the relative seats play on, the lone_hand and meld_row
# bytes), and a table key's table: the count of changes of which rows hold a meld and the
# state fields it was read from (red3, scores, team, lone), its bytes before the rows'
# blocks (red_threes to meld_row) and after them (scores, minimums), its points' (index,
# value) pairs, and whether the key's row of melds is still empty.
_Points = tuple[tuple[int, ...], bytes, tuple[tuple[int, float], ...]]
_Rows = tuple[Any, "int | None", tuple[int, ...], bytes]
_Table = tuple[int, Any, Any, Any, "int | None", bytes, bytes, tuple[tuple[int, float], ...], bool]


class _Tables:
    """What an encoder reads and never changes, made once per ruleset (``_TABLES``): six
    players' tables take over a millisecond to build, and environments, players and tests
    make encoders often."""

    def __init__(self, rules: Ruleset) -> None:
        self.layout = Layout(rules)
        p, s = rules.players, rules.sides
        self.rel_seats = tuple(tuple((seat + i) % p for i in range(p)) for seat in range(p))
        self.rel_sides = tuple(tuple((side + i) % s for i in range(s)) for side in range(s))
        self.seat_vec = tuple(_onehot(p, i) for i in range(p))
        self.side_vec = tuple(_onehot(s, i) for i in range(s))
        self.table_keys = tuple(seat if rules.cutthroat else rules.side_of(seat)
                                for seat in range(p))
        # Per seat: its side, the phase and turn-seat bytes (by the phase's id, then the
        # turn seat), the hand sizes in relative order, and getters rotating per-seat and
        # per-side tuples into relative order.
        self.seat_info = tuple(
            (rules.side_of(seat),
             {id(Phase(ph)): tuple(bytes(_PHASE_VEC[Phase(ph)] + self.seat_vec[(t - seat) % p])
                                   for t in range(p))
              for ph in (*PHASES, "game_over")},
             _sizes_getter(self.rel_seats[seat]),
             _getter(self.rel_sides[rules.side_of(seat)]),
             rules.cutthroat)
            for seat in range(p))


_TABLES: dict[Ruleset, _Tables] = {}


class Encoder:
    """Both encoders for one ruleset."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        tables = _TABLES.get(rules)
        if tables is None:
            if len(_TABLES) >= 64:  # a bound for a process that tries many rulesets
                _TABLES.clear()
            tables = _TABLES[rules] = _Tables(rules)
        self.layout = tables.layout
        self.size = self.layout.size
        p, s = rules.players, rules.sides
        self._rel_seats, self._rel_sides = tables.rel_seats, tables.rel_sides
        self._seat_vec, self._side_vec = tables.seat_vec, tables.side_vec
        self._table_keys, self._seat_info = tables.table_keys, tables.seat_info
        # Caches of from_state (each encoder's own): per table key (the side, or the seat in
        # cut-throat) its table and points; per row of melds its block; the pile's parts.
        self._tables: list[_Table | None] = [None] * p
        self._red3: list[tuple[tuple[tuple[int, ...], ...], bytes] | None] = [None] * p
        self._points: list[_Points | None] = [None] * p
        self._piles: tuple[Any, ...] | None = None
        self._rows: list[_Rows | None] = [None] * p
        self._pile_parts: dict[int, tuple[bytes, bytes]] = {}
        # The rows of melds the blocks were made from, the blocks by absolute row, and a count
        # of the changes of which rows hold a meld (a table key's table records it).
        self._minfo_seen: tuple[RowInfo, ...] | None = None
        self._melds_seen: Any = None
        self._row_bytes: list[bytes] = [b""] * s
        self._melded_gen = 0
        at = self.layout.offsets
        self._opening_at = at["turn"] + 4
        self._scores_at = at["scores"]

    def tracker(self) -> PublicTracker:
        """A fresh tracker for a game under this ruleset."""
        return PublicTracker(self.rules.players, self.rules.decks)

    def from_state(self, state: GameState, seat: int,
                   tracker: PublicTracker) -> npt.NDArray[np.float32]:
        """The vector for ``seat``, from the public parts of ``state`` and ``tracker``.

        Every count fits a byte (the tracker's counts are bytes already), so the vector is
        made as one join of bytes and converted once into a new array.  The head (phase to
        unseen) is made at every call.  Each row of melds' block is remade once when its
        row changes (state fields are immutable, so identity tells) and joined in each
        seat's order; the rest of the table (red threes, which rows hold a meld, scores,
        minimums) is kept per table key and remade only when a state field it is read from
        was replaced.  The tracker's counts are kept event by event, and each seat's facts
        (known, discards) are views of them.  Points that do not fit a byte are written
        after the conversion."""
        if _frombuffer is None:
            _load_numpy()
        if tracker._pending is not None:
            tracker.settle()
        if state.minfo is not self._minfo_seen or state.melds is not self._melds_seen:
            self._rows_changed(state)
        table = self._tables[self._table_keys[seat]]
        if (table is None or table[0] != self._melded_gen or table[1] is not state.red3
                or table[2] is not state.scores or table[3] is not state.team
                or table[4] != state.lone):
            table = self._table_of(state, seat)
        pile = state.pile
        piles = self._piles
        if piles is None or piles[0] is not pile or piles[1] != state.pile_frozen:
            piles = self._piles_of(pile, state.pile_frozen)
        perm = state.permission
        opening = state.opening_total
        _, head, sizes, rot_sides, _ = self._seat_info[seat]
        hand = bytes(state.hc[seat])
        # unseen = hidden + known[seat] - hand, per kind, as one byte-wise sum: every term
        # and partial sum is a count below 256, and no kind goes below zero (the seat's
        # cards are each hidden or known to be in its hand), so nothing carries or borrows.
        vec = _frombuffer(b"".join([
            head[id(state.phase)][state.turn_seat], hand, sizes(state.hands),
            piles[2] if table[8] else piles[3], tracker.pile_counts,
            bytes((len(state.stock), state.took_pile, state.asked, perm is True,
                   perm is False, opening if 0 <= opening < 256 else 0)),
            (_from_bytes(tracker.hidden, "little") + tracker.known_ints[seat]
             - _from_bytes(hand, "little")).to_bytes(N_KINDS, "little"),
            table[5], *rot_sides(self._row_bytes), table[6], *tracker.rel[seat]]),
            _UINT8).astype(_FLOAT32)
        if not 0 <= opening < 256:
            vec[self._opening_at] = opening
        if table[7]:
            for i, v in table[7]:
                vec[i] = v
        return vec  # type: ignore[no-any-return, unused-ignore]

    def _rows_changed(self, state: GameState) -> None:
        """A row of melds changed (a meld or an addition): remake the block of each row
        that did, once for every seat; count a change of which rows hold a meld."""
        minfo, melds = state.minfo, state.melds
        was, rows_was, out = self._minfo_seen, self._melds_seen, self._row_bytes
        for a in range(len(minfo)):
            info, row = minfo[a], melds[a]
            if was is not None and info is was[a] and row is rows_was[a]:
                continue
            if was is None or info.melded != was[a].melded:
                self._melded_gen += 1
            out[a] = _state_block(info, row)
        self._minfo_seen, self._melds_seen = minfo, melds

    def _table_of(self, state: GameState, seat: int) -> _Table:
        """The table for ``seat``'s table key but the rows' blocks: red threes, which rows
        hold a meld (cut-throat: also the lone hand and the row each seat plays on) before
        them, scores and minimums after."""
        side, _, _, rot_sides, cut = self._seat_info[seat]
        key = self._table_keys[seat]
        minfo, team = state.minfo, state.team
        red3 = self._red3[key]
        if red3 is None or red3[0] is not state.red3:
            red3 = self._red3[key] = (state.red3, bytes(map(len, rot_sides(state.red3))))
        if cut:
            rows = self._rows[seat]
            if rows is None or rows[0] is not team or rows[1] != state.lone:
                rows = self._rows_of(state, seat)
            pre = b"".join((red3[1], bytes([minfo[r].melded for r in rows[2]]), rows[3]))
        else:
            pre = red3[1] + bytes(map(_MELDED, rot_sides(minfo)))
        points = self._points[key]
        if points is None or points[0] is not state.scores:
            points = self._points_of(state, seat)
        table = self._tables[key] = (self._melded_gen, state.red3, state.scores, team,
                                     state.lone, pre, points[1], points[2],
                                     not minfo[team[seat]].melded)
        return table

    def _rows_of(self, state: GameState, seat: int) -> _Rows:
        """Cut-throat: the rows of melds the relative seats play on, and the lone_hand and
        meld_row bytes, for ``seat`` (they change only when ``team`` or ``lone`` does)."""
        team, lone, rules = state.team, state.lone, self.rules
        side = self._seat_info[seat][0]
        lone_bytes = (bytes(self._seat_vec[(lone - seat) % rules.players]) if lone is not None
                      else bytes(rules.players))
        rows = self._rows[seat] = (
            team, lone, tuple(team[a] for a in self._rel_sides[side]),
            lone_bytes + bytes(v for s in self._rel_seats[seat]
                               for v in self._side_vec[(team[s] - side) % rules.sides]))
        return rows

    def _piles_of(self, pile: tuple[int, ...], frozen: bool) -> tuple[Any, ...]:
        """pile_top to pile_stopped, for a seat whose side has not melded and for one whose
        side has, kept for the next call with the same pile and by top kind, size and
        frozen, as one int (the pile's counts come from the tracker)."""
        if pile:
            kind = KIND_OF[pile[-1]]
            top: int | None = kind
            key = (len(pile) << 6) + (kind << 1) + (1 if frozen else 0)
        else:
            top, key = None, 62 + (1 if frozen else 0)
        parts = self._pile_parts.get(key)
        if parts is None:  # at most (kinds + 1) * (pack size + 1) * 2 of them
            head, stopped = _TOP_BYTES[top] + bytes((len(pile), frozen)), top in _STOPS
            parts = self._pile_parts[key] = (head + bytes((1, stopped)),
                                             head + bytes((frozen, stopped)))
        piles = self._piles = (pile, frozen, parts[0], parts[1])
        return piles

    def _points_of(self, state: GameState, seat: int) -> _Points:
        """Scores and minimums for ``seat``'s side as bytes, 0 where a value does not fit
        a byte, and the (index, value) pairs of those, which ``from_state`` writes one by
        one after the conversion (cheaper than a slice of the array)."""
        scores, rules = state.scores, self.rules
        sides = self._rel_sides[self._seat_info[seat][0]]
        values = [scores[a] for a in sides] + [rules.initial_minimum(scores[a]) for a in sides]
        points = self._points[self._table_keys[seat]] = (
            scores, bytes([v if 0 <= v < 256 else 0 for v in values]),
            tuple((self._scores_at + i, float(v)) for i, v in enumerate(values)
                  if not 0 <= v < 256))
        return points

    def from_view(self, obs: dict[str, Any], tracker: PublicTracker) -> list[float]:
        """The vector from a protocol observation (``core.observation``) and the public
        facts of the events this seat received: the definition ``from_state`` follows."""
        rules = self.rules
        p = rules.players
        tracker.settle()
        seat, side = int(obs["seat"]), int(obs["side"])
        rel = self._rel_seats[seat]
        sides = self._rel_sides[side]
        hand = [0] * N_KINDS
        for c in obs["hand"]:
            hand[KIND_OF[face_of_text(c)]] += 1
        top_text = obs["pile_top"]
        top = KIND_OF[face_of_text(top_text)] if top_text is not None else None
        turn = obs["turn"]
        perm = turn["permission"]
        mine = tracker.known_of(seat)
        out: list[float] = [*_PHASE_TEXT_VEC[obs["phase"]],
                            *self._seat_vec[(int(obs["turn_seat"]) - seat) % p], *hand]
        out += [obs["hand_counts"][s] for s in rel]
        out += _TOP_VEC[top] if top is not None else _NO_KIND
        out += (obs["pile_size"], int(bool(obs["pile_frozen"])),
                int(bool(obs["pile_frozen_for_me"])), int(bool(obs["pile_stopped"])),
                *tracker.pile_counts, obs["stock_size"], int(bool(turn["took_pile"])),
                int(bool(turn["asked"])), int(perm is True), int(perm is False),
                turn["opening_total"])
        out += [b + m - h for b, m, h in zip(tracker.hidden, mine, hand, strict=True)]
        out += [len(obs["red_threes"][a]) for a in sides]
        out += [int(bool(obs["side_melded"][a])) for a in sides]
        if rules.cutthroat:
            lone = obs.get("lone_hand")
            out += self._seat_vec[(int(lone) - seat) % p] if lone is not None else (0,) * p
            for s in rel:
                out += self._side_vec[(int(obs["meld_side"][s]) - side) % rules.sides]
        for a in sides:
            out += _view_block(obs["melds"][a])
        out += [obs["scores"][a] for a in sides]
        out += [obs["minimums"][a] for a in sides]
        for s in rel[1:]:
            out += tracker.known_of(s)
        for s in rel:
            out += tracker.discards_of(s)
        return out
