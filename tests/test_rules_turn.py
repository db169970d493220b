"""Rules reference §6-§8: the turn, the initial meld, the discard pile."""

from __future__ import annotations

import pytest
from helpers import hand_text, legal_texts, mv, play, setup

from canasta_cli.core import CLASSIC, PRESETS, GameState, IllegalMoveError, Ruleset, apply
from canasta_cli.core.cards import KIND_OF

# Nine cards of nine ranks each, nothing meldable; the four sets share no card.
JUNK = "4c 5d 6h 7s 8c 9d 10h Js Qc"
JUNK_B = "4d 5h 6s 7c 8d 9h 10s Jc Qd"
JUNK_C = "4h 5s 6c 7d 8h 9s 10c Jd Qh"


def test_s6_draw_is_compulsory_before_melding() -> None:
    st = setup(seat0=f"Ah Ad {JUNK}", stock="Kh 4s")
    with pytest.raises(IllegalMoveError, match="first draw"):
        apply(st, mv(st, "discard 4"))
    assert "end" not in legal_texts(st)  # no passing while the stock lasts


def test_s6_1a_draw_takes_one_card_and_two_in_the_two_player_game() -> None:
    st = play(setup(stock="Kh 4s 5s"), "draw")
    assert len(st.hands[0]) == 12
    st2 = play(setup(PRESETS["two-player"], stock="Kh 4s 5s"), "draw")
    assert len(st2.hands[0]) == 17


def test_s6_1a_red_three_drawn_is_laid_and_replaced() -> None:
    st = play(setup(seat0=f"Ah Ad {JUNK}", stock="Kh 3h Qc"), "draw")
    assert len(st.red3[0]) == 1 and "Qc" in hand_text(st, 0) and len(st.hands[0]) == 12


def test_s6_2_hand_emptying_limit_keeps_two_cards_without_a_canasta() -> None:
    rules = CLASSIC.with_options(hand_size=5)
    st = play(setup(rules, seat0="Ah Ad Ac 9h 9d", stock="Kh 9c"), "draw", "meld A A A")
    # Melding the 9s would leave no card: going out needs a canasta.
    assert "meld 9 9 9" not in legal_texts(st)
    with pytest.raises(IllegalMoveError, match="keep at least two cards"):
        apply(st, mv(st, "meld 9 9 9"))


def test_s6_3_discard_ends_the_turn_and_a_wild_discard_freezes_the_pile() -> None:
    st = play(setup(seat0=f"2c Ad {JUNK}", stock="Kh 4s"), "draw", "discard 2")
    assert st.pile_frozen and KIND_OF[st.pile[-1]] == 11 and st.turn_seat == 1


def test_s6_3_black_three_discard_stops_only_the_next_player() -> None:
    st = setup(seat0=f"3s Ad {JUNK}", seat1=f"Kh Kc {JUNK_B}", seat2=f"Ks Kd {JUNK_C}",
               stock="Kh 4s 4d 5c")
    st = play(st, "draw", "discard 3")
    assert not st.pile_frozen
    assert not any(t.startswith("pile") for t in legal_texts(st))
    st = play(st, "draw", "discard 9")  # seat 1 covers it: the three no longer matters
    assert KIND_OF[st.pile[-1]] == 5 and not st.pile_frozen


def test_s6_3_black_three_discard_freezes_under_its_option() -> None:
    rules = CLASSIC.with_options(black3_discard_freezes=True)
    st = play(setup(rules, seat0=f"3s Ad {JUNK}", stock="9h 4s"), "draw", "discard 3")
    assert st.pile_frozen


@pytest.mark.parametrize(("score", "minimum"), [
    (-5, 15), (0, 50), (1495, 50), (1500, 90), (2995, 90), (3000, 120), (9000, 120)])
def test_s7_1_minimum_by_cumulative_score(score: int, minimum: int) -> None:
    assert CLASSIC.initial_minimum(score) == minimum


def test_s7_1_six_player_minimum_150_from_7500_and_its_option() -> None:
    six = PRESETS["six-player"]
    assert six.initial_minimum(7495) == 120 and six.initial_minimum(7500) == 150
    assert six.with_options(six_player_150_threshold=7000).initial_minimum(7000) == 150


def test_s7_2_minimum_applies_only_to_the_sides_first_melds() -> None:
    st = setup(seat0="Ah Ad Ac 4c 5d 6h 7s 8c 9d 10h Js", seat1=f"Kc Qs {JUNK_B}",
               seat2="6h 6d 6c 4h 5s 7d 8h 9s 10c Jd Qh", stock="Kh 4s 4d 4h 4c")
    st = play(st, "draw", "meld A A A", "discard 4", "draw", "discard 4", "draw")
    assert "meld 6 6 6" in legal_texts(st)  # 30 points: fine once the side has melded
    st = play(st, "meld 6 6 6")
    assert "discard 4" in legal_texts(st)


