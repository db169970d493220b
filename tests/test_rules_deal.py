"""Rules reference §1-§4: the pack, card values, seating, the shape of a game and the deal."""

from __future__ import annotations

import pytest
from helpers import hand_text, legal_texts, play, setup

from canasta_cli.core import CLASSIC, PRESETS, Ruleset, new_game, parse_card_sequence
from canasta_cli.core.cards import (
    BLACK3,
    DEUCE,
    JOKER,
    KIND_OF,
    RED3,
    VALUE_OF,
    cards_value,
    full_deck,
)
from canasta_cli.core.events import Drew, RedThreeLaid, UpcardTurned


def test_s1_1_pack_has_108_cards_two_decks_and_four_jokers() -> None:
    deck = full_deck(CLASSIC.decks)
    kinds = [KIND_OF[c] for c in deck]
    assert len(deck) == 108
    assert all(kinds.count(r) == 8 for r in range(11))
    assert kinds.count(DEUCE) == 8 and kinds.count(JOKER) == 4
    assert kinds.count(RED3) == 4 and kinds.count(BLACK3) == 4


def test_s14_3_six_player_pack_has_162_cards() -> None:
    deck = full_deck(PRESETS["six-player"].decks)
    kinds = [KIND_OF[c] for c in deck]
    assert len(deck) == 162 and kinds.count(JOKER) == 6 and kinds.count(RED3) == 6
    assert kinds.count(10) == 12


@pytest.mark.parametrize(("card", "value"), [
    ("Jo", 50), ("2c", 20), ("Ah", 20), ("Ks", 10), ("10d", 10), ("8c", 10), ("7h", 5),
    ("4s", 5), ("3c", 5), ("3s", 5), ("3h", 0), ("3d", 0),
])
def test_s1_2_point_values_black_three_five_red_three_no_card_value(card: str, value: int) -> None:
    (cid,) = parse_card_sequence([card], 2)
    assert VALUE_OF[cid] == value


def test_s1_2_seed_table_swap_corrected_red_three_is_the_100_bonus() -> None:
    assert CLASSIC.red_three_points(1, True) == 100
    assert CLASSIC.red_three_points(4, True) == 800
    assert cards_value(parse_card_sequence(["3s", "3c"], 2)) == 10


