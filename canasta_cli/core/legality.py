"""``legal_moves``: the single judge of what may be played.

Moves are generated per phase from kind counts, and each candidate is kept only if the turn
can still end legally after it (see ``feasibility``).
"""

from __future__ import annotations

from itertools import compress
from typing import Final

from .cards import BLACK3, DEUCE, JOKER, KIND_OF, KIND_VALUE, N_KINDS, RED3, VALUE_OF
from .feasibility import (
    RANKS,
    Memo,
    Situation,
    _greedy_opening,
    can_go_out,
    canastas_in_reach,
    viable,
)
from .moves import ADDS, ASK, DISCARDS, DRAW, END, NO, YES, Meld, Move, meld, take
from .state import GameState, Phase, kind_counts


def legal_moves(state: GameState) -> list[Move]:
    """Every legal move for ``state.actor``, in a stable order; empty only when the game is over.

    >>> from canasta_cli.core import format_move, new_game
    >>> state = new_game("classic", seed=33)  # seat 2 holds 4 4 2 2 K K K; a 4 on the pile
    >>> state.actor, legal_moves(state)[:2]
    (2, [Draw(), TakePile(rank=0, naturals=2, deuces=0, jokers=0)])
    >>> [format_move(m) for m in legal_moves(state)]
    ['draw', 'pile 4 4', 'pile 4 4 2', 'pile 4 4 2 2']
    """
    cached = state._legal
    if cached is not None:
        return list(cached)
    phase = state.phase
    if phase is Phase.DRAW:
        moves = _draw_moves(state)
    elif phase is Phase.ANSWER:
        moves = [YES, NO]
    elif phase is Phase.GAME_OVER:
        moves = []
    else:
        moves = _meld_moves(state)
    state._legal = tuple(moves)
    return moves


def hand_counts(hand: tuple[int, ...]) -> list[int]:
    """``kind_counts`` as a list, for callers that change it."""
    return list(kind_counts(hand))


def situation(state: GameState) -> Situation:
    """The current player's turn as counts (also used for a pile take, see ``_after_take``)."""
    rules = state.rules
    seat = state.turn_seat
    side = state.team[seat]
    s = Situation()
    info = state.minfo[side]
    s.hc = list(state.hc[seat])
    s.ex = list(info.ex)
    s.nat = list(info.nat)
    s.wild = list(info.wild)
    s.canastas = info.canastas
    s.hand_n = len(state.hands[seat])
    s.opening = not state.side_open_at_start
    s.started = s.opening and any(info.ex)
    s.total = state.opening_total
    s.minimum = state.minimums[rules.side_of(seat)]
    s.pending = state.pile_pending
    s.pending_counts = hand_counts(tuple(c for c in state.pile if KIND_OF[c] != RED3)) \
        if state.pile_pending else [0] * N_KINDS
    s.must_out = state.permission is True or state.committed_out
    s.no_out = state.permission is False
    s.no_discard = state.phase is Phase.MELD_NO_DISCARD
    s.waiver = rules.concealed_waives_minimum and not state.took_pile
    s.req = rules.canastas_to_go_out
    s.maxw = rules.max_wilds_per_meld
    s.c4 = rules.wild_le_natural
    s.b3_melded = info.b3_melded
    return s


# Draw phase ---------------------------------------------------------------------------------

def _draw_moves(state: GameState) -> list[Move]:
    takes, forced = pile_takes(state)
    if state.stock:
        return [DRAW, *takes]
    if forced or (takes and state.rules.exhausted_forced_take == "any_legal"):
        return takes
    return [*takes, END]


def pile_blocker(state: GameState) -> str | None:
    """Why the pile cannot be taken at all right now, or None."""
    seat = state.turn_seat
    pile = state.pile
    if not pile:
        return "the discard pile is empty"
    top_kind = KIND_OF[pile[-1]]
    if top_kind == BLACK3:
        return "a black three is on top of the pile: nobody may take it until it is covered"
    if top_kind in (DEUCE, JOKER):
        return "a wild card is on top of the pile: it cannot be taken until it is covered"
    if state.rules.one_card_pile_rule and len(pile) == 1 and len(state.hands[seat]) == 1:
        return "with one card in hand you may not take a one-card pile"
    return None


