"""Melds on the table and the counts kept beside them: immutable values the state holds."""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import add
from typing import Any, Final

from .cards import KIND_OF, KIND_TEXT, N_KINDS, TEXT_OF, VALUE_OF
from .pickling import by_fields


@dataclass(init=False, slots=True, unsafe_hash=True)
class MeldState:
    """A meld on the table.  ``created_turn`` and ``owner`` decide concealed status.

    Immutable by contract, like the state that holds it (a new meld replaces it when it
    grows); not ``frozen`` because a frozen dataclass's constructor costs five times more,
    and one is made on every meld, addition and pile take.  Its ``__init__`` is written out
    (``init=False``) so that a compiled build makes one natively, not through the generated
    Python ``__init__``; ``RowInfo`` and the events do the same."""

    rank: int
    cards: tuple[int, ...]
    wilds: int
    owner: int
    created_turn: int
    concealed: bool = False
    _json: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)
    # The JSON text of ``to_json()``, filled by the protocol layer: a cache that lives and dies
    # with the meld, so it is bounded by the melds alive instead of by a global table.
    _wire: str | None = field(default=None, init=False, repr=False, compare=False)

    def __init__(self, rank: int, cards: tuple[int, ...], wilds: int, owner: int,
                 created_turn: int, concealed: bool = False) -> None:
        self.rank = rank
        self.cards = cards
        self.wilds = wilds
        self.owner = owner
        self.created_turn = created_turn
        self.concealed = concealed
        self._json = None
        self._wire = None

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def naturals(self) -> int:
        return len(self.cards) - self.wilds

    @property
    def is_canasta(self) -> bool:
        return len(self.cards) >= 7

    @property
    def is_natural(self) -> bool:
        return self.wilds == 0

    @property
    def value(self) -> int:
        return sum(VALUE_OF[c] for c in self.cards)

    def to_json(self) -> dict[str, Any]:
        """JSON view: a new dict (and card list) on every call, made from one computed per
        meld, so that whoever changes the view it was given changes nothing else."""
        if self._json is None:
            status = None
            if self.is_canasta:
                status = "natural" if self.is_natural else "mixed"
            object.__setattr__(self, "_json", {
                "rank": KIND_TEXT[self.rank], "cards": [TEXT_OF[c] for c in self.cards],
                "naturals": self.naturals, "wilds": self.wilds, "canasta": status,
                "concealed": self.concealed and self.is_canasta})
        view = self._json
        assert view is not None
        return {**view, "cards": list(view["cards"])}


EMPTY_MELDS: Final[tuple[MeldState | None, ...]] = (None,) * N_KINDS


@dataclass(init=False, slots=True, unsafe_hash=True)
class RowInfo:
    """A row of melds as counts, kept beside it in the state so that every ``legal_moves``
    call does not rebuild it: per natural rank, melded or not, naturals and wild cards.
    Immutable by contract (see ``MeldState``)."""

    ex: tuple[bool, ...]
    nat: tuple[int, ...]
    wild: tuple[int, ...]
    canastas: int
    b3_melded: bool
    melded: bool
    tot: tuple[int, ...]  # cards per rank (naturals and wild cards), for the going-out bound

    def __init__(self, ex: tuple[bool, ...], nat: tuple[int, ...], wild: tuple[int, ...],
                 canastas: int, b3_melded: bool, melded: bool, tot: tuple[int, ...]) -> None:
        self.ex = ex
        self.nat = nat
        self.wild = wild
        self.canastas = canastas
        self.b3_melded = b3_melded
        self.melded = melded
        self.tot = tot

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)


def row_info(row: tuple[MeldState | None, ...]) -> RowInfo:
    ex, nat, wild = [False] * 11, [0] * 11, [0] * 11
    canastas = 0
    for r in range(11):
        m = row[r]
        if m is not None:
            ex[r] = True
            nat[r] = len(m.cards) - m.wilds
            wild[r] = m.wilds
            if len(m.cards) >= 7:
                canastas += 1
    return RowInfo(tuple(ex), tuple(nat), tuple(wild), canastas, row[13] is not None,
                   any(m is not None for m in row), tuple(map(add, nat, wild)))


EMPTY_ROW_INFO: Final = row_info(EMPTY_MELDS)


def with_meld(info: RowInfo, meld: MeldState) -> RowInfo:
    """``info`` after ``meld`` is put in its rank's place (new, or grown by a card)."""
    r = meld.rank
    if r == 13:
        return RowInfo(info.ex, info.nat, info.wild, info.canastas, True, True, info.tot)
    n = len(meld.cards)
    canastas = info.canastas + (1 if n >= 7 and info.tot[r] < 7 else 0)
    ex, nat, wild, tot = list(info.ex), list(info.nat), list(info.wild), list(info.tot)
    ex[r] = True
    nat[r] = n - meld.wilds
    wild[r] = meld.wilds
    tot[r] = n
    return RowInfo(tuple(ex), tuple(nat), tuple(wild), canastas, info.b3_melded, True,
                   tuple(tot))


def kind_counts(hand: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    counts = [0] * N_KINDS
    for c in hand:
        counts[KIND_OF[c]] += 1
    return tuple(counts)
