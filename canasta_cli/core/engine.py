"""Starting a game and applying moves.

``apply`` accepts exactly the moves of ``legal_moves`` and returns a new state; anything else
raises ``IllegalMoveError`` with a reason from ``explain``.  All chance is the deal, drawn
from the game's seed (or a stacked deck) and recorded as a ``HandStarted`` event.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from . import events as ev
from .cards import (
    BLACK3,
    DEUCE,
    JOKER,
    KIND_OF,
    KIND_VALUE,
    RED3,
    VALUE_OF,
)
from .deal import DeckError, check_scores, complete_deck, game_over_reason, shuffled_deck
from .errors import CanastaError
from .explain import explain, malformed
from .legality import legal_moves
from .moves import Add, Answer, Ask, Discard, Draw, EndHand, Meld, Move, TakePile
from .reasons import GameEnd, HandEnd
from .rules import CLASSIC, Ruleset
from .scoring import HandResult, score_side
from .state import (
    EMPTY_MELDS,
    EMPTY_ROW_INFO,
    GameState,
    MeldState,
    Phase,
    kind_counts,
    row_info,
    with_meld,
)


class IllegalMoveError(CanastaError):
    """A move that ``legal_moves`` does not list; the message says why."""

    def __init__(self, move: object, reason: str) -> None:
        super().__init__(reason)
        self.move = move
        self.reason = reason


def new_game(rules: Ruleset | str = CLASSIC, seed: int = 0,
             decks: Sequence[Sequence[int] | Sequence[str] | str] = (),
             dealer: int | None = None, scores: Sequence[int] | None = None,
             hand_no: int = 1, hand_log: bool = False) -> GameState:
    """A new game, its first hand dealt.

    ``rules`` is a Ruleset or a preset name.  ``decks`` stacks the deck of the first hand,
    the second, ... (top card first, possibly partial), as card ids, card texts
    (``["Ah", "10s", "Jo"]``) or one string of them; later hands are shuffled from ``seed``.
    ``dealer`` (the first hand's dealer) defaults to a seat drawn from the seed.

    ``scores`` starts the game at these cumulative totals, one per side (a game begun on
    paper, or a situation near the target): the minimums and the end of the game follow from
    them.  ``hand_no`` numbers the first hand dealt; the deck of an unstacked hand depends on
    (seed, hand number), and ``max_hands`` counts the hands played from here.

    ``hand_log`` keeps only the current hand's events in the log (``GameState.events``), from
    the move that dealt it: for a long game whose events are read as they happen (the
    referee's), so that its memory does not grow with the game.

    >>> state = new_game("classic", seed=33)
    >>> state.hand_no, state.dealer, state.actor, state.phase
    (1, 1, 2, <Phase.DRAW: 'draw'>)
    >>> len(state.hands[2]), len(state.stock), state.minimums
    (11, 61, (50, 50))
    >>> new_game("classic", seed=33).hands == state.hands  # the seed decides the deal
    True
    >>> new_game("classic", seed=33, scores=[1600, 3100]).minimums
    (90, 120)
    """
    if isinstance(rules, str):
        from .rules import preset
        rules = preset(rules)
    start = check_scores(rules, scores)
    if isinstance(hand_no, bool) or not isinstance(hand_no, int) or not 1 <= hand_no <= 10_000:
        raise ValueError(f"hand_no must be a whole number from 1 to 10000, not {hand_no!r}")
    orders = [_deck_ids(d, rules) for d in decks]
    _check_dealer(dealer, rules)
    if dealer is None:
        dealer = random.Random(f"canasta/{seed}/dealer").randrange(rules.players)
    stacked = tuple(complete_deck(rules, d, seed, hand_no + i) for i, d in enumerate(orders))
    # The state before the first deal: ``_deal`` moves to the next hand and dealer.
    st = GameState(rules, seed, stacked=stacked, first_hand=hand_no, hand_no=hand_no - 1,
                   dealer=(dealer - 1) % rules.players, scores=start, hand_log=hand_log)
    _deal(st)
    return st


def _check_dealer(dealer: object, rules: Ruleset) -> None:
    """Refuse a dealer that is neither None (drawn from the seed) nor a seat: a bool, a float
    or a string would deal a game all the same.  Checked as ``object``, before any narrowing:
    compiled, an ``int | None`` narrowed to int reads True as 1."""
    if dealer is not None and (type(dealer) is not int or not 0 <= dealer < rules.players):
        raise ValueError(f"dealer must be a seat, a whole number from 0 to {rules.players - 1},"
                         f" not {dealer!r}")


def _deck_ids(deck: Sequence[int] | Sequence[str] | str, rules: Ruleset) -> list[int]:
    if isinstance(deck, str):
        deck = deck.split()
    if all(isinstance(c, str) for c in deck):
        from .cards import parse_card_sequence
        try:
            return parse_card_sequence([str(c) for c in deck], rules.decks)
        except ValueError as exc:
            raise DeckError(str(exc)) from None
    return [int(c) for c in deck]


def apply(state: GameState, move: Move | str) -> GameState:
    """The state after ``move`` (a move, or its notation such as ``"meld K K 2"``); ``state``
    itself is never changed.

    >>> from canasta_cli.core import TakePile, format_move
    >>> state = new_game("classic", seed=33)  # seat 2 holds 4 4 2 2 K K K; a 4 on the pile
    >>> after = apply(state, "pile 4 4 2 2")
    >>> after.phase, len(after.hands[2]), len(state.hands[2])  # ``state`` is unchanged
    (<Phase.MELD: 'meld'>, 7, 11)
    >>> apply(state, TakePile(0, 2, 2)).hands == after.hands  # the move itself, not its text
    True
    >>> [format_move(m) for m in legal_moves(after)]
    ['meld K K K', 'discard 7', 'discard 8', 'discard 10', 'discard J', 'discard K']
    >>> apply(after, "meld J J 2")
    Traceback (most recent call last):
        ...
    canasta_cli.core.engine.IllegalMoveError: you hold 1 J, not 2
    """
    if isinstance(move, str):
        from .notation import parse_move
        move = parse_move(move, top_rank=KIND_OF[state.pile[-1]] if state.pile else None)
    legal = state._legal
    if legal is None:
        legal_moves(state)
        legal = state._legal
        assert legal is not None
    for listed in legal:  # listed moves are interned: identity finds them without __eq__
        if listed is move:
            break
    else:
        found = _equal_listed(legal, move)
        if found is None:
            raise IllegalMoveError(move, explain(state, move))
        move = found
    st = state.copy()
    _do(st, move)
    if st.hand_log and st.hand_no != state.hand_no:
        _rebase(st, state.log)
    return st


def _equal_listed(legal: Sequence[Move], move: Move) -> Move | None:
    """The listed move equal to ``move`` (the one then played), or None.  Only a well-formed
    move is compared: equality takes ``Discard(True)`` for ``Discard(1)`` (a bool is an int)
    and ``Meld(9, 3.0)`` for ``Meld(9, 3)``."""
    if malformed(move) is None:
        for listed in legal:
            if listed == move:
                return listed
    return None


def _rebase(st: GameState, before: tuple[Any, ...] | None) -> None:
    """A hand was dealt by this move: the log starts again from this move's events, so that
    a long game holds one hand's events, not every hand's.  Whoever reads the events since
    the state before this move (walking back to it, or to the start) gets the same ones."""
    fresh: list[ev.Event] = []
    node = st.log
    while node is not None and node is not before:
        fresh.append(node[1])
        node = node[0]
    log: tuple[Any, ...] | None = None
    for i in range(len(fresh) - 1, -1, -1):
        log = (log, fresh[i])
    st.log = log


def _do(st: GameState, move: Move) -> None:
    """What ``apply`` does once the move is known to be legal: one rule per move type, the
    commonest first (a compiled build calls each directly)."""
    if isinstance(move, Discard):
        _discard(st, move)
    elif isinstance(move, Draw):
        _draw(st, move)
    elif isinstance(move, Meld):
        _meld(st, move)
    elif isinstance(move, Add):
        _add(st, move)
    elif isinstance(move, TakePile):
        _take(st, move)
    elif isinstance(move, Ask):
        _ask(st, move)
    elif isinstance(move, Answer):
        _answer(st, move)
    else:
        _end(st, move)


def _ask(st: GameState, move: Ask) -> None:
    st.asked = True
    st.phase = Phase.ANSWER
    st.actor = st.rules.partner_to_ask(st.turn_seat)
    _log(st, ev.Asked(st.turn_seat, st.actor))


def _answer(st: GameState, move: Answer) -> None:
    st.permission = move.yes
    st.phase = Phase.MELD
    _log(st, ev.Answered(st.actor, move.yes))
    st.actor = st.turn_seat


def _end(st: GameState, move: EndHand) -> None:
    reason = HandEnd.STOCK_EXHAUSTED if st.phase is Phase.DRAW else HandEnd.LAST_RED_THREE
    _end_hand(st, reason, None, False)


def check_sequence(state: GameState, moves: list[Move]) -> tuple[int, str] | None:
    """Can the player to act play ``moves`` one after the other, all of them?  None if so,
    else the index of the first move that cannot be played and why.  Nothing may follow a
    draw: what it brings is not known when the line is typed (checking further would tell)."""
    actor = state.actor
    for i, move in enumerate(moves):
        if i and isinstance(moves[i - 1], Draw):
            return i, "nothing can follow 'draw' in one line: the card drawn is not known yet"
        if state.is_over or state.actor != actor:
            return i, "your turn is over by then"
        if _equal_listed(legal_moves(state), move) is None:
            return i, _short_of_minimum(state, moves[i:]) or explain(state, move)
        state = apply(state, move)
    return None


def _short_of_minimum(state: GameState, rest: list[Move]) -> str | None:
    """A first meld's line refused because its melds fall short of the minimum, said with
    the line's total against the minimum (rather than why its first meld alone is refused)."""
    if state.side_open_at_start or not any(isinstance(m, Meld) for m in rest) \
            or any(isinstance(m, (TakePile, Add)) for m in rest):
        return None
    minimum = state.rules.initial_minimum(state.scores[state.rules.side_of(state.actor)])
    total = state.opening_total + sum(
        KIND_VALUE[m.rank] * m.naturals + KIND_VALUE[DEUCE] * m.deuces
        + KIND_VALUE[JOKER] * m.jokers for m in rest if isinstance(m, Meld))
    if total >= minimum:
        return None
    return (f"{SHORT_LINE} {total}, short of your side's minimum of {minimum} for its first"
            " melds this hand")


SHORT_LINE: Final = "the melds of this line total"  # how a line refused as a whole begins


# Internals -----------------------------------------------------------------------------------

def _log(st: GameState, event: ev.Event) -> None:
    st.log = (st.log, event)


def _set_hand(st: GameState, seat: int, hand: list[int] | tuple[int, ...]) -> None:
    cards = tuple(sorted(hand))
    _put_hand(st, seat, cards, kind_counts(cards))


def _put_hand(st: GameState, seat: int, hand: tuple[int, ...], counts: tuple[int, ...]) -> None:
    """Replace a seat's (sorted) hand and its kind counts.  Through lists: half the cost of
    rebuilding the tuples from slices, and it happens on most moves."""
    hands = list(st.hands)
    hands[seat] = hand
    st.hands = tuple(hands)
    hcs = list(st.hc)
    hcs[seat] = counts
    st.hc = tuple(hcs)


def _lay_red3(st: GameState, seat: int, card: int, source: str) -> None:
    side = st.rules.side_of(seat)
    red3 = list(st.red3)
    red3[side] = red3[side] + (card,)
    st.red3 = tuple(red3)
    _log(st, ev.RedThreeLaid(seat, card, source))


def _deal(st: GameState) -> None:
    rules = st.rules
    n = rules.players
    st.hand_no += 1
    st.dealer = (st.dealer + 1) % n
    idx = st.hand_no - st.first_hand
    deck = st.stacked[idx] if idx < len(st.stacked) else shuffled_deck(rules, st.seed, st.hand_no)
    st.minimums = tuple(rules.initial_minimum(s) for s in st.scores)
    _log(st, ev.HandStarted(st.hand_no, st.dealer, deck, st.minimums))
    dealt = rules.hand_size * n
    # One card at a time from the dealer's left: seat s gets every n-th card from its turn on.
    st.hands = tuple(tuple(sorted(deck[(s - st.dealer - 1) % n:dealt:n])) for s in range(n))
    st.hc = tuple(kind_counts(h) for h in st.hands)
    for seat in range(n):
        _log(st, ev.Dealt(seat, st.hands[seat]))
    stock = list(deck[dealt:])
    cover = (BLACK3, RED3, DEUCE, JOKER) if rules.upcard_cover == "any_three_or_wild" \
        else (RED3, DEUCE, JOKER)
    pile: list[int] = []
    frozen = False
    while stock:
        card = stock.pop(0)
        pile.append(card)
        _log(st, ev.UpcardTurned(card))
        kind = KIND_OF[card]
        if kind in (DEUCE, JOKER) or (kind == RED3 and rules.buried_red3_freezes) \
                or (kind == BLACK3 and rules.buried_black3_freezes):
            frozen = True
        if kind not in cover:
            break
    st.stock = tuple(stock)
    st.pile = tuple(pile)
    st.pile_frozen = frozen
    st.melds = tuple(EMPTY_MELDS for _ in range(rules.sides))
    st.minfo = (EMPTY_ROW_INFO,) * rules.sides
    st.team = tuple(rules.side_of(s) for s in range(n))
    st.lone = None
    st.red3 = tuple(() for _ in range(rules.sides))
    st.seat_melded = (False,) * n
    st.hand_turns = 0
    if rules.initial_red3_timing == "after_deal":
        for i in range(n):
            _replace_red3s(st, (st.dealer + 1 + i) % n, "deal")
    _start_turn(st, (st.dealer + 1) % n)


def _replace_red3s(st: GameState, seat: int, source: str) -> None:
    if not st.hc[seat][RED3]:
        return
    while True:
        reds = [c for c in st.hands[seat] if KIND_OF[c] == RED3]
        if not reds:
            return
        keep = [c for c in st.hands[seat] if KIND_OF[c] != RED3]
        for c in reds:
            _lay_red3(st, seat, c, source)
        for _ in reds:
            if not st.stock:
                break
            card = st.stock[0]
            st.stock = st.stock[1:]
            keep.append(card)
            _log(st, ev.Drew(seat, card, replacement=True))
        _set_hand(st, seat, keep)


_NO_CARDS: Final[frozenset[int]] = frozenset()


def _start_turn(st: GameState, seat: int) -> None:
    if st.turn_no >= st.rules.max_turns:
        _end_hand(st, HandEnd.TURN_LIMIT, None, False)
        return
    st.turn_seat = seat
    st.actor = seat
    st.phase = Phase.DRAW
    st.turn_no += 1
    st.hand_turns += 1
    st.side_open_at_start = st.minfo[st.team[seat]].melded
    st.seat_melded_at_start = st.seat_melded[seat]
    st.opening_total = 0
    st.took_pile = st.pile_pending = st.acted = st.asked = False
    st.foreign_add = st.committed_out = False
    st.from_pile = _NO_CARDS
    st.permission = None
    if st.hc[seat][RED3]:
        _replace_red3s(st, seat, "deal")


def _draw(st: GameState, move: Draw | None = None) -> None:
    seat = st.turn_seat
    stock = st.stock
    needed = st.rules.draw_count
    drawn: list[int] = []
    replacement = False
    last_red3 = False
    taken = 0
    while needed and taken < len(stock):
        card = stock[taken]
        taken += 1
        st.log = (st.log, ev.Drew(seat, card, replacement))
        if KIND_OF[card] == RED3:
            st.stock = stock[taken:]
            _lay_red3(st, seat, card, "stock")
            replacement = True
            last_red3 = taken == len(stock)
            continue
        drawn.append(card)
        needed -= 1
        replacement = False
    st.stock = stock[taken:]
    counts = list(st.hc[seat])
    for card in drawn:
        kind = KIND_OF[card]
        counts[kind] = counts[kind] + 1
    _put_hand(st, seat, tuple(sorted(st.hands[seat] + tuple(drawn))), tuple(counts))
    if last_red3:
        if st.rules.last_card_red3 == "end_now":
            _end_hand(st, HandEnd.LAST_RED_THREE, None, False)
            return
        st.phase = Phase.MELD_NO_DISCARD
        return
    st.phase = Phase.MELD


def _pick_one(st: GameState, seat: int, kind: int) -> int:
    """Remove one card of ``kind`` from the hand, the first in hand order that did not come
    from the pile if there is one."""
    hand = st.hands[seat]
    pile = st.from_pile
    i = 0
    if pile:
        first = -1
        for c in hand:
            if KIND_OF[c] == kind:
                if c not in pile:
                    break
                if first < 0:
                    first = i
            i += 1
        else:
            i = first
    else:
        for c in hand:
            if KIND_OF[c] == kind:
                break
            i += 1
    counts = list(st.hc[seat])
    counts[kind] = counts[kind] - 1
    _put_hand(st, seat, hand[:i] + hand[i + 1:], tuple(counts))
    return hand[i]


def _pick(st: GameState, seat: int, kind: int, count: int) -> list[int]:
    """Remove ``count`` cards of ``kind`` from the hand, preferring cards not from the pile."""
    return [_pick_one(st, seat, kind) for _ in range(count)]


def _pick_meld_cards(st: GameState, seat: int, rank: int, n: int, d: int, j: int) -> list[int]:
    if d == j == 0:
        return _pick(st, seat, rank, n)
    return _pick(st, seat, rank, n) + _pick(st, seat, DEUCE, d) + _pick(st, seat, JOKER, j)


def _put_meld(st: GameState, side: int, meld: MeldState) -> None:
    melds = list(st.melds)
    row = list(melds[side])
    row[meld.rank] = meld
    melds[side] = tuple(row)
    st.melds = tuple(melds)
    info = list(st.minfo)
    info[side] = with_meld(info[side], meld)
    st.minfo = tuple(info)


def _count_opening(st: GameState, cards: list[int]) -> None:
    if not st.side_open_at_start:
        st.opening_total += sum(VALUE_OF[c] for c in cards)


def _mark_melded(st: GameState, seat: int) -> None:
    st.acted = True
    if not st.seat_melded[seat]:
        melded = list(st.seat_melded)
        melded[seat] = True
        st.seat_melded = tuple(melded)


def _take(st: GameState, mv: TakePile) -> None:
    seat = st.turn_seat
    side = st.team[seat]
    top = st.pile[-1]
    rest = st.pile[:-1]
    picked = _pick_meld_cards(st, seat, mv.rank, mv.naturals, mv.deuces, mv.jokers)
    cards = [top, *picked]
    wilds = mv.deuces + mv.jokers
    existing = st.melds[side][mv.rank]
    if existing is None:
        meld = MeldState(mv.rank, tuple(cards), wilds, seat, st.turn_no,
                         concealed=len(cards) >= 7)
        _log(st, ev.Melded(seat, mv.rank, tuple(cards), meld.concealed))
    else:
        meld = MeldState(mv.rank, existing.cards + tuple(cards), existing.wilds + wilds,
                         existing.owner, existing.created_turn, existing.concealed)
        if existing.owner != seat:
            st.foreign_add = True
    _put_meld(st, side, meld)
    _count_opening(st, cards)
    _mark_melded(st, seat)
    st.took_pile = True
    st.pile = rest
    _log(st, ev.PileTaken(seat, top, tuple(picked)))
    if st.rules.cutthroat and st.lone is None:
        _form_partners(st, seat)
    minimum = st.rules.initial_minimum(st.scores[st.rules.side_of(seat)])
    if st.side_open_at_start or st.opening_total >= minimum:
        _pick_up(st, seat)
        st.phase = Phase.MELD
    else:
        st.pile_pending = True
        st.phase = Phase.PILE_OPENING
    _maybe_out(st)


def _pick_up(st: GameState, seat: int) -> None:
    rest = st.pile
    st.pile = ()
    st.pile_frozen = False
    st.pile_pending = False
    st.from_pile = frozenset(rest)
    _log(st, ev.PilePickedUp(seat, rest))
    keep = []
    for c in rest:
        if KIND_OF[c] == RED3:
            _lay_red3(st, seat, c, "pile")
        else:
            keep.append(c)
    _set_hand(st, seat, list(st.hands[seat]) + keep)


def _after_meld_action(st: GameState, seat: int) -> None:
    _mark_melded(st, seat)
    if st.pile_pending:
        side = st.rules.side_of(seat)  # the minimum goes by the player's side's own score
        if st.opening_total >= st.rules.initial_minimum(st.scores[side]):
            _pick_up(st, seat)
            st.phase = Phase.MELD
    _maybe_out(st)


def _meld(st: GameState, mv: Meld) -> None:
    seat = st.turn_seat
    side = st.team[seat]
    picked = _pick_meld_cards(st, seat, mv.rank, mv.naturals, mv.deuces, mv.jokers)
    concealed = (mv.rank != BLACK3 and len(picked) >= 7
                 and not any(c in st.from_pile for c in picked))
    meld = MeldState(mv.rank, tuple(picked), mv.deuces + mv.jokers, seat, st.turn_no, concealed)
    if mv.rank == BLACK3:
        st.committed_out = True
    _put_meld(st, side, meld)
    _count_opening(st, picked)
    _log(st, ev.Melded(seat, mv.rank, tuple(picked), concealed))
    _after_meld_action(st, seat)


def _add(st: GameState, mv: Add) -> None:
    seat = st.turn_seat
    side = st.team[seat]
    card = _pick_one(st, seat, mv.kind)
    old = st.melds[side][mv.rank]
    assert old is not None
    wild = 1 if mv.kind in (DEUCE, JOKER) else 0
    _put_meld(st, side, MeldState(old.rank, old.cards + (card,), old.wilds + wild, old.owner,
                                  old.created_turn, old.concealed))
    if old.owner != seat:
        st.foreign_add = True
    _count_opening(st, [card])
    _log(st, ev.Added(seat, mv.rank, card))
    _after_meld_action(st, seat)


def _discard(st: GameState, mv: Discard) -> None:
    seat = st.turn_seat
    kind = mv.kind
    card = _pick_one(st, seat, kind)
    st.pile += (card,)
    if kind >= DEUCE and (kind != BLACK3 or st.rules.black3_discard_freezes):
        st.pile_frozen = True  # a wild card (DEUCE, JOKER), or a black three by option
    st.log = (st.log, ev.Discarded(seat, card))
    if not st.hands[seat]:
        _go_out(st, seat)
        return
    _start_turn(st, (seat + 1) % st.rules.players)


def _maybe_out(st: GameState) -> None:
    seat = st.turn_seat
    if not st.hands[seat] and not st.pile_pending:
        _go_out(st, seat)


def _went_out_concealed(st: GameState, seat: int) -> bool:
    rules = st.rules
    if st.seat_melded_at_start or st.foreign_add:
        return False
    if st.took_pile and rules.concealed_forbids_pile:
        return False
    side = st.team[seat]
    return any(m is not None and m.owner == seat and m.created_turn == st.turn_no
               and m.is_canasta for m in st.melds[side])


def _go_out(st: GameState, seat: int) -> None:
    concealed = _went_out_concealed(st, seat)
    _log(st, ev.WentOut(seat, concealed))
    if st.rules.cutthroat and st.lone is None:
        _form_partners(st, seat)
    _end_hand(st, HandEnd.WENT_OUT, seat, concealed)


def _form_partners(st: GameState, lone: int) -> None:
    """Cut-throat (§14.2): ``lone`` plays alone; the other two now share one row of melds,
    the lower seat's, where a rank both had melded becomes one meld (the older one's owner
    and concealed status are kept, so a canasta laid whole stays concealed)."""
    a, b = (s for s in range(st.rules.players) if s != lone)
    row = list(st.melds[a])
    merged: list[int] = []
    for rank, other in enumerate(st.melds[b]):
        if other is None:
            continue
        mine = row[rank]
        if mine is None:
            row[rank] = other
            continue
        first, second = (mine, other) if mine.created_turn <= other.created_turn else (other, mine)
        row[rank] = MeldState(rank, first.cards + second.cards, first.wilds + second.wilds,
                              first.owner, first.created_turn, first.concealed or second.concealed)
        merged.append(rank)
    melds = list(st.melds)
    melds[a] = tuple(row)
    melds[b] = EMPTY_MELDS
    st.melds = tuple(melds)
    st.minfo = tuple(row_info(r) for r in melds)
    team = list(st.team)
    team[b] = a
    st.team = tuple(team)
    st.lone = lone
    _log(st, ev.PartnersFormed(lone, (a, b), tuple(merged)))


def _red3_count(st: GameState, side: int) -> int:
    """The side's red threes: those laid, and those its players still hold.  A red three is
    held only under ``initial_red3_timing=first_turn``, dealt to a player whose first turn
    never came (someone went out, or ``max_turns`` ended the game); when it is laid changes
    which stock cards are used, never the score (rules §4.4)."""
    rules = st.rules
    held = sum(st.hc[s][RED3] for s in range(rules.players) if rules.side_of(s) == side)
    return len(st.red3[side]) + held


def _end_hand(st: GameState, reason: HandEnd, out_seat: int | None, concealed: bool) -> None:
    rules = st.rules
    out_row = st.team[out_seat] if out_seat is not None else None
    sides = []
    for side in range(rules.sides):
        # Each side scores its row of melds and its players' hands; in cut-throat a side is a
        # player, and partners both score their shared row (red threes stay their own).
        row = st.team[side] if rules.cutthroat else side
        bonus = 0
        if row == out_row:
            bonus = rules.concealed_going_out_bonus if concealed else rules.going_out_bonus
        hands = [st.hands[s] for s in range(rules.players) if st.team[s] == row]
        sides.append(score_side(rules, side, st.melds[row], _red3_count(st, side), hands, bonus))
    result = HandResult(st.hand_no, reason, out_seat, concealed, tuple(sides))
    st.scores = tuple(a + b for a, b in zip(st.scores, result.totals, strict=True))
    st.results = st.results + (result,)
    _log(st, ev.HandEnded(st.hand_no, reason, st.hands, result, st.scores))
    best = max(st.scores)
    leaders = [i for i, s in enumerate(st.scores) if s == best]
    over = game_over_reason(rules, st.scores)
    if over is None and st.hand_no - st.first_hand + 1 >= rules.max_hands:
        over = GameEnd.HAND_LIMIT
    if over is None and reason == HandEnd.TURN_LIMIT:
        over = GameEnd.TURN_LIMIT
    if over is not None:
        st.winner = leaders[0] if len(leaders) == 1 else None
        st.game_end_reason = over
        st.phase = Phase.GAME_OVER
        st.actor = -1
        _log(st, ev.GameEnded(st.winner, over, st.scores))
        return
    _deal(st)
