"""An exhaustive-search oracle for the meld-phase move list (shared by the property tests).

``legal_moves`` prunes candidates with counting arguments (``feasibility``).  The oracle
checks every locally legal meld/add by brute force instead: does some sequence of further
melds and adds end the turn legally?  The two must agree exactly.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from canasta_cli.core import GameState, Phase, legal_moves
from canasta_cli.core.cards import BLACK3, DEUCE, JOKER, KIND_VALUE
from canasta_cli.core.feasibility import Situation
from canasta_cli.core.legality import situation
from canasta_cli.core.moves import Add, Ask, Meld

Key = tuple[Any, ...]


def _freeze(s: Situation) -> Key:
    return (tuple(s.hc), tuple(s.ex), tuple(s.nat), tuple(s.wild), s.total, s.started,
            s.pending, tuple(s.pending_counts), s.must_out, s.b3_melded)


class Oracle:
    def __init__(self, s: Situation) -> None:
        self.fixed = (s.opening, s.minimum, s.no_out, s.no_discard, s.waiver, s.req, s.maxw,
                      s.c4)
        self.search = lru_cache(maxsize=None)(self._search)

    def canastas(self, nat: tuple[int, ...], wild: tuple[int, ...]) -> int:
        return sum(1 for n, w in zip(nat, wild, strict=True) if n + w >= 7)

    def opening_ok(self, total: int, canastas: int) -> bool:
        opening, minimum, _no_out, _nd, waiver, _req, _mw, _c4 = self.fixed
        return not opening or total >= minimum or (waiver and canastas >= 1)

    def finishes(self, key: Key) -> bool:
        hc, ex, nat, wild, total, started, pending, _pc, must_out, b3 = key
        opening, minimum, no_out, no_discard, waiver, req, _mw, _c4 = self.fixed
        hand_n = sum(hc)
        can = self.canastas(nat, wild)
        out_ok = not no_out and can >= req and self.opening_ok(total, can)
        if pending:
            return False
        if hand_n == 0:
            return out_ok
        met = not opening or not started or total >= minimum
        if no_discard:
            return not must_out and met
        if hand_n == 1:
            return out_ok
        return not must_out and met

    def children(self, key: Key):  # type: ignore[no-untyped-def]
        hc, ex, nat, wild, total, started, pending, pc, must_out, b3 = key
        _o, _m, no_out, _nd, _w, _r, maxw, c4 = self.fixed
        hc, ex, nat, wild = list(hc), list(ex), list(nat), list(wild)
        for r in range(11):
            if ex[r]:
                shapes = [(1, 0, 0), (0, 1, 0), (0, 0, 1)]
            else:
                shapes = [(n, d, j) for n in range(2, hc[r] + 1) for d in range(hc[DEUCE] + 1)
                          for j in range(hc[JOKER] + 1) if n + d + j >= 3]
            for n, d, j in shapes:
                if n > hc[r] or d > hc[DEUCE] or j > hc[JOKER]:
                    continue
                n2, w2 = nat[r] + n, wild[r] + d + j
                # Limits bind added wild cards: a cut-throat merged meld may hold more already.
                if n2 < 2 or (d + j and (w2 > maxw or (c4 and w2 > n2))):
                    continue
                yield (Meld(r, n, d, j) if not ex[r] else
                       Add(r, r if n else DEUCE if d else JOKER)), self.after(key, r, n, d, j)
        if hc[BLACK3] >= 3 and not pending and not no_out and not b3:
            for n in range(3, hc[BLACK3] + 1):
                yield Meld(BLACK3, n), self.after(key, BLACK3, n, 0, 0)

    def after(self, key: Key, r: int, n: int, d: int, j: int) -> Key:
        hc, ex, nat, wild, total, started, pending, pc, must_out, b3 = key
        opening = self.fixed[0]
        hc, ex, nat, wild = list(hc), list(ex), list(nat), list(wild)
        hc[r] -= n
        hc[DEUCE] -= d
        hc[JOKER] -= j
        if r == BLACK3:
            must_out = b3 = True
        else:
            ex[r] = True
            nat[r] += n
            wild[r] += d + j
        if opening:
            started = True
            total += KIND_VALUE[r] * n + 20 * d + 50 * j
            if pending and total >= self.fixed[1]:
                pending = False
                hc = [a + b for a, b in zip(hc, pc, strict=True)]
        return (tuple(hc), tuple(ex), tuple(nat), tuple(wild), total, started, pending, pc,
                must_out, b3)

    def _search(self, key: Key) -> bool:
        if self.finishes(key):
            return True
        return any(self.search(child) for _m, child in self.children(key))


def _check(st: GameState) -> None:
    if st.phase not in (Phase.MELD, Phase.PILE_OPENING, Phase.MELD_NO_DISCARD):
        return
    s = situation(st)
    if s.hand_n > 16:
        return  # the oracle is exponential; large hands are covered by the invariants
    oracle = Oracle(s)
    root = _freeze(s)
    expected = {m for m, child in oracle.children(root) if oracle.search(child)}
    listed = {m for m in legal_moves(st) if isinstance(m, (Meld, Add))}
    assert listed == expected, (st, sorted(map(str, listed ^ expected)))
    # The question is offered exactly when some sequence goes out.
    if Ask() in legal_moves(st):
        forced = root[:-1] + (True,)
        assert oracle.search(forced)
