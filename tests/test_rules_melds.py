"""Rules reference §5: meld composition, one meld per rank, permanence, canastas, concealed."""

from __future__ import annotations

import pytest
from helpers import legal_texts, mv, play, setup

from canasta_cli.core import PRESETS, GameState, IllegalMoveError, Ruleset, apply
from canasta_cli.core.cards import KIND_OF

# Seat 0 holds three aces (60): any other legal meld can follow them.
RICH = "Ah Ad Ac"


def rich(hand: str, rules: Ruleset = PRESETS["classic"], stock: str = "8h 4s 4d 4c") -> GameState:
    return play(setup(rules, seat0=f"{RICH} {hand}", stock=stock), "draw")


def test_s5_1_meld_of_one_rank_with_wild_cards() -> None:
    st = rich("5h 5d 2c 9h 9d 9c Jo 6c")
    assert "meld 5 5 2" in legal_texts(st)
    st = play(st, "meld 5 5 2")
    meld = st.melds[0][1]
    assert meld is not None and meld.naturals == 2 and meld.wilds == 1


def test_s5_1_no_meld_of_wild_cards_only_and_no_sequences() -> None:
    with pytest.raises(ValueError):
        mv(rich("2c 2d Jo 9h 9d 9c 6c 7c"), "meld 2 2 Jo")


def test_s5_1_red_threes_are_never_melded() -> None:
    with pytest.raises(IllegalMoveError, match="red threes are laid face up"):
        apply(rich("9h 9d 9c 6c 7c 8c 10c 5c"), "meld 3h 3d 3h")


def test_s5_1_black_threes_only_as_a_going_out_set() -> None:
    st = rich("3s 3c 3s 9h 9d 9c 6c 7c")
    assert "meld 3 3 3" not in legal_texts(st)  # no canasta: cannot go out
    with pytest.raises(IllegalMoveError, match="only when you go out"):
        apply(st, mv(st, "meld 3 3 3"))


@pytest.mark.parametrize(("meld", "legal"), [
    ("meld 5 5 2", True),              # C1-C4 hold
    ("meld 9 9 9 2 2 Jo", True),       # six cards, three wild
    ("meld 5 2 2", False),             # C2: two naturals needed
    ("meld 9 9 2 2 2 Jo", False),      # C3 and C4
    ("meld 9 9 2 2 Jo", False),        # only C4 forbids it
])
def test_s5_2_composition_limits_seed_default(meld: str, legal: bool) -> None:
    st = rich("5h 5d 9h 9d 9c 2c 2d 2h")
    st2 = rich("5h 5d 9h 9d 9c 2c 2d Jo")
    listed = meld in legal_texts(st) or meld in legal_texts(st2)
    assert listed is legal


def test_s5_2_c4_off_allows_two_naturals_three_wilds() -> None:
    st = rich("9h 9d 2c 2d Jo 6c 7c 8c", rules=PRESETS["pagat"])
    assert "meld 9 9 2 2 Jo" in legal_texts(st)
    st = rich("9h 9d 2c 2d Jo 2h 7c 8c", rules=PRESETS["pagat"])
    assert "meld 9 9 2 2 2 Jo" not in legal_texts(st)  # C3 still holds


def test_s5_2_wild_limit_applies_after_every_addition() -> None:
    st = rich("9h 9d 9c 2c 2d 2h Jo 6c")
    st = play(st, "meld 9 9 9 2 2 2")
    assert not any(t.startswith("add 9") for t in legal_texts(st))
    with pytest.raises(IllegalMoveError, match="at most 3 wild"):
        apply(st, mv(st, "add 9 Jo"))


def test_s5_2_c4_limits_additions_to_a_small_meld() -> None:
    st = rich("9h 9d 2c 2d 2h 7c 8c 10c")
    st = play(st, "meld 9 9 2")
    assert "add 9 2" in legal_texts(st)      # 2 naturals + 2 wild cards is fine
    st = play(st, "add 9 2")
    assert "add 9 2" not in legal_texts(st)  # a third wild card would outnumber the naturals
    with pytest.raises(IllegalMoveError, match="more wild cards than natural"):
        apply(st, mv(st, "add 9 2"))


def test_s5_3_one_meld_per_rank_per_side() -> None:
    st = rich("9h 9d 9c 9s 6c 7c 8c 10c")
    st = play(st, "meld 9 9 9")
    texts = legal_texts(st)
    assert not any(t.startswith("meld 9") for t in texts) and "add 9" in texts
    with pytest.raises(IllegalMoveError, match="already has a 9 meld"):
        apply(st, mv(st, "meld 9 9 9"))


