"""Can the turn still end legally?  Counting arguments over card kinds.

``legal_moves`` lists a move only if the position after it still has a legal way to finish the
turn, so no listed move leads into a dead end.  The questions are small: can the side still
reach its initial-meld minimum while keeping cards to discard (``can_finish``), and can the
player still go out this turn (``can_go_out``).  Both work on a ``Situation``: kind counts of
the hand and a summary of the side's melds, cheap to copy and to change.
"""

from __future__ import annotations

from typing import Final

from .cards import BLACK3, DEUCE, JOKER, KIND_VALUE

RANKS: Final = range(11)


class Situation:
    """The current player's turn, reduced to what legality depends on.

    ``situation()`` and ``copy()`` make fresh lists, so a change never reaches the state."""

    __slots__ = ("hc", "ex", "nat", "wild", "canastas", "hand_n", "opening", "started", "total",
                 "minimum", "pending", "pending_counts", "must_out", "no_out", "no_discard",
                 "waiver", "req", "maxw", "c4", "b3_melded")

    # Lists, typed: a compiled build indexes them in C (``situation()`` copies the state's
    # tuples, four short lists per call).
    hc: list[int]
    ex: list[bool]
    nat: list[int]
    wild: list[int]
    canastas: int
    hand_n: int
    opening: bool          # the side had no meld when this turn began
    started: bool          # ... and has melded this turn
    total: int             # value melded this turn toward the minimum
    minimum: int
    pending: bool          # opening by the pile: the rest of the pile waits for the minimum
    pending_counts: list[int]
    must_out: bool         # partner said yes, or a black-three set was laid
    no_out: bool           # partner said no
    no_discard: bool       # last stock card was a red three (meld_no_discard)
    waiver: bool           # going out concealed would waive the minimum
    req: int
    maxw: int
    c4: bool
    b3_melded: bool        # the side's black-three set is down (one per side, like any rank)

    def copy(self) -> Situation:
        new = Situation()
        new.hc = self.hc[:]
        new.ex = self.ex[:]
        new.nat = self.nat[:]
        new.wild = self.wild[:]
        new.canastas = self.canastas
        new.hand_n = self.hand_n
        new.opening = self.opening
        new.started = self.started
        new.total = self.total
        new.minimum = self.minimum
        new.pending = self.pending
        new.pending_counts = self.pending_counts  # only ever replaced, never changed
        new.must_out = self.must_out
        new.no_out = self.no_out
        new.no_discard = self.no_discard
        new.waiver = self.waiver
        new.req = self.req
        new.maxw = self.maxw
        new.c4 = self.c4
        new.b3_melded = self.b3_melded
        return new

    # Changes used to try a move -----------------------------------------------------------
    def add_to_meld(self, rank: int, naturals: int, deuces: int, jokers: int,
                    from_hand: bool = True, extra_value: int = 0, extra_naturals: int = 0) -> None:
        hc = self.hc
        if from_hand:
            hc[rank] = hc[rank] - naturals
            hc[DEUCE] = hc[DEUCE] - deuces
            hc[JOKER] = hc[JOKER] - jokers
            self.hand_n -= naturals + deuces + jokers
        if rank == BLACK3:
            self.must_out = True
            self.b3_melded = True
        else:
            before = self.nat[rank] + self.wild[rank]
            self.ex[rank] = True
            self.nat[rank] = self.nat[rank] + naturals + extra_naturals
            self.wild[rank] = self.wild[rank] + deuces + jokers
            if before < 7 <= self.nat[rank] + self.wild[rank]:
                self.canastas += 1
        if self.opening:
            self.started = True
            self.total += (KIND_VALUE[rank] * naturals + 20 * deuces + 50 * jokers + extra_value)
            if self.pending and self.total >= self.minimum:
                self.pending = False
                for k, n in enumerate(self.pending_counts):
                    hc[k] = hc[k] + n
                    self.hand_n += n

    def wild_cap(self, rank: int, extra_naturals: int = 0) -> int:
        """How many more wild cards the meld of ``rank`` may take."""
        nat: int = self.nat[rank] + extra_naturals
        wild: int = self.wild[rank]
        limit = min(self.maxw, nat) if self.c4 else self.maxw
        return limit - wild

    @property
    def need(self) -> int:
        return self.minimum - self.total if (self.opening and self.started) else 0

    @property
    def keep(self) -> int:
        """Cards that must stay in hand when the player stops melding without going out."""
        if self.pending:
            waiting: int = sum(self.pending_counts)
            return max(0, 2 - waiting)
        return 1 if self.no_discard else 2