def test_s7_3_below_minimum_cannot_start_or_end_the_turn() -> None:
    st = play(setup(seat0="Kh Kd Kc 5h 5d 5c 4c 6h 7s 8c 9d", stock="Jh 4s"), "draw")
    assert not any(t.startswith("meld") for t in legal_texts(st))  # 45 < 50
    with pytest.raises(IllegalMoveError, match="minimum"):
        apply(st, mv(st, "meld K K K"))


def test_s7_3_several_melds_combine_and_wild_cards_count_at_their_value() -> None:
    st = play(setup(seat0="Kh Kd Kc 5h 5d 2c 4c 6h 7s 8c 9d", stock="Jh 4s"), "draw")
    assert "meld K K K" in legal_texts(st)  # 30 + 5 5 2 (30) = 60
    st = play(st, "meld K K K")
    with pytest.raises(IllegalMoveError, match="below your side's minimum of 50"):
        apply(st, mv(st, "discard 4"))
    st = play(st, "meld 5 5 2", "discard 4")
    assert st.side_has_melded(0)


def test_s7_3_opening_by_the_pile_counts_top_card_and_hand_only() -> None:
    # The pile holds a buried joker (not counted) under the 9 on top.
    st = setup(seat0="9h 9c 4c 5d 6h 7s 8c 10h Js Qc 8d", stock="Jo 9d 4s")
    assert not any(t.startswith("pile") for t in legal_texts(st))  # 27 + 0: the joker can't help
    st2 = setup(seat0="9h 9c Kh Kd Kc 5d 6h 7s 8c 10h Js", stock="Jo 9d 4s")
    assert "pile 9 9" in legal_texts(st2)  # 9 9 9 (30) + K K K (30) from the hand
    st2 = play(st2, "pile 9 9")
    assert st2.phase.value == "pile_opening"
    with pytest.raises(IllegalMoveError, match="before you pick up the pile"):
        apply(st2, mv(st2, "discard 5"))
    st2 = play(st2, "meld K K K")
    assert st2.phase.value == "meld" and "Jo" in hand_text(st2, 0)


def test_s7_5_going_out_concealed_waives_the_minimum_by_default() -> None:
    rules = CLASSIC.with_options(hand_size=7)
    st = play(setup(rules, seat0="4h 4d 4c 4s 4h 4d 4c", stock="Kh 5c"), "draw")
    assert "meld 4 4 4 4 4 4 4" in legal_texts(st)  # 35 < 50, but it goes out concealed
    st = play(st, "meld 4 4 4 4 4 4 4", "discard 5")
    res = st.results[0]
    assert res.went_out == 0 and res.concealed
    strict = CLASSIC.with_options(hand_size=7, concealed_waives_minimum=False)
    st = play(setup(strict, seat0="4h 4d 4c 4s 4h 4d 4c", stock="Kh 5c"), "draw")
    assert "meld 4 4 4 4 4 4 4" not in legal_texts(st)


def test_s8_2_frozen_against_a_side_that_has_not_melded_needs_a_natural_pair() -> None:
    st = setup(seat0="9h 2c Ah Ad Ac 4c 5d 6h 7s 8c 10h", stock="9d 4s")
    assert not any(t.startswith("pile") for t in legal_texts(st))
    with pytest.raises(IllegalMoveError, match="natural pair"):
        apply(st, mv(st, "pile 9 2"))


def _frozen_by_a_two(seat2: str) -> GameState:
    st = setup(seat0="Ah Ad Ac 9h 2c 4c 5d 6h 7s 8c 10h", seat1=f"As Kc {JUNK_B}",
               seat2=seat2, stock="Jh 4s 4d")
    # Side 0 melds aces and freezes the pile with a 2; seat 1 discards an ace on it.
    return play(st, "draw", "meld A A A", "discard 2", "draw", "discard A")


def test_s8_2_wild_in_the_pile_freezes_it_even_for_a_side_that_has_melded() -> None:
    st = _frozen_by_a_two(f"Kd Ks {JUNK_C}")
    assert st.turn_seat == 2 and st.pile_frozen and st.melds[0][10] is not None
    assert legal_texts(st) == ["draw"]  # no route (c) onto the aces while frozen
    st = _frozen_by_a_two(f"Ah Ad {JUNK_C}")
    assert "pile A A" in legal_texts(st)  # a natural pair still takes it


def test_s8_3_wild_card_on_top_can_never_be_taken() -> None:
    st = play(setup(seat0=f"Jo Ad {JUNK}", seat1="2h 2d Kh Kd Kc 4d 5h 6s 7c 8d 9h",
                    stock="9h 4s"), "draw", "discard Jo")
    assert legal_texts(st) == ["draw"]