def frozen_against(state: GameState, side: int) -> bool:
    """Frozen for the meld row ``side`` (``state.meld_side(seat)``): by a wild card or red
    three in it, or because that row holds no meld yet."""
    return state.pile_frozen or not state.side_has_melded(side)


_IS_RED3: Final = tuple(int(k == RED3) for k in KIND_OF)


def pile_takes(state: GameState) -> tuple[list[Move], bool]:
    """Legal pile takes, and whether one of them is compulsory (stock exhausted, §11.2)."""
    pile = state.pile
    if not pile:
        return [], False
    seat = state.turn_seat
    hc = state.hc[seat]
    rank = KIND_OF[pile[-1]]
    side = state.team[seat]
    info = state.minfo[side]
    frozen = frozen_against(state, side)
    # No natural of the top card's rank in hand, or no pair against a frozen pile, and no meld
    # of that rank to lay it on: nothing to take (the common case, decided before the rest).
    if rank <= 10 and not info.ex[rank] and hc[rank] < (2 if frozen else 1):
        return [], False
    if pile_blocker(state) is not None:
        return [], False
    rules = state.rules
    existing = state.melds[side][rank]
    maxw, c4 = rules.max_wilds_per_meld, rules.wild_le_natural
    shapes: list[tuple[int, int, int]] = []
    if existing is not None:
        # Route (c) lays the top card off; a frozen pile needs a natural pair all the same.
        n = 2 if frozen else 0
        if hc[rank] >= n:
            shapes.append((n, 0, 0))
    else:
        low = 2 if frozen else 1
        for n in range(low, hc[rank] + 1):
            nat = n + 1
            lim = min(maxw, nat) if c4 else maxw
            for d in range(min(hc[DEUCE], lim) + 1):
                for j in range(min(hc[JOKER], lim - d) + 1):
                    if n == 1 and d + j == 0:
                        continue
                    shapes.append((n, d, j))
    moves: list[Move] = []
    forced = False
    if not shapes:
        return moves, forced
    base: Situation | None = None
    memo: Memo = {}
    rest: list[int] | None = None  # the kinds of the rest of the pile, made only for the search
    # A side already open, with no promise to go out, is fine after any take that leaves
    # two cards: it can stop melding and discard one.  Only other takes need the search.
    easy = state.side_open_at_start and state.permission is None and not state.committed_out
    after = len(state.hands[seat]) + len(pile) - 1 - sum(map(_IS_RED3.__getitem__, pile))
    for n, d, j in shapes:
        if existing is not None:
            nat = len(existing.cards) - existing.wilds + n + 1
            lim = min(maxw, nat) if c4 else maxw
            if d + j and existing.wilds + d + j > lim:
                continue
        if easy and after - n - d - j >= 2:
            moves.append(take(rank, n, d, j))
            if existing is not None and not frozen and n == 0:
                forced = not state.stock and rules.exhausted_forced_take == "matches_meld"
            continue
        if base is None:
            base = situation_for_draw(state)
            rest = hand_counts(tuple(c for c in pile[:-1] if KIND_OF[c] != RED3))
        s = base.copy()
        _after_take(s, state, rank, n, d, j, rest)
        if viable(s, memo):
            moves.append(take(rank, n, d, j))
            if existing is not None and not frozen and n == 0:
                forced = not state.stock and rules.exhausted_forced_take == "matches_meld"
    return moves, forced


def situation_for_draw(state: GameState) -> Situation:
    """The situation as it will stand after this player's draw step (for pile takes)."""
    s = situation(state)
    s.started = False
    s.total = 0
    s.pending = False
    s.waiver = False  # taking the pile rules out the concealed waiver in every profile
    s.no_discard = False
    return s