Memo = dict[tuple[object, ...], bool]


def viable(s: Situation, memo: Memo | None = None) -> bool:
    """True if the turn can still end legally from ``s``.  ``memo`` may be shared by the
    candidates of one ``legal_moves`` call: they differ only in the fields its keys hold."""
    if s.hand_n == 0 and not s.pending:
        return went_out_ok(s)
    if not s.must_out and can_finish(s):
        return True
    if s.pending:
        # Opening by the pile with at most one card left in it: going out after the pick-up
        # may be the only way, and the counting arguments do not see across the pick-up.
        return not s.no_out and sum(s.pending_counts) <= 1 and _search(
            s, memo if memo is not None else {})
    return not s.no_out and can_go_out(s)


def _search(s: Situation, seen: dict[tuple[object, ...], bool]) -> bool:
    """Exhaustive: some sequence of melds and additions ends the turn legally (rare cases)."""
    key = (tuple(s.hc), tuple(s.ex), tuple(s.nat), tuple(s.wild), s.total, s.pending,
           s.must_out)
    if key in seen:
        return seen[key]
    seen[key] = False
    found = (not s.pending and (s.hand_n == 0 and went_out_ok(s) or s.hand_n > 0 and (
        not s.must_out and can_finish(s) or not s.no_out and can_go_out(s))))
    if not found:
        for t in _children(s):
            if _search(t, seen):
                found = True
                break
    seen[key] = found
    return found


def _children(s: Situation) -> list[Situation]:
    """Every situation one meld or one added card away."""
    out = []
    hc, maxw, c4 = s.hc, s.maxw, s.c4
    for r in range(11):  # RANKS: a literal range is a C loop when compiled
        if s.ex[r]:
            shapes = [(1, 0, 0), (0, 1, 0), (0, 0, 1)]
        else:
            shapes = [(n, d, j) for n in range(2, hc[r] + 1) for d in range(hc[DEUCE] + 1)
                      for j in range(hc[JOKER] + 1) if n + d + j >= 3]
        for n, d, j in shapes:
            if n > hc[r] or d > hc[DEUCE] or j > hc[JOKER]:
                continue
            nat, wild = s.nat[r] + n, s.wild[r] + d + j
            # Only added wild cards are limited: a cut-throat merged meld may already hold more.
            if nat < 2 or (d + j and (wild > maxw or (c4 and wild > nat))):
                continue
            t = s.copy()
            t.add_to_meld(r, n, d, j)
            out.append(t)
    if hc[BLACK3] >= 3 and not s.pending and not s.no_out and not s.b3_melded:
        for n in range(3, hc[BLACK3] + 1):
            t = s.copy()
            t.add_to_meld(BLACK3, n, 0, 0)
            out.append(t)
    return out


def opening_ok(s: Situation, melded_value: int = 0) -> bool:
    if not s.opening:
        return True
    if s.total + melded_value >= s.minimum:
        return True
    return s.waiver and s.canastas >= 1


def went_out_ok(s: Situation) -> bool:
    """The hand is empty: was going out allowed?"""
    return not s.no_out and s.canastas >= s.req and opening_ok(s)


def can_finish(s: Situation) -> bool:
    """Can the player stop melding, keeping ``s.keep`` cards, with the minimum met?"""
    need = s.need if not s.pending else s.minimum - s.total
    keep = s.keep
    if need <= 0:
        return s.hand_n >= keep
    best, used = _greedy_opening(s)
    if best < need:
        return False
    if s.hand_n - used >= keep:
        return True
    return _exact_opening(s, need, keep)


