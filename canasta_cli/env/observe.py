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

from collections.abc import Callable
from dataclasses import dataclass
from operator import add, attrgetter, itemgetter, sub
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
INF = float("inf")


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
            Field("scores", s, -INF, INF, "per relative side: points at the start of the hand"),
            Field("minimums", s, 0, 150, "per relative side: initial-meld minimum this hand"),
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

    def bounds(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        import numpy as np
        return np.array(self._lows, np.float32), np.array(self._highs, np.float32)

    def slice(self, name: str) -> slice:
        at = self.offsets[name]
        size = next(x.size for x in self.fields if x.name == name)
        return slice(at, at + size)


MELD_BLOCK = 25


def _meld_high(i: int, naturals: float, wilds: float, black3: float) -> float:
    return naturals if i < 11 else wilds if i < 22 else 11.0 if i < 24 else black3


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
_TOP_BYTES: dict[int | None, bytes] = {k: bytes(_TOP_VEC[k]) for k in range(N_KINDS)}
_TOP_BYTES[None] = bytes(N_KINDS)


def _getter(order: tuple[int, ...]) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    """Picks ``order`` out of a tuple, always as a tuple (``itemgetter`` of one does not)."""
    if len(order) == 1:
        return lambda t: (t[order[0]],)
    return itemgetter(*order)

# numpy, bound on first use (the view encoder, and importing this module, need no numpy).
_frombuffer: Any = None
_array: Any = None
_UINT8: Any = None
_FLOAT32: Any = None


def _load_numpy() -> None:
    global _frombuffer, _array, _UINT8, _FLOAT32
    import numpy as np
    _frombuffer, _array, _UINT8, _FLOAT32 = np.frombuffer, np.array, np.uint8, np.float32


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


def _state_block(info: RowInfo, row: tuple[MeldState | None, ...]) -> bytes:
    """The same from the engine's summary of the row (``RowInfo``)."""
    natural = mixed = 0
    for n, w in zip(info.nat, info.wild, strict=True):
        if n + w >= 7:
            if w:
                mixed += 1
            else:
                natural += 1
    b3 = row[BLACK3]
    return bytes((*info.nat, *info.wild, natural, mixed, len(b3.cards) if b3 else 0))


class Encoder:
    """Both encoders for one ruleset."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.layout = Layout(rules)
        self.size = self.layout.size
        p, s = rules.players, rules.sides
        self._rel_seats = tuple(tuple((seat + i) % p for i in range(p)) for seat in range(p))
        self._rel_sides = tuple(tuple((side + i) % s for i in range(s)) for side in range(s))
        self._seat_vec = tuple(_onehot(p, i) for i in range(p))
        self._side_vec = tuple(_onehot(s, i) for i in range(s))
        self._blocks: dict[int, tuple[RowInfo, bytes]] = {}
        # Per seat: its side, the phase and turn-seat bytes, and getters rotating per-seat
        # and per-side tuples into relative order.
        self._seat_info = tuple(
            (rules.side_of(seat),
             {(id(Phase(ph)), t): bytes(_PHASE_VEC[Phase(ph)] + self._seat_vec[(t - seat) % p])
              for ph in (*PHASES, "game_over") for t in range(p)},
             itemgetter(*self._rel_seats[seat]), _getter(self._rel_sides[rules.side_of(seat)]),
             rules.cutthroat)
            for seat in range(p))
        self._points: dict[int, tuple[tuple[int, ...], Any]] = {}
        self._zero_points = bytes(2 * s)
        at = self.layout.offsets
        self._opening_at = at["turn"] + 4
        self._points_at = slice(at["scores"], at["scores"] + 2 * s)

    def tracker(self) -> PublicTracker:
        """A fresh tracker for a game under this ruleset."""
        return PublicTracker(self.rules.players, self.rules.decks)

    def from_state(self, state: GameState, seat: int,
                   tracker: PublicTracker) -> npt.NDArray[np.float32]:
        """The vector for ``seat``, from the public parts of ``state`` and ``tracker``.

        Every count fits a byte (the tracker's counts are bytes already), so the vector is
        joined from bytes, each row of melds cached by the identity of its summary (state
        fields are immutable and replaced when they change), and converted once; the fields
        that hold points are written after."""
        if _frombuffer is None:
            _load_numpy()
        if tracker._pending is not None:
            tracker.settle()
        side, head, rot_seats, rot_sides, cut = self._seat_info[seat]
        minfo, team, pile, perm = state.minfo, state.team, state.pile, state.permission
        top = KIND_OF[pile[-1]] if pile else None
        hand = state.hc[seat]
        at = seat * N_KINDS
        pieces: list[bytes | bytearray] = [head[id(state.phase), state.turn_seat], bytes(hand),
                  bytes(map(len, rot_seats(state.hands))), _TOP_BYTES[top],
                  bytes((len(pile), state.pile_frozen,
                         state.pile_frozen or not minfo[team[seat]].melded, top in _STOPS)),
                  tracker.pile_counts,
                  bytes((len(state.stock), state.took_pile, state.asked, perm is True,
                         perm is False, 0)),
                  bytes(map(sub, map(add, tracker.hidden, tracker.known[at:at + N_KINDS]),
                            hand)),
                  bytes(map(len, rot_sides(state.red3)))]
        if cut:
            pieces.append(bytes(minfo[team[a]].melded for a in self._rel_sides[side]))
            pieces.append(bytes(self._seat_vec[(state.lone - seat) % self.rules.players])
                          if state.lone is not None else bytes(self.rules.players))
            pieces.append(bytes(v for s in self._rel_seats[seat]
                                for v in self._side_vec[(team[s] - side) % self.rules.sides]))
        else:
            pieces.append(bytes(map(_MELDED, rot_sides(minfo))))
        blocks = self._blocks
        melds = state.melds
        for a in self._rel_sides[side]:
            info = minfo[a]
            hit = blocks.get(a)
            if hit is None or hit[0] is not info:
                hit = blocks[a] = (info, _state_block(info, melds[a]))
            pieces.append(hit[1])
        scores = state.scores
        points = self._points.get(side)
        if points is None or points[0] is not scores:
            order = self._rel_sides[side]
            points = self._points[side] = (scores, _array(
                [scores[a] for a in order] + [self.rules.initial_minimum(scores[a])
                                              for a in order], _FLOAT32))
        pieces.append(self._zero_points)
        pieces.append(tracker.facts(seat))
        vec = _frombuffer(b"".join(pieces), _UINT8).astype(_FLOAT32)
        vec[self._opening_at] = state.opening_total
        vec[self._points_at] = points[1]
        return vec  # type: ignore[no-any-return]

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
