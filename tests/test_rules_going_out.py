"""Rules reference §9-§11: red threes, going out, the permission question, the end of the stock."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from helpers import legal_texts, mv, play, setup

from canasta_cli.core import (
    CLASSIC,
    PRESETS,
    EndHand,
    GameState,
    IllegalMoveError,
    Ruleset,
    apply,
    legal_moves,
    new_game,
)
from canasta_cli.core.cards import KIND_OF, RED3
from canasta_cli.core.moves import Discard, Draw, TakePile

KINGS8 = "Kh Kd Kc Ks Kh Kd Kc"  # seven kings


def test_s9_red_threes_never_stay_in_a_hand() -> None:
    for seed in range(5):
        st = new_game(CLASSIC, seed=seed)
        rng = random.Random(seed)
        while not st.is_over:
            assert all(KIND_OF[c] != RED3 for h in st.hands for c in h)
            st = apply(st, rng.choice(legal_moves(st)))


def test_s10_1_going_out_needs_the_required_canastas() -> None:
    rules = CLASSIC.with_options(hand_size=5)
    st = play(setup(rules, seat0="Ah Ad Ac 9h 9d", stock="Qh 5c"), "draw", "meld A A A")
    assert "meld 9 9 5" not in legal_texts(st)  # not a meld anyway; and no way out
    assert [t for t in legal_texts(st) if t.startswith("discard")]  # discarding is fine
    two = PRESETS["two-player"]
    assert two.canastas_to_go_out == 2


def test_s10_2_going_out_by_melding_every_card_without_a_discard() -> None:
    st = play(setup(seat0=f"{KINGS8} Ah Ad Ac 2c", stock="Qh Ks"), "draw",
              "meld K K K K K K K K", "meld A A A 2")
    res = st.results[0]
    assert res.reason == "went_out" and res.went_out == 0
    kinds = [type(e).__name__ for e in st.events()]
    assert "Discarded" not in kinds and kinds.index("WentOut") < kinds.index("HandEnded")


def test_s10_2_going_out_with_a_final_discard() -> None:
    st = play(setup(seat0=f"{KINGS8} Ah Ad Ac 9h", stock="Qh Ks"), "draw",
              "meld K K K K K K K", "add K", "meld A A A", "discard 9")
    res = st.results[0]
    assert res.reason == "went_out" and res.went_out == 0


def test_s10_4_one_black_three_is_discarded_to_go_out() -> None:
    st = play(setup(seat0=f"{KINGS8} Ah Ad Ac 3s", stock="Qh Ks"), "draw",
              "meld K K K K K K K K", "meld A A A")
    assert legal_texts(st) == ["discard 3"]
    st = play(st, "discard 3")
    assert st.results[0].went_out == 0


def test_s10_4_two_black_threes_make_going_out_impossible() -> None:
    st = play(setup(seat0=f"{KINGS8} Ah Ad Ac 3s", stock="Qh 3c"), "draw")
    assert "ask" not in legal_texts(st)
    st = play(st, "meld K K K K K K K")
    assert "meld A A A" in legal_texts(st)  # leaves 3 3: still two cards, no going out
    st = play(st, "meld A A A")
    assert legal_texts(st) == ["discard 3"]
    st = play(st, "discard 3")
    assert not st.results and st.turn_seat == 1


def test_s10_4_three_black_threes_are_melded_as_a_set_when_going_out() -> None:
    st = play(setup(seat0=f"{KINGS8} 3s 3c 3s 2c", stock="Qh 9h"), "draw")
    assert "meld 3 3 3" in legal_texts(st)
    st = play(st, "meld K K K K K K K 2", "meld 3 3 3", "discard 9")
    res = st.results[0]
    assert res.went_out == 0 and res.sides[0].meld_points == 70 + 20 + 15


def test_s10_4_black_three_set_commits_the_player_to_go_out() -> None:
    st = play(setup(seat0=f"{KINGS8} 3s 3c 3s 2c", stock="Qh 9h"), "draw", "meld 3 3 3")
    assert all(not t.startswith("discard") for t in legal_texts(st))
    with pytest.raises(IllegalMoveError):
        apply(st, mv(st, "discard 9"))


def _asking() -> object:
    return play(setup(seat0=f"{KINGS8} Ah Ad Ac 9h", stock="Qh Ks 4d"), "draw")


def test_s10_5_question_offered_only_when_going_out_is_possible_and_before_melding() -> None:
    st = _asking()
    assert "ask" in legal_texts(st)  # type: ignore[arg-type]
    melded = play(st, "meld A A A")  # type: ignore[arg-type]
    assert "ask" not in legal_texts(melded)
    cannot = play(setup(seat0=f"{KINGS8} Ah Ad 5c 9h", stock="Qh 4d"), "draw")
    assert "ask" not in legal_texts(cannot)
    two = play(setup(PRESETS["two-player"], seat0=f"{KINGS8} Ah Ad Ac 9h 5c 6d 7h 8s",
                     stock="Qh Ks 4d"), "draw")
    assert "ask" not in legal_texts(two)


def test_s10_5_partner_answers_and_yes_binds_the_player_to_go_out() -> None:
    st = play(_asking(), "ask")  # type: ignore[arg-type]
    assert st.actor == 2 and legal_texts(st) == ["yes", "no"]
    st = play(st, "yes")
    assert st.actor == 0 and st.permission is True
    texts = legal_texts(st)
    assert not any(t.startswith("discard") for t in texts)  # 12 cards: discarding is not out
    st = play(st, "meld K K K K K K K K", "meld A A A", "discard 9")
    assert st.results[0].went_out == 0


def test_s10_5_no_forbids_going_out_this_turn() -> None:
    st = play(_asking(), "ask", "no")  # type: ignore[arg-type]
    st = play(st, "meld K K K K K K K K")
    assert "meld A A A" not in legal_texts(st)  # would leave one card: going out
    with pytest.raises(IllegalMoveError, match="partner said no"):
        apply(st, mv(st, "meld A A A"))


def test_s10_5_question_and_answer_are_in_the_public_history() -> None:
    from canasta_cli.core import observation
    st = play(_asking(), "ask", "yes")  # type: ignore[arg-type]
    hist = observation(st, 1)["history"]
    assert {"type": "asked", "seat": 0, "partner": 2} in hist
    assert {"type": "answered", "seat": 2, "yes": True} in hist


def test_s10_6_going_out_concealed_scores_200() -> None:
    st = play(setup(seat0=f"{KINGS8} Ah Ad Ac 9h", stock="Qh Ks"), "draw",
              "meld K K K K K K K K", "meld A A A", "discard 9")
    res = st.results[0]
    assert res.concealed and res.sides[0].going_out == 200


def test_s10_6_not_concealed_after_an_earlier_meld_in_the_hand() -> None:
    st = setup(seat0=f"{KINGS8} Ah Ad Ac 5h", stock="Qh 4s 4d 4h 4c Ks")
    st = play(st, "draw", "meld A A A", "discard 4", "draw", "discard 4", "draw", "discard 4",
              "draw", "discard 4", "draw", "meld K K K K K K K K", "discard 5")
    res = st.results[0]
    assert res.went_out == 0 and not res.concealed and res.sides[0].going_out == 100


def test_s10_6_not_concealed_when_adding_to_the_partners_meld() -> None:
    st = setup(seat0=f"{KINGS8} Ah 9h 9d 9c", seat2="Ah Ad Ac 4c 5s 6c 7d 8h Qc 10s Jd",
               stock="Qh 4s 4d 4h 4c 5d")
    st = play(st, "draw", "discard 4", "draw", "discard 4", "draw", "meld A A A", "discard 4",
              "draw", "discard 4", "draw", "meld K K K K K K K", "meld 9 9 9", "add A",
              "discard 5")
    res = st.results[0]
    assert res.went_out == 0 and not res.concealed and res.sides[0].going_out == 100


def test_s10_6_taking_the_pile_rules_out_concealed_by_default() -> None:
    def go(rules: Ruleset) -> GameState:
        st = setup(rules, seat0="Kh Kd Kc Ks Kh Kd Ah Ad Ac As 9h", stock="Kc 5d")
        return play(st, "pile K K K K K K", "meld A A A A", "discard 9")
    res = go(CLASSIC).results[0]
    assert res.went_out == 0 and not res.concealed
    res = go(CLASSIC.with_options(concealed_forbids_pile=False)).results[0]
    assert res.concealed


def _exhaust(st: GameState, pick: Callable[[list[Discard]], Discard] | None = None) -> GameState:
    """Draw and discard the drawn kind until the stock is gone (or the hand ends)."""
    while (st.stock or st.phase.value == "meld") and st.hand_no == 1 and not st.is_over:
        if st.phase.value == "draw":
            st = apply(st, Draw())
        else:
            discards = [m for m in legal_moves(st) if isinstance(m, Discard)]
            st = apply(st, (pick or (lambda ms: ms[0]))(discards) if discards else legal_moves(st)[0])
    return st


def test_s11_1_last_stock_card_red_three_ends_the_hand_at_once() -> None:
    # setup() puts the four red threes at the bottom of the stock.
    st = _exhaust(setup(stock="Qh"))
    assert st.hand_no == 2 or st.is_over
    res = st.results[0]
    assert res.reason == "last_red_three" and res.went_out is None
    assert all(s.going_out == 0 for s in res.sides)


def test_s11_1_meld_no_discard_option_allows_melds_then_ends() -> None:
    rules = CLASSIC.with_options(last_card_red3="meld_no_discard")
    st = _exhaust(setup(rules, stock="Qh"))
    assert st.phase.value == "meld_no_discard" and not st.stock
    texts = legal_texts(st)
    assert "end" in texts and not any(t.startswith("discard") for t in texts)
    st = apply(st, EndHand())
    assert st.results[0].reason == "last_red_three"


def test_s11_2_with_no_stock_a_player_who_does_not_take_ends_the_hand() -> None:
    st = _exhaust(setup(stock="Qh 3h 3d 3h 3d"))
    assert not st.stock and st.phase.value == "draw"
    texts = legal_texts(st)
    assert "draw" not in texts and "end" in texts
    st = apply(st, EndHand())
    res = st.results[0]
    assert res.reason == "stock_exhausted" and all(s.going_out == 0 for s in res.sides)


@pytest.mark.parametrize("policy", ["matches_meld", "any_legal"])
def test_s11_2_forced_take_after_the_stock_runs_out(policy: str) -> None:
    rules = CLASSIC.with_options(exhausted_forced_take=policy)
    seen = 0
    for seed in range(60):
        st = new_game(rules, seed=seed)
        rng = random.Random(seed)
        while not st.is_over and st.hand_no <= 2:
            moves = legal_moves(st)
            if st.phase.value == "draw" and not st.stock:
                takes = [m for m in moves if isinstance(m, TakePile)]
                seen += 1
                side = rules.side_of(st.turn_seat)
                top = KIND_OF[st.pile[-1]] if st.pile else None
                matches = (top is not None and top <= 10 and not st.pile_frozen
                           and st.melds[side][top] is not None
                           and TakePile(top) in takes)
                forced = bool(takes) if policy == "any_legal" else matches
                assert (EndHand() not in moves) == forced
            st = apply(st, rng.choice(moves))
    assert seen > 20


def test_s11_4_two_player_draw_takes_the_last_single_card() -> None:
    rules = PRESETS["two-player"]
    st = setup(rules, stock="Qh 3h 3d 3h 3d")
    while len(st.stock) > 1 or st.phase.value != "draw":
        if st.phase.value == "draw":
            st = apply(st, Draw())
        else:
            st = apply(st, [m for m in legal_moves(st) if isinstance(m, Discard)][0])
    seat = st.turn_seat
    before = len(st.hands[seat])
    st = apply(st, Draw())
    assert len(st.hands[seat]) == before + 1 and not st.stock


def test_s10_4_one_black_three_set_per_side_even_with_six_black_threes() -> None:
    rules = PRESETS["six-player"].with_options(canastas_to_go_out=1)
    st = play(setup(rules, dealer=5, seat0="3s 3c 3s 3c 3s 3c Kh Kd Kc Ks Kh Kd Kc",
                    stock="Qh Ks"), "draw")
    sets = [t for t in legal_texts(st) if t.startswith("meld 3")]
    assert sets == ["meld 3 3 3 3 3", "meld 3 3 3 3 3 3"]  # never two sets of three
    st = play(st, "meld K K K K K K K K", "meld 3 3 3 3 3")
    assert legal_texts(st) == ["discard 3"]
    st = play(st, "discard 3")
    assert st.results[0].went_out == 0


def test_s14_1_two_player_going_out_concealed_with_both_canastas_in_that_turn() -> None:
    rules = PRESETS["two-player"]
    hand = "Kh Kd Kc Ks Kh Kd Kc Qh Qd Qc Qs Qh Qd Qc 9h"
    st = play(setup(rules, seat0=hand, stock="8h Ks Qs"), "draw")  # draws two: Ks, Qs
    assert "ask" not in legal_texts(st)  # no partner to ask
    st = play(st, "meld K K K K K K K K")
    assert "meld Q Q Q Q Q Q Q Q" in legal_texts(st)  # the second canasta: going out is open
    st = play(st, "meld Q Q Q Q Q Q Q Q", "discard 9")
    res = st.results[0]
    assert res.went_out == 0 and res.concealed and res.sides[0].going_out == 200
    assert res.sides[0].natural_canastas == 2


def test_s10_5_six_player_asks_the_next_teammate() -> None:
    rules = PRESETS["six-player"].with_options(canastas_to_go_out=1)
    st = play(setup(rules, dealer=5, seat0="Kh Kd Kc Ks Kh Kd Kc Ah Ad Ac 9h 9d 9c",
                    stock="Qh Ks"), "draw", "ask")
    assert st.actor == 2 and legal_texts(st) == ["yes", "no"]


def test_s14_1_two_player_one_canasta_is_not_enough_to_go_out() -> None:
    rules = PRESETS["two-player"]
    hand = "Kh Kd Kc Ks Kh Kd Kc Ah Ad Ac 5h 5d 5c 6h 6d"
    st = play(setup(rules, seat0=hand, stock="8h Ks 6c"), "draw")
    st = play(st, "meld K K K K K K K K", "meld A A A", "meld 5 5 5")
    # 6 6 6 left: melding them would empty the hand with one canasta only.
    assert "meld 6 6 6" not in legal_texts(st)