def test_s8_4b_unfrozen_take_with_one_natural_and_a_wild_card() -> None:
    st = setup(seat0="Ah Ad Ac Qh 2c 4c 5d 6h 7s 8c 10h", seat3=f"Qd Ks {JUNK_B}",
               stock="Kh 4s 4d 4h 4c")
    st = play(st, "draw", "meld A A A", "discard 4", "draw", "discard 4", "draw", "discard 4",
              "draw", "discard Q")
    assert st.turn_seat == 0 and not st.pile_frozen
    assert "pile Q 2" in legal_texts(st)
    st = play(st, "pile Q 2")
    assert st.melds[0][8] is not None and st.melds[0][8].size == 3


def test_s8_4c_unfrozen_take_onto_an_existing_meld_even_a_canasta() -> None:
    st = setup(seat0="Ah Ad Ac Kh Kd Kc Ks Kh Kd Kc 4c", seat1=f"Ks Qs {JUNK_B}",
               stock="Jh 4s 4d")
    st = play(st, "draw", "meld A A A", "meld K K K K K K K", "discard 4", "draw", "discard K")
    assert st.turn_seat == 2 and "pile" in legal_texts(st)
    st = play(st, "pile")
    assert st.melds[0][9] is not None and st.melds[0][9].size == 8


def test_s8_4_existing_meld_with_three_wilds_refuses_one_natural_and_a_wild() -> None:
    st = setup(seat0="Ah Ad Ac 6h 6d 6c 2c 2d 2h 4c 5d", seat1=f"6s Ks {JUNK_B}",
               seat2=f"6h 2s {JUNK_C}", stock="Jh 4s 4d")
    st = play(st, "draw", "meld A A A", "meld 6 6 6 2 2 2", "discard 4", "draw", "discard 6")
    texts = legal_texts(st)  # seat 2, partner: route (c) only
    assert "pile" in texts and not any(t.startswith("pile 6") for t in texts)
    with pytest.raises(IllegalMoveError, match="already has a 6 meld"):
        apply(st, mv(st, "pile 6 2"))


def _one_card_scenario(rules: Ruleset) -> GameState:
    st = setup(rules,
               seat0="Ah Ad Ac Kh Kd Kc Ks Kh Kd Kc 9h",
               seat1="4c 5d 6h 7s 8c 9d 10h Js Qc 4d 5h",
               seat2="As 4s 5s 6s 7c 8d 9s 10c Jd Qh 4h",
               seat3="Ah Ad Ac 5c 6d 7h 8s 9c 10s Jh Qs",
               stock="5h 6c 7d 8h")
    return play(st, "draw", "meld A A A", "meld K K K K K K K", "discard 6",
                "draw", "discard 7", "draw", "discard A", "pile A A", "discard A")


def test_s8_4_one_card_rule_forbids_a_one_card_hand_taking_a_one_card_pile() -> None:
    st = _one_card_scenario(CLASSIC)
    assert st.turn_seat == 0 and len(st.hands[0]) == 1 and len(st.pile) == 1
    assert legal_texts(st) == ["draw"]
    with pytest.raises(IllegalMoveError, match="one card in hand"):
        apply(st, mv(st, "pile"))
    relaxed = _one_card_scenario(CLASSIC.with_options(one_card_pile_rule=False))
    assert "pile" in legal_texts(relaxed)
    out = play(relaxed, "pile", "discard 9")
    assert out.results[0].went_out == 0


def test_s8_5_former_top_card_is_melded_other_pile_cards_may_be_discarded() -> None:
    st = setup(seat0="Ah Ad Ac Qh Qd 4c 5d 6h 7s 8c 10h", seat1=f"Qs Kh {JUNK_B}",
               seat3=f"Qc Kc {JUNK_C}", stock="Jh 4s 4d 4h 4c")
    st = play(st, "draw", "meld A A A", "discard 4", "draw", "discard K",
              "draw", "discard 4", "draw", "discard Q")
    st = play(st, "pile Q Q")
    assert st.pile == () and not st.pile_frozen
    assert "discard K" in legal_texts(st)  # the king came from the pile
    assert "discard J" in legal_texts(st)  # and so did the upcard


def test_s7_3_opening_by_the_pile_may_go_out_after_picking_up_a_one_card_rest() -> None:
    """Seven 4s (35) are a canasta below the minimum; three queens from the hand reach it and
    empty the hand; the one card left in the pile (a black three) is then discarded to go out."""
    rules = CLASSIC.with_options(hand_size=9)
    st = setup(rules, seat0="4c 4d 4s 4c 4d 4s Qh Qd Qc", stock="3s 4h 9c")
    assert "pile 4 4 4 4 4 4" in legal_texts(st)
    st = play(st, "pile 4 4 4 4 4 4")
    assert st.phase.value == "pile_opening"
    assert legal_texts(st) == ["meld Q Q Q"]
    st = play(st, "meld Q Q Q")
    assert legal_texts(st) == ["discard 3"]
    st = play(st, "discard 3")
    res = st.results[0]
    assert res.went_out == 0 and not res.concealed  # the pile was taken