def _wild_values(s: Situation) -> list[int]:
    return [50] * s.hc[JOKER] + [20] * s.hc[DEUCE]


def _greedy_opening(s: Situation) -> tuple[int, int]:
    """Most value the hand can still add to melds (black threes aside), and cards it uses."""
    hc, maxw, c4 = s.hc, s.maxw, s.c4
    ex, nat, wild = s.ex, s.nat, s.wild
    value = used = cap = 0
    pairs: list[int] = []
    for r in range(11):  # RANKS: a literal range is a C loop when compiled
        n = hc[r]
        if ex[r]:
            if n:
                value += n * KIND_VALUE[r]
                used += n
            room = (min(maxw, nat[r] + n) if c4 else maxw) - wild[r]
            if room > 0:
                cap += room
        elif n >= 3:
            value += n * KIND_VALUE[r]
            used += n
            cap += min(maxw, n) if c4 else maxw
        elif n == 2:
            pairs.append(KIND_VALUE[r])
    jokers, deuces = hc[JOKER], hc[DEUCE]
    wilds = jokers + deuces
    if pairs and wilds:
        pairs.sort(reverse=True)
        k = min(len(pairs), wilds)
        value += 2 * sum(pairs[:k])
        used += 2 * k
        cap += k * (min(maxw, 2) if c4 else maxw)
    w = min(wilds, cap)
    # The best w wild cards: jokers (50) first, then deuces (20).
    best = 50 * w if w <= jokers else 50 * jokers + 20 * (w - jokers)
    return value + best, used + w


def _exact_opening(s: Situation, need: int, keep: int) -> bool:
    """Exact search over meld shapes per rank, for when the greedy answer uses too many cards.

    A dynamic program over (wild cards used, natural points so far capped at ``need``) that
    keeps the fewest cards used: points beyond ``need`` never help, and fewer cards always do,
    so the answer is exact while the table stays small (at most 19 x 31 entries) whatever the
    size of the hand."""
    hc, maxw, c4 = s.hc, s.maxw, s.c4
    wilds = _wild_values(s)
    wtot = len(wilds)
    prefix = [0]
    for v in wilds:
        prefix.append(prefix[-1] + v)
    if need <= 0:
        return s.hand_n >= keep
    room = s.hand_n - keep
    states: dict[tuple[int, int], int] = {(0, 0): 0}  # (wilds, capped points) -> fewest cards
    for r in range(11):  # RANKS: a literal range is a C loop when compiled
        n = hc[r]
        kv = KIND_VALUE[r]
        options: list[tuple[int, int]] = []  # (naturals added, wilds added)
        if s.ex[r]:
            for a in range(n + 1):
                lim = (min(maxw, s.nat[r] + a) if c4 else maxw) - s.wild[r]
                options.extend((a, w) for w in range(max(0, lim) + 1))
        else:
            for a in range(2, n + 1):
                lim = min(maxw, a) if c4 else maxw
                options.extend((a, w) for w in range(lim + 1) if a + w >= 3)
        if not options:
            continue
        nxt: dict[tuple[int, int], int] = dict(states) if not s.ex[r] else {}
        for (w0, v0), c0 in states.items():
            for a, w in options:
                w1 = w0 + w
                if w1 > wtot:
                    continue
                v1 = v0 + a * kv
                key = (w1, v1 if v1 < need else need)
                c1 = c0 + a + w
                if nxt.get(key, 1 << 30) > c1:
                    nxt[key] = c1
        states = nxt
        # Every entry is already a whole plan (the ranks not reached yet stay in hand), so the
        # first plan that works ends the search: large hands succeed within a rank or two.
        if any(v + prefix[w] >= need and c <= room for (w, v), c in states.items()):
            return True
    return False


