"""The meld-phase move list against an exhaustive search (see ``oracle.py``): the engine
lists no move that leads into a dead end and omits none that does not."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_
from oracle import _check

from canasta_cli.core import PRESETS, apply, legal_moves, new_game
from canasta_cli.core.cards import BLACK3, DEUCE, JOKER


@pytest.mark.parametrize("name", list(PRESETS))
@settings(max_examples=15, deadline=None)
@given(seed=st_.integers(0, 10**9))
def test_meld_moves_match_exhaustive_search(name: str, seed: int) -> None:
    rules = PRESETS[name].with_options(max_hands=1)
    st = new_game(rules, seed=seed)
    rng = random.Random(seed)
    while not st.is_over:
        _check(st)
        st = apply(st, rng.choice(legal_moves(st)))


@pytest.mark.parametrize("option", [{"last_card_red3": "meld_no_discard"},
                                    {"concealed_waives_minimum": False},
                                    {"wild_le_natural": False, "canastas_to_go_out": 2}])
def test_meld_moves_match_exhaustive_search_under_options(option: dict[str, object]) -> None:
    rules = PRESETS["classic"].with_options(max_hands=1, **option)
    for seed in range(25):
        st = new_game(rules, seed=seed)
        rng = random.Random(seed)
        while not st.is_over:
            _check(st)
            st = apply(st, rng.choice(legal_moves(st)))


@settings(max_examples=400, deadline=None)
@given(data=st_.data())
def test_meld_moves_match_exhaustive_search_on_dense_hands(data: st_.DataObject) -> None:
    """Hands rich in pairs and wild cards, small to large, where the limits bind."""
    from canasta_cli.core import CLASSIC, new_game
    from canasta_cli.core.cards import KIND_OF, RED3, full_deck
    size = data.draw(st_.integers(2, 14), label="hand size")
    c4 = data.draw(st_.booleans(), label="wild_le_natural")
    rules = CLASSIC.with_options(hand_size=size, wild_le_natural=c4, max_hands=1)
    ranks = data.draw(st_.lists(st_.sampled_from([0, 1, 5, 9, 10]), min_size=1, max_size=3,
                                unique=True), label="ranks")
    pool = [c for c in full_deck(2) if KIND_OF[c] in (*ranks, DEUCE, JOKER, BLACK3)]
    hand = data.draw(st_.lists(st_.sampled_from(pool), min_size=size, max_size=size,
                               unique=True), label="hand")
    rest = [c for c in full_deck(2) if c not in hand and KIND_OF[c] != RED3
            and KIND_OF[c] <= 10]
    rest_all = [c for c in full_deck(2) if c not in hand and c not in rest]
    # Seat 0 (dealer 3 deals it first) gets ``hand``; its draw is another card of its ranks.
    draw_pool = [c for c in rest if KIND_OF[c] in ranks] or rest
    drawn = data.draw(st_.sampled_from(draw_pool), label="draw")
    others = [c for c in rest if c != drawn]
    # The upcard: often of the hand's ranks so that the pile can be taken, sometimes over a
    # buried black three so that one card waits in the pile during an opening by the pile.
    upcard = others.pop(others.index(drawn_twin)) if (drawn_twin := next(
        (c for c in others if KIND_OF[c] == KIND_OF[drawn]), None)) is not None and \
        data.draw(st_.booleans(), label="takeable upcard") else others.pop()
    buried = [c for c in rest_all if KIND_OF[c] == BLACK3][:1] \
        if data.draw(st_.booleans(), label="buried three") else []
    rest_all = [c for c in rest_all if c not in buried]
    order: list[int] = []
    hands = [hand, others[:size], others[size:2 * size], others[2 * size:3 * size]]
    leftover = others[3 * size:]
    for i in range(size):
        for seat in range(4):
            order.append(hands[seat][i])
    order += [*buried, upcard, drawn] + leftover + rest_all
    st = new_game(rules, seed=0, decks=[order], dealer=3)
    rng = random.Random(size)
    moves = legal_moves(st)
    st = apply(st, data.draw(st_.sampled_from(moves), label="draw or take"))
    while st.turn_seat == 0 and not st.is_over:
        _check(st)
        st = apply(st, rng.choice(legal_moves(st)))


@settings(max_examples=300, deadline=None)
@given(data=st_.data())
def test_meld_moves_match_exhaustive_search_when_opening_by_the_pile(
        data: st_.DataObject) -> None:
    """Hands built around the upcard's rank, the pile taken at once, sometimes with one card
    (a buried black three) waiting in the pile until the minimum is met."""
    from hypothesis import assume

    from canasta_cli.core import CLASSIC, TakePile, new_game
    from canasta_cli.core.cards import KIND_OF, full_deck
    size = data.draw(st_.integers(3, 12), label="hand size")
    rules = CLASSIC.with_options(hand_size=size, max_hands=1)
    top_rank = data.draw(st_.sampled_from([0, 1, 9, 10]), label="upcard rank")
    others = data.draw(st_.lists(st_.sampled_from([2, 5, 8]), max_size=2, unique=True),
                       label="other ranks")
    deck = list(full_deck(2))
    tops = [c for c in deck if KIND_OF[c] == top_rank]
    upcard = tops.pop()
    pool = tops + [c for c in deck if KIND_OF[c] in (*others, DEUCE, JOKER, BLACK3)]
    hand = data.draw(st_.lists(st_.sampled_from(pool), min_size=size, max_size=size,
                               unique=True), label="hand")
    used = {*hand, upcard}
    filler = [c for c in deck if c not in used and KIND_OF[c] <= 10 and KIND_OF[c] != top_rank]
    threes = [c for c in deck if c not in used and KIND_OF[c] == BLACK3]
    buried = threes[:1] if data.draw(st_.booleans(), label="buried three") else []
    rest = [c for c in deck if c not in used and c not in filler and c not in buried]
    order: list[int] = []
    hands = [hand, filler[:size], filler[size:2 * size], filler[2 * size:3 * size]]
    for i in range(size):
        for seat in range(4):
            order.append(hands[seat][i])
    order += [*buried, upcard] + filler[3 * size:] + rest
    st = new_game(rules, seed=0, decks=[order], dealer=3)
    takes = [m for m in legal_moves(st) if isinstance(m, TakePile)]
    assume(takes)
    st = apply(st, data.draw(st_.sampled_from(takes), label="take"))
    rng = random.Random(size)
    while st.turn_seat == 0 and not st.is_over:
        _check(st)
        st = apply(st, rng.choice(legal_moves(st)))