def _after_take(s: Situation, state: GameState, rank: int, n: int, d: int, j: int,
                rest: list[int] | None = None) -> None:
    """``s`` (a copy) after taking the pile with this shape; ``rest`` is the kind counts of the
    rest of the pile without red threes (computed once per call of ``pile_takes``)."""
    if rest is None:
        rest = hand_counts(tuple(c for c in state.pile[:-1] if KIND_OF[c] != RED3))
    top_value = VALUE_OF[state.pile[-1]]
    if s.opening:
        s.pending = True
        s.pending_counts = rest
        s.add_to_meld(rank, n, d, j, extra_value=top_value, extra_naturals=1)
    else:
        s.add_to_meld(rank, n, d, j, extra_naturals=1)
        hc = s.hc
        for k, c in enumerate(rest):
            if c:
                hc[k] = hc[k] + c
                s.hand_n += c


# Meld phase ---------------------------------------------------------------------------------

def _meld_moves(state: GameState) -> list[Move]:  # noqa: C901 - one pass, every move kind
    rules = state.rules
    seat = state.turn_seat
    hc = state.hc[seat]
    info = state.minfo[state.team[seat]]
    hand_n = len(state.hands[seat])
    opening = not state.side_open_at_start
    must_out = state.permission is True or state.committed_out
    no_out = state.permission is False
    pending = state.pile_pending
    no_discard = state.phase is Phase.MELD_NO_DISCARD
    # Without an opening to finish or a promise to go out, any move that leaves two cards
    # (one with no discard allowed) is safe; only the others need the feasibility search,
    # and the situation it works on is built only then.
    simple = not (opening or must_out or pending)
    spare = hand_n - (1 if no_discard else 2) if simple else -1
    s = None if simple else situation(state)
    maxw, c4 = rules.max_wilds_per_meld, rules.wild_le_natural
    moves: list[Move] = []
    memo: Memo = {}
    may_ask = (state.phase is Phase.MELD and rules.permission_question and not state.asked
               and not state.acted)
    out_now = False
    if (may_ask or opening) and not no_out and not pending and canastas_in_reach(
            rules.canastas_to_go_out, hc, info.tot):
        s = s or situation(state)
        out_now = can_go_out(s, bound_checked=True)
    if may_ask and out_now:
        moves.append(ASK)
    deuces, jokers = hc[DEUCE], hc[JOKER]
    # A move never adds to what the hand can still meld, so if neither finishing route is open
    # now (opening out of reach, going out impossible), no meld or add can be listed.
    hopeless = False
    if opening and not out_now:
        assert s is not None
        hopeless = must_out or s.total + _greedy_opening(s)[0] < s.minimum
    ex, nat, wild = info.ex, info.nat, info.wild
    for r in range(0 if hopeless else 11):  # RANKS, as a literal range (a C loop compiled)
        if ex[r]:
            adds = ADDS[r]
            if hc[r]:
                if spare >= 1:
                    moves.append(adds[r])
                else:
                    s = s or situation(state)
                    _try(moves, s, adds[r], r, 1, 0, 0, spare, memo)
            if (deuces or jokers) and (min(maxw, nat[r]) if c4 else maxw) > wild[r]:
                if spare >= 1:
                    if deuces:
                        moves.append(adds[DEUCE])
                    if jokers:
                        moves.append(adds[JOKER])
                    continue
                s = s or situation(state)
                if deuces:
                    _try(moves, s, adds[DEUCE], r, 0, 1, 0, spare, memo)
                if jokers:
                    _try(moves, s, adds[JOKER], r, 0, 0, 1, spare, memo)
        elif hc[r] >= 2:
            shapes, biggest = _new_melds(r, hc[r], deuces, jokers, maxw, c4)
            if biggest <= spare:
                moves.extend(shapes)
                continue
            s = s or situation(state)
            for mv in shapes:
                n, d, j = mv.naturals, mv.deuces, mv.jokers
                if n + d + j <= spare:
                    moves.append(mv)
                else:
                    _try(moves, s, mv, r, n, d, j, -1, memo)
    if hc[BLACK3] >= 3 and not pending and not no_out and not info.b3_melded:
        s = s or situation(state)
        for n in range(3, hc[BLACK3] + 1):
            t = s.copy()
            t.add_to_meld(BLACK3, n, 0, 0)
            if viable(t, memo):
                moves.append(meld(BLACK3, n))
    if pending:
        return moves
    if simple and hand_n > 1:
        # need is 0 for an open side: 'end' after a last red three, or any discard, is fine.
        if no_discard:
            moves.append(END)
            return moves
        moves.extend(compress(_DISCARD_MOVES, hc))
        return moves
    s = s or situation(state)
    if no_discard:
        if s.hand_n >= 1 and not s.must_out and s.need <= 0:
            moves.append(END)
        return moves
    if _discard_ok(s):
        moves.extend(compress(_DISCARD_MOVES, hc))
    return moves