def canastas_in_reach(req: int, hc: tuple[int, ...], table: tuple[int, ...]) -> bool:
    """A bound before the going-out search: each rank is at most one canasta, even given every
    wild card, so the req-th largest rank total (hand + table) plus the wild cards must reach
    7, that is, at least ``req`` ranks reach it.  ``table`` is the side's cards per natural
    rank (0 where no meld).  Typed tuples and a counting loop: C loops when compiled, with no
    list to sort."""
    if not 0 < req <= 11:
        return True
    short = 7 - hc[DEUCE] - hc[JOKER]
    for r in range(11):
        if hc[r] + table[r] >= short:
            req -= 1
            if not req:
                return True
    return False


def _in_reach(s: Situation) -> bool:
    """``canastas_in_reach`` for a situation's hand and melds (lists, changed in place)."""
    hc, nat, wild = s.hc, s.nat, s.wild
    req = s.req
    if not 0 < req <= 11:
        return True
    short = 7 - hc[DEUCE] - hc[JOKER]
    for r in range(11):
        if hc[r] + nat[r] + wild[r] >= short:
            req -= 1
            if not req:
                return True
    return False


def can_go_out(s: Situation, bound_checked: bool = False) -> bool:
    """Can the player meld everything (but one discard) this turn and go out legally?
    ``bound_checked``: the caller has already applied ``canastas_in_reach``."""
    hc = s.hc
    if not bound_checked and not _in_reach(s):
        return False
    singles = [r for r in range(11) if hc[r] == 1 and not s.ex[r]]
    b3 = hc[BLACK3]
    if len(singles) > 1 or b3 == 2 or (singles and b3 == 1) or (s.b3_melded and b3 > 1):
        return False
    if s.no_discard:
        if singles or b3 == 1:
            return False
        return _all_melded(s, None)
    if singles:
        return _all_melded(s, singles[0])
    if b3 == 1:
        return _all_melded(s, BLACK3)
    if _all_melded(s, None):
        return True
    # Discarding a natural or a black three only lowers what the rest can make (fewer points,
    # smaller melds, less room for wild cards); only shedding a wild card can help (too many
    # wild cards for the room, or a wild card with nothing to go on).
    return bool(hc[DEUCE] and _all_melded(s, DEUCE) or hc[JOKER] and _all_melded(s, JOKER))


def _all_melded(s: Situation, discard: int | None) -> bool:
    h = s.hc
    if discard is not None:
        h = list(h)
        h[discard] = h[discard] - 1
    b3 = h[BLACK3]
    if b3 in (1, 2) or (b3 and s.b3_melded):
        return False
    maxw, c4 = s.maxw, s.c4
    value = 5 * b3 + 20 * h[DEUCE] + 50 * h[JOKER]
    canastas = 0
    mandatory = 0
    cap_total = 0
    deficits: list[tuple[int, int]] = []  # (cards missing for a canasta, wild room left)
    any_meld = False
    for r in range(11):  # RANKS: a literal range is a C loop when compiled
        n = h[r]
        if s.ex[r]:
            nat = s.nat[r] + n
            size = nat + s.wild[r]
            cap = max(0, (min(maxw, nat) if c4 else maxw) - s.wild[r])
        elif n == 0:
            continue
        elif n == 1:
            return False
        else:
            size = n
            cap = min(maxw, n) if c4 else maxw
            if n == 2:
                mandatory += 1
                size += 1
                cap -= 1
        any_meld = True
        value += n * KIND_VALUE[r]
        cap_total += cap
        if size >= 7:
            canastas += 1
        elif 7 - size <= cap:
            deficits.append((7 - size, cap))
    wilds = h[DEUCE] + h[JOKER]
    if wilds and not any_meld:
        return False
    if mandatory > wilds or wilds - mandatory > cap_total:
        return False
    spare = wilds - mandatory
    deficits.sort()
    for d, _cap in deficits:
        if d > spare:
            break
        spare -= d
        canastas += 1
    if canastas < s.req:
        return False
    if not s.opening or s.total + value >= s.minimum:
        return True
    return s.waiver and canastas >= 1