def test_s5_3_both_sides_may_hold_melds_of_the_same_rank() -> None:
    st = setup(seat0="Ah Ad Ac 9h 9d 9c 6c 7c 8c 10c Qh", seat1="Kh Kd Kc 9s 9c 9d 6d 7d 8d 10d Qs",
               stock="8h 4s 4d 4c")
    st = play(st, "draw", "meld A A A", "meld 9 9 9", "discard 4", "draw", "meld K K K",
              "meld 9 9 9")
    assert st.melds[0][5] is not None and st.melds[1][5] is not None


def test_s5_4_melds_are_permanent_no_move_takes_cards_back() -> None:
    st = play(rich("9h 9d 9c 6c 7c 8c 10c Qh"), "meld A A A")
    hand_before = len(st.hands[0])
    after = play(st, "discard 6")
    meld = after.melds[0][10]
    assert meld is not None and meld.size == 3 and len(after.hands[0]) == hand_before - 1


def test_s5_5_canasta_natural_and_mixed_and_wild_turns_natural_into_mixed() -> None:
    st = rich("Kh Kd Kc Ks Kh Kd Kc 2c")
    st = play(st, "meld K K K K K K K")
    k = st.melds[0][9]
    assert k is not None and k.is_canasta and k.is_natural
    st = play(st, "add K 2")
    k = st.melds[0][9]
    assert k is not None and k.is_canasta and not k.is_natural


def test_s5_5_canasta_grows_with_naturals_without_limit() -> None:
    st = rich("Kh Kd Kc Ks Kh Kd Kc Ks")
    st = play(st, "meld K K K K K K K", "add K")
    k = st.melds[0][9]
    assert k is not None and k.size == 8


def test_s5_6_concealed_canasta_laid_whole_from_hand() -> None:
    st = rich("Kh Kd Kc Ks Kh Kd Kc 4c")
    st = play(st, "meld K K K K K K K")
    assert st.melds[0][9] is not None and st.melds[0][9].concealed


def test_s5_6_canasta_built_by_additions_is_not_concealed() -> None:
    st = rich("Kh Kd Kc Ks Kh Kd Kc 4c")
    st = play(st, "meld K K K K", "add K", "add K", "add K")
    k = st.melds[0][9]
    assert k is not None and k.is_canasta and not k.concealed


def test_s5_6_concealed_canasta_may_use_the_pile_top_card() -> None:
    st = setup(seat0="Kh Kd Kc Ks Kh Kd Ah Ad Ac 5c 6c", stock="Kc 4s 4d")
    st = play(st, "pile K K K K K K")
    k = st.melds[0][9]
    assert k is not None and k.size == 7 and k.concealed


def test_s5_6_canasta_with_other_pile_cards_is_not_concealed() -> None:
    # Pile: Ks under Kc.  After taking it, the Ks from the pile joins a new K meld... but the
    # side already has one, so build the 7-card meld from Q instead: two queens come from the pile.
    st = setup(seat0="Qh Qd Qc Qs Qh 9h 9d 5c 6c 7c 8c", seat3="Qd Qc 4h 4d 4c 5d 5h 6d 6h 7d 7h",
               stock="9c 4s")
    st = play(st, "pile 9 9")  # 27+... below 50: must add from hand before the pick-up
    assert st.phase.value == "pile_opening"
    st = play(st, "meld Q Q Q")
    assert st.phase.value == "meld"
    assert not st.melds[0][8].concealed  # type: ignore[union-attr]


def test_s5_6_concealed_bonus_kept_when_a_wild_is_added_later() -> None:
    st = rich("Kh Kd Kc Ks Kh Kd Kc 2c")
    st = play(st, "meld K K K K K K K", "add K 2")
    k = st.melds[0][9]
    assert k is not None and k.concealed and not k.is_natural


def test_meld_rank_of_added_card_must_match() -> None:
    st = play(rich("9h 9d 9c 8c 7c 6c 10c Qh"), "meld 9 9 9")
    with pytest.raises(IllegalMoveError, match="only a 9 or a wild card"):
        apply(st, mv(st, "add 9 8"))


def test_kind_of_meld_cards_match_move() -> None:
    st = play(rich("9h 9d 9c 8c 7c 6c 10c Qh"), "meld 9 9 9")
    meld = st.melds[0][5]
    assert meld is not None and all(KIND_OF[c] == 5 for c in meld.cards)
