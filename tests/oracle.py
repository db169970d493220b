"""An independent oracle for the meld-phase move list (shared by the property tests).

``legal_moves`` lists a meld or an addition only if the turn can still end legally after it,
and decides that with counting arguments (``core/feasibility.py``: a greedy opening bound, a
dynamic program over meld shapes, the canasta deficits of going out) and, for an opening by
the pile with a card or none left in it, a search move by move.  The oracle answers the same
question another way, by brute force over small hands, and the two must agree exactly; it
also checks that the question "may I go out?" is offered exactly when the player can go out
this turn (the same brute force, with stopping ruled out).

What it takes from the core, and what it derives on its own:

* **The position** comes from the core: ``legality.situation`` reduces the state to counts (the
  hand per kind, the side's melds per rank, the turn's flags).  Independence is not the point
  there: the oracle checks what the move list decides from a position, and reading a position
  is what every rules test checks (the flags are the engine's own bookkeeping).
* **What a meld may hold** is re-derived from the rules (docs/RULES.md), in one predicate,
  ``meld_ok``: at least two naturals, three cards for a new meld, and the wild-card limits on
  the wild cards added (a cut-throat merged meld may already hold more).  The candidate moves
  are every shape the hand could lay, kept when ``meld_ok`` allows it, not a copy of the
  core's list of shapes.
* **Whether the turn can still end** is re-derived as a question about the *end* of the turn,
  not about its moves.  Melds and additions only ever put cards on the table, so a turn can
  end legally exactly when some final table can: a set of cards laid from the hand, each rank's
  share a valid meld or a valid addition, that either leaves cards to discard with the
  minimum met (stopping) or leaves none, or one to discard, with the canastas and the minimum
  that going out needs.  Any such final table is reached by laying each rank's share as one
  meld, or adding its naturals before its wild cards.  The oracle enumerates every final table
  of the hand, rank by rank (``plans``): no counting argument, no greedy choice, no bound.
  An opening by the pile is two such tables: one from the hand alone that reaches the
  minimum (then the pile joins the hand), and the end of the turn from there.

Exponential, so ``_check`` skips hands of more than 16 cards; the invariants cover those.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from canasta_cli.core import GameState, Phase, legal_moves
from canasta_cli.core.cards import BLACK3, DEUCE, JOKER, KIND_VALUE, N_KINDS, RED3
from canasta_cli.core.legality import situation
from canasta_cli.core.moves import Add, Ask, Meld, Move

RANKS = range(11)  # the natural ranks, 4 to A: a natural kind is its rank
NO_MELD = (0, 0)


@dataclass(frozen=True)
class Turn:
    """The player's turn: the hand and the side's melds as counts, and what the turn owes.

    ``table`` holds, per natural rank, the side's meld as (naturals, wild cards), or None;
    ``melded`` the points laid this turn toward the minimum and ``started`` whether a meld was
    laid this turn (both while ``opening``: the side had no meld when the turn began);
    ``pile``, in an opening by the pile, the rest of the pile per kind, which joins the hand
    once the minimum is met.  The rest is fixed for the turn: ``no_out`` (the partner said
    no), ``no_discard`` (a last red three: meld, then end without a discard), ``waiver``
    (going out concealed would need no minimum), ``req`` (canastas to go out), ``maxw`` and
    ``c4`` (the wild-card limits)."""

    hand: tuple[int, ...]
    table: tuple[tuple[int, int] | None, ...]
    melded: int
    started: bool
    pile: tuple[int, ...] | None
    must_out: bool  # the partner said yes, or the black-three set is down
    b3_down: bool
    opening: bool
    minimum: int
    no_out: bool
    no_discard: bool
    waiver: bool
    req: int
    maxw: int
    c4: bool


def turn_of(st: GameState) -> Turn:
    s = situation(st)
    return Turn(hand=tuple(s.hc),
                table=tuple((s.nat[r], s.wild[r]) if s.ex[r] else None for r in RANKS),
                melded=s.total, started=s.started,
                pile=tuple(s.pending_counts) if s.pending else None,
                must_out=s.must_out, b3_down=s.b3_melded, opening=s.opening, minimum=s.minimum,
                no_out=s.no_out, no_discard=s.no_discard, waiver=s.waiver, req=s.req,
                maxw=s.maxw, c4=s.c4)


def meld_ok(t: Turn, rank: int, naturals: int, wilds: int) -> bool:
    """May these cards of the hand go on the side's meld of ``rank`` (a new meld if there is
    none)?  Every meld holds two naturals or more; a new one three cards or more; the wild
    cards added must leave at most ``maxw`` in the meld, and (``c4``) no more than its naturals."""
    have = t.table[rank]
    nat, wild = have or NO_MELD
    nat, wild = nat + naturals, wild + wilds
    if nat < 2 or (have is None and nat + wild < 3):
        return False
    return not wilds or (wild <= t.maxw and (not t.c4 or wild <= nat))


def lay(t: Turn, rank: int, naturals: int, deuces: int, jokers: int) -> Turn:
    """The turn after laying these cards of the hand on the meld of ``rank`` (a natural rank
    or the black threes)."""
    hand = list(t.hand)
    hand[rank] -= naturals
    hand[DEUCE] -= deuces
    hand[JOKER] -= jokers
    assert min(hand) >= 0
    table, must_out, b3_down = list(t.table), t.must_out, t.b3_down
    if rank == BLACK3:
        must_out = b3_down = True
    else:
        nat, wild = table[rank] or NO_MELD
        table[rank] = (nat + naturals, wild + deuces + jokers)
    melded, pile = t.melded, t.pile
    if t.opening:
        melded += KIND_VALUE[rank] * naturals + KIND_VALUE[DEUCE] * deuces \
            + KIND_VALUE[JOKER] * jokers
        if pile is not None and melded >= t.minimum:
            hand = [a + b for a, b in zip(hand, pile, strict=True)]
            pile = None
    return dataclasses.replace(t, hand=tuple(hand), table=tuple(table), melded=melded,
                               started=t.opening, pile=pile, must_out=must_out,
                               b3_down=b3_down)


def moves(t: Turn) -> Iterator[tuple[Move, Turn]]:
    """Every meld and addition the rules allow now, with the turn after it."""
    hand = t.hand
    for r in RANKS:
        if t.table[r] is not None:  # one card at a time onto the side's meld
            for kind, shape in ((r, (1, 0, 0)), (DEUCE, (0, 1, 0)), (JOKER, (0, 0, 1))):
                n, d, j = shape
                if hand[kind] and meld_ok(t, r, n, d + j):
                    yield Add(r, kind), lay(t, r, n, d, j)
            continue
        for n in range(hand[r] + 1):
            for d in range(hand[DEUCE] + 1):
                for j in range(hand[JOKER] + 1):
                    if meld_ok(t, r, n, d + j):
                        yield Meld(r, n, d, j), lay(t, r, n, d, j)
    if t.pile is None and not t.no_out and not t.b3_down:  # the black-three set: going out
        for n in range(3, hand[BLACK3] + 1):
            yield Meld(BLACK3, n), lay(t, BLACK3, n, 0, 0)


Plan = tuple[tuple[int, int], ...]  # per natural rank: (naturals, wild cards) laid on it


def plans(t: Turn, hand: tuple[int, ...], everything: bool) -> Iterator[tuple[Plan, int]]:
    """Every final table that natural cards and wild cards of ``hand`` can make with the side's
    melds (black threes aside): per rank, how many naturals and wild cards go on it, each share
    allowed by ``meld_ok``; with each plan, the canastas on the table after it.  ``everything``:
    every natural of the hand is laid (going out)."""
    wilds = hand[DEUCE] + hand[JOKER]

    def extend(r: int, plan: Plan, wilds_left: int, canastas: int) -> Iterator[tuple[Plan, int]]:
        if r == len(RANKS):
            yield plan, canastas
            return
        nat, wild = t.table[r] or NO_MELD
        for a in ([hand[r]] if everything else range(hand[r] + 1)):
            for w in range(wilds_left + 1):
                if (a or w) and not meld_ok(t, r, a, w):
                    continue
                canasta = nat + wild + a + w >= 7
                yield from extend(r + 1, (*plan, (a, w)), wilds_left - w, canastas + canasta)

    yield from extend(0, (), wilds, 0)


def points(hand: tuple[int, ...], plan: Plan) -> int:
    """The most points the plan can lay: its naturals, and its wild cards jokers first (which
    wild cards are laid changes nothing else)."""
    naturals = sum(KIND_VALUE[r] * a for r, (a, _w) in zip(RANKS, plan, strict=True))
    wilds = sum(w for _a, w in plan)
    jokers = min(wilds, hand[JOKER])
    return naturals + KIND_VALUE[JOKER] * jokers + KIND_VALUE[DEUCE] * (wilds - jokers)


def laid(t: Turn, plan: Plan) -> Turn:
    """The turn after laying the plan, wild cards jokers first."""
    for r, (a, w) in zip(RANKS, plan, strict=True):
        if a or w:
            jokers = min(w, t.hand[JOKER])
            t = lay(t, r, a, w - jokers, jokers)
    return t


@lru_cache(maxsize=1 << 16)
def can_end(t: Turn) -> bool:
    """Can the turn still end legally from here, whatever the player lays first?"""
    if t.pile is not None:
        # Opening by the pile: some table laid from the hand alone reaches the minimum (the
        # pile then joins the hand; no points count after that), and the turn ends from there.
        need = t.minimum - t.melded
        return any(can_end(laid(t, plan)) for plan, _c in plans(t, t.hand, everything=False)
                   if points(t.hand, plan) >= need)
    return can_stop(t) or can_go_out(t)


def can_stop(t: Turn) -> bool:
    """End the turn with a discard (with no discard after a last red three), cards in hand."""
    keep = 1 if t.no_discard else 2
    cards = sum(t.hand)
    if t.must_out or cards < keep:
        return False
    if not t.started or t.melded >= t.minimum:
        return True  # nothing (more) to lay
    for plan, _canastas in plans(t, t.hand, everything=False):
        laid_cards = sum(a + w for a, w in plan)
        if cards - laid_cards >= keep and t.melded + points(t.hand, plan) >= t.minimum:
            return True
    return False


def can_go_out(t: Turn) -> bool:
    """Lay every card of the hand, or all but one to discard, and go out."""
    if t.no_out:
        return False
    assert not t.hand[RED3]
    rests = [t.hand]
    if not t.no_discard:
        rests += [tuple(c - (k == kind) for k, c in enumerate(t.hand))
                  for kind in range(N_KINDS) if t.hand[kind]]
    for rest in rests:
        threes = rest[BLACK3]
        if threes and (threes < 3 or t.b3_down):
            continue
        wilds = rest[DEUCE] + rest[JOKER]
        value = KIND_VALUE[BLACK3] * threes
        for plan, canastas in plans(t, rest, everything=True):
            if sum(w for _a, w in plan) != wilds or canastas < t.req:
                continue
            total = t.melded + value + points(rest, plan)
            if not t.opening or total >= t.minimum or (t.waiver and canastas >= 1):
                return True
    return False


def _check(st: GameState) -> None:
    if st.phase not in (Phase.MELD, Phase.PILE_OPENING, Phase.MELD_NO_DISCARD):
        return
    t = turn_of(st)
    if sum(t.hand) > 16:
        return  # the oracle is exponential; large hands are covered by the invariants
    expected = {m for m, after in moves(t) if can_end(after)}
    legal = legal_moves(st)
    listed = {m for m in legal if isinstance(m, (Meld, Add))}
    assert listed == expected, (st, sorted(map(str, listed ^ expected)))
    # The question "may I go out?" is offered exactly when the player can go out this turn.
    may_ask = (st.phase is Phase.MELD and st.rules.permission_question and not st.asked
               and not st.acted and not t.no_out and t.pile is None)
    if may_ask:
        assert (Ask() in legal) == can_end(dataclasses.replace(t, must_out=True)), st
    else:
        assert Ask() not in legal, st
