"""The fixed action enumeration: every move a Canasta decision can take under a ruleset.

A learning agent needs one ``Discrete(N)`` space whose index ``i`` always means the same
move, so the table is built from what the pack and the meld rules allow, never from a
position.  The order (documented in docs/ML.md) is::

    draw, end, ask, yes, no,
    discard 4 .. A, 2, Jo, 3                      (14)
    add R, add R 2, add R Jo   for R = 4 .. A     (33)
    meld R n d j               for R = 4 .. A, then the black-three sets
    pile R n d j               for R = 4 .. A (``pile R``, the lay-off, first)

Within a rank, melds and takes go by naturals, then deuces, then jokers, ascending: the
order of ``legal_moves``.  The table only depends on the number of decks,
``max_wilds_per_meld`` and ``wild_le_natural``, so every preset has its own fixed size.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..core.cards import BLACK3, DEUCE, JOKER, RED3
from ..core.errors import CanastaError
from ..core.moves import ADDS, ASK, DISCARDS, DRAW, END, NO, YES, Move, meld, take
from ..core.notation import format_move
from ..core.rules import Ruleset, preset

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

RANKS = range(11)


class ActionError(CanastaError):
    """An index outside the table, or a move the table does not hold."""


def _wild_shapes(naturals: int, rules: Ruleset) -> list[tuple[int, int]]:
    """(deuces, jokers) a meld with this many naturals may carry, ascending."""
    decks = rules.decks
    lim = min(rules.max_wilds_per_meld, naturals) if rules.wild_le_natural \
        else rules.max_wilds_per_meld
    return [(d, j) for d in range(min(4 * decks, lim) + 1)
            for j in range(min(2 * decks, lim - d) + 1)]


def enumerate_moves(rules: Ruleset) -> tuple[Move, ...]:
    """Every move the rules could ever list, in the table's order (interned engine objects)."""
    decks = rules.decks
    per_rank = 4 * decks
    out: list[Move] = [DRAW, END, ASK, YES, NO]
    out += [DISCARDS[k] for k in range(RED3)]
    for r in RANKS:
        out += [ADDS[r][r], ADDS[r][DEUCE], ADDS[r][JOKER]]
    for r in RANKS:
        for n in range(2, per_rank + 1):
            out += [meld(r, n, d, j) for d, j in _wild_shapes(n, rules) if n + d + j >= 3]
    out += [meld(BLACK3, n) for n in range(3, 2 * decks + 1)]
    for r in RANKS:
        out.append(take(r))
        for n in range(1, per_rank):
            out += [take(r, n, d, j) for d, j in _wild_shapes(n + 1, rules)
                    if n > 1 or d + j > 0]
    return tuple(out)


class ActionTable:
    """Index <-> move for one ruleset.  ``index`` finds a listed move by identity first
    (``legal_moves`` hands out interned objects), so a mask costs a dict lookup per move."""

    def __init__(self, rules: Ruleset) -> None:
        self.moves = enumerate_moves(rules)
        self.size = len(self.moves)
        self._by_id = {id(m): i for i, m in enumerate(self.moves)}
        self._by_move = {m: i for i, m in enumerate(self.moves)}
        self._frombuffer: Any = None
        self._int8: Any = None
        if len(self._by_move) != self.size:
            raise AssertionError("the action table lists a move twice")

    def index(self, move: Move) -> int:
        i = self._by_id.get(id(move))
        if i is not None:
            return i
        try:
            return self._by_move[move]
        except KeyError:
            raise ActionError(f"{format_move(move)!r} is not in the action table") from None

    def move(self, index: int) -> Move:
        if isinstance(index, bool) or not 0 <= index < self.size:
            raise ActionError(f"action {index!r} is outside 0..{self.size - 1}")
        return self.moves[index]

    def text(self, index: int) -> str:
        return format_move(self.move(index))

    def indices(self, moves: Iterable[Move]) -> list[int]:
        # The table holds its moves, so an id found here is one of them (ids are unique
        # among live objects); a move made elsewhere is found by value.
        by_id = self._by_id
        try:
            return [by_id[id(m)] for m in moves]
        except KeyError:
            return [self.index(m) for m in moves]

    def mask(self, moves: Sequence[Move]) -> npt.NDArray[np.int8]:
        """int8 with 1 exactly at the listed moves."""
        if self._frombuffer is None:
            import numpy as np
            self._frombuffer, self._int8 = np.frombuffer, np.dtype(np.int8)
        out = bytearray(self.size)
        by_id = self._by_id
        try:
            for m in moves:
                out[by_id[id(m)]] = 1
        except KeyError:
            for i in self.indices(moves):
                out[i] = 1
        return self._frombuffer(out, self._int8)  # type: ignore[no-any-return, unused-ignore]


def table_key(rules: Ruleset) -> tuple[int, int, bool]:
    return (rules.decks, rules.max_wilds_per_meld, rules.wild_le_natural)


@lru_cache(maxsize=32)
def _table(key: tuple[int, int, bool]) -> ActionTable:
    decks, maxw, c4 = key
    players = 6 if decks == 3 else 4
    return ActionTable(Ruleset(players=players, hand_size=11, max_wilds_per_meld=maxw,
                               wild_le_natural=c4))


def action_table(rules: Ruleset | str) -> ActionTable:
    """The shared table for ``rules``, a Ruleset or a preset name as everywhere else
    (tables are equal for rulesets with the same key)."""
    return _table(table_key(preset(rules) if isinstance(rules, str) else rules))