def test_s2_partnerships_opposite_and_play_clockwise() -> None:
    assert [CLASSIC.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    st = setup(seat0="Kh Kd 7h 7d 9h 9d 5c 6c 8c 10c Qd", stock="8h 4s 4d 4c")
    assert st.turn_seat == 0
    st = play(st, "draw", "discard 4")
    assert st.turn_seat == 1 and st.phase.value == "draw"


def test_s2_first_player_is_left_of_dealer_and_deal_rotates() -> None:
    st = new_game(CLASSIC, seed=5, dealer=2)
    assert st.dealer == 2 and st.turn_seat == 3
    # Finish the hand quickly by random play and check the next dealer.
    import random

    from canasta_cli.core import apply, legal_moves
    rng = random.Random(1)
    while st.hand_no == 1:
        st = apply(st, rng.choice(legal_moves(st)))
    if not st.is_over:
        assert st.dealer == 3 and st.turn_seat == 0


def test_s3_game_ends_when_a_side_reaches_target_and_higher_total_wins() -> None:
    import random

    from canasta_cli.core import apply, legal_moves
    rules = CLASSIC.with_options(target=1500)
    st = new_game(rules, seed=11)
    rng = random.Random(11)
    while not st.is_over:
        assert max(st.scores) < 1500 or st.is_over
        st = apply(st, rng.choice(legal_moves(st)))
    assert max(st.scores) >= 1500
    assert st.winner == st.scores.index(max(st.scores))
    assert sum(r.totals[0] for r in st.results) == st.scores[0]


def test_s4_2_deal_one_card_at_a_time_clockwise_from_dealers_left() -> None:
    order = list(range(108))
    # Avoid threes and wild cards at the top of the stock: the upcard is card 44.
    st = new_game(CLASSIC, seed=0, decks=[order], dealer=1)
    # Seat 2 (dealer's left) gets cards 0, 4, 8...; red threes are then replaced, so compare
    # only the cards that are not red threes.
    for k, seat in enumerate((2, 3, 0, 1)):
        expected = {c for c in order[k:44:4] if KIND_OF[c] != RED3}
        assert expected <= set(st.hands[seat])


def test_s4_3_stock_holds_the_rest_after_the_upcard() -> None:
    st = setup(stock="8h")
    assert len(st.pile) == 1 and len(st.stock) == 108 - 44 - 1


def test_s4_4_upcards_covered_while_three_or_wild_seed_default() -> None:
    st = setup(stock="3s 2c 3h 9d")
    assert [e.card for e in st.events() if isinstance(e, UpcardTurned)] == list(st.pile)
    assert [KIND_OF[c] for c in st.pile] == [BLACK3, DEUCE, RED3, 5]


def test_s4_4_upcard_cover_option_leaves_a_black_three_on_top() -> None:
    rules = CLASSIC.with_options(upcard_cover="red_three_or_wild")
    st = setup(rules, stock="Jo 3c 9d")
    assert [KIND_OF[c] for c in st.pile] == [JOKER, BLACK3]
    assert st.pile_frozen  # the joker freezes it
    assert legal_texts(st) == ["draw"]  # and the black three on top stops the first player


def test_s4_5_wild_upcard_freezes_the_pile() -> None:
    assert setup(stock="2d 9d").pile_frozen
    assert not setup(stock="9d").pile_frozen


def test_s4_5_buried_red_three_freezes_by_default_and_option_turns_it_off() -> None:
    assert setup(stock="3h 9d").pile_frozen
    rules = CLASSIC.with_options(buried_red3_freezes=False)
    assert not setup(rules, stock="3h 9d").pile_frozen


def test_s4_5_buried_black_three_does_not_freeze_by_default() -> None:
    assert not setup(stock="3s 9d").pile_frozen
    rules = CLASSIC.with_options(buried_black3_freezes=True)
    assert setup(rules, stock="3s 9d").pile_frozen


def test_s4_6_red_threes_dealt_are_laid_and_replaced_in_turn_order() -> None:
    st = setup(seat0="3h 3d Kh Kd 7h 7d 9h 9d 5c 6c 8c", seat2="3c 3s Ks Kc 7s 7c 9s 9c 5s 6s 8s",
               stock="8h Qc Qd")
    assert [KIND_OF[c] for c in st.red3[0]] == [RED3, RED3]
    assert "Qc" in hand_text(st, 0) and "Qd" in hand_text(st, 0)
    assert len(st.hands[0]) == 11
    laid = [e for e in st.events() if isinstance(e, RedThreeLaid)]
    assert [e.seat for e in laid] == [0, 0] and {e.source for e in laid} == {"deal"}
    drew = [e for e in st.events() if isinstance(e, Drew)]
    assert all(e.replacement for e in drew)


def test_s4_6_replacement_that_is_a_red_three_is_replaced_too() -> None:
    st = setup(seat0="3h Kh Kd 7h 7d 9h 9d 5c 6c 8c 10c", stock="8h 3d Qc")
    assert len(st.red3[0]) == 2 and "Qc" in hand_text(st, 0)


def test_s4_6_first_turn_timing_option_lays_red_threes_at_the_players_turn() -> None:
    rules = CLASSIC.with_options(initial_red3_timing="first_turn")
    st = setup(rules, seat1="3h Kh Kd 7h 7d 9h 9d 5c 6c 8c 10c", stock="8h 4s Qc Qd")
    assert st.red3[1] == ()
    assert any(KIND_OF[c] == RED3 for c in st.hands[1])
    st = play(st, "draw", "discard 4")
    assert len(st.red3[1]) == 1 and all(KIND_OF[c] != RED3 for c in st.hands[1])


@pytest.mark.parametrize("timing", ["after_deal", "first_turn"])
def test_s4_6_red_threes_score_the_same_whenever_they_are_laid(timing: str) -> None:
    """Seat 0 goes out on the first turn, before seats 1 and 2 have played: with first_turn
    timing their dealt red threes are still in hand, and score all the same (§4.4, §9): +100
    for seat 2's side, which melded, -100 for seat 1's, which did not."""
    rules = CLASSIC.with_options(initial_red3_timing=timing, max_hands=1)
    st = setup(rules, seat0="Kh Kd Ks Kc Kh Kd Ks Qh Qd Qs Qc", seat1="3h", seat2="3d",
               stock="9c 5h 5c 5d")
    held = sum(KIND_OF[c] == RED3 for h in st.hands for c in h)
    assert held == (2 if timing == "first_turn" else 0)
    st = play(st, "draw", "meld K K K K K K K", "meld Q Q Q Q", "discard 5")
    (result,) = st.results
    assert result.reason == "went_out" and result.went_out == 0
    ours, theirs = result.sides
    assert (ours.red_threes, ours.red_three_points) == (1, 100)
    assert (theirs.red_threes, theirs.red_three_points) == (1, -100)
    assert theirs.total == theirs.hand_penalty - 100


def test_s4_7_red_three_in_the_upcards_goes_to_whoever_takes_the_pile_without_replacement() -> None:
    st = setup(seat0="9h 9c Kh Kd Ks 7h 7d 7c 5c 6c 8c", stock="3h 9d 4s")
    stock_before = len(st.stock)
    # Frozen by the buried red three: a natural pair of 9s is needed, and 9+9+9 K K K = 60.
    st = play(st, "pile 9 9", "meld K K K")
    assert len(st.red3[0]) == 1
    assert len(st.stock) == stock_before
    assert all(KIND_OF[c] != RED3 for c in st.hands[0])


def test_hand_sizes_per_preset() -> None:
    for name, size in (("two-player", 15), ("three-player", 13), ("six-player", 13)):
        rules = PRESETS[name]
        st = new_game(rules, seed=3)
        assert rules.hand_size == size
        assert all(len(h) == size for h in st.hands)


def test_six_player_seating_alternates_sides() -> None:
    rules: Ruleset = PRESETS["six-player"]
    assert [rules.side_of(s) for s in range(6)] == [0, 1, 0, 1, 0, 1]
    assert rules.partner_to_ask(1) == 3