# Discards in the move list's order: the natural ranks, deuce, joker, black three.  These are
# kinds 0 to 13 in order, so ``compress`` over a hand's counts lists them (it stops before
# RED3, kind 14, which is never discarded).
_DISCARD_KINDS: Final[tuple[int, ...]] = (*RANKS, DEUCE, JOKER, BLACK3)
assert tuple(range(RED3)) == _DISCARD_KINDS
_DISCARD_MOVES: Final = tuple(DISCARDS[k] for k in _DISCARD_KINDS)

_NEW_MELDS: Final[dict[int, tuple[tuple[Meld, ...], int]]] = {}


def _new_melds(r: int, n_max: int, deuces: int, jokers: int, maxw: int,
               c4: bool) -> tuple[tuple[Meld, ...], int]:
    """Every new meld of rank ``r`` the hand could lay (naturals, then deuces, then jokers
    ascending: the move list's order), and the most cards any of them uses.  Keyed by counts
    the pack bounds, so the table is bounded too: one int, digits from the least significant
    up, jokers (< 16), deuces (< 16), naturals (< 16), the rank (< 15), then (maxw, c4)."""
    key = ((((maxw * 2 + c4) * 15 + r) * 16 + n_max) * 16 + deuces) * 16 + jokers
    hit = _NEW_MELDS.get(key)
    if hit is None:
        out: list[Meld] = []
        for n in range(2, n_max + 1):
            lim = min(maxw, n) if c4 else maxw
            for d in range(min(deuces, lim) + 1):
                for j in range(min(jokers, lim - d) + 1):
                    if n + d + j >= 3:
                        out.append(meld(r, n, d, j))
        biggest = max((m.naturals + m.deuces + m.jokers for m in out), default=0)
        hit = _NEW_MELDS[key] = (tuple(out), biggest)
    return hit


def _discard_ok(s: Situation) -> bool:
    if s.hand_n == 1:
        return not s.no_out and s.canastas >= s.req and _opening_met_or_waived(s)
    return not s.must_out and s.need <= 0


def _opening_met_or_waived(s: Situation) -> bool:
    if not s.opening or s.total >= s.minimum:
        return True
    return s.waiver and s.canastas >= 1


def _try(moves: list[Move], s: Situation, move: Move, r: int, n: int, d: int, j: int,
         spare: int, memo: Memo) -> None:
    k = n + d + j
    if k <= spare:
        moves.append(move)
        return
    # An opening that this move completes, keeping cards to discard, is fine as it stands.
    if s.opening and not s.pending and not s.must_out and s.hand_n - k >= s.keep \
            and s.total + KIND_VALUE[r] * n + 20 * d + 50 * j >= s.minimum:
        moves.append(move)
        return
    t = s.copy()
    t.add_to_meld(r, n, d, j)
    if viable(t, memo):
        moves.append(move)
