"""Rules reference §12-§14: hand scoring, the end of the game, ties, the variants."""

from __future__ import annotations

import random

from helpers import play, setup

from canasta_cli.core import CLASSIC, PRESETS, GameState, MeldState, Ruleset, apply, legal_moves, new_game
from canasta_cli.core.cards import KIND_OF, parse_card_sequence
from canasta_cli.core.events import HandEnded
from canasta_cli.core.scoring import score_side
from canasta_cli.core.state import EMPTY_MELDS

KINGS8 = "Kh Kd Kc Ks Kh Kd Kc"


def _melds(*specs: tuple[str, bool]) -> tuple[MeldState | None, ...]:
    row = list(EMPTY_MELDS)
    pool = parse_card_sequence(" ".join(s for s, _ in specs).split(), 2)
    pos = 0
    for text, concealed in specs:
        n = len(text.split())
        cards = tuple(pool[pos:pos + n])
        pos += n
        naturals = [c for c in cards if KIND_OF[c] <= 10]
        wilds = len(cards) - len(naturals)
        row[KIND_OF[naturals[0]]] = MeldState(KIND_OF[naturals[0]], cards, wilds, 0, 1, concealed)
    return tuple(row)


def _cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card_sequence(text.split(), 2))


def test_s12_4_worked_example_side_a_1305() -> None:
    rules = CLASSIC.with_options(concealed_canasta_bonus=0)
    melds = _melds(("Kh Kd Kc Ks Kh Kd Kc", False), ("7h 7d 7c 7s 7h 2c Jo", False),
                   ("Ah Ad Ac", False))
    score = score_side(rules, 0, melds, 2, [(), _cards("9h 4d 3s")], rules.going_out_bonus)
    assert (score.meld_points, score.canasta_bonus, score.red_three_points) == (225, 800, 200)
    assert score.hand_penalty == -20 and score.total == 1305


def test_s12_4_with_the_seeds_concealed_canasta_bonus_1405() -> None:
    melds = _melds(("Kh Kd Kc Ks Kh Kd Kc", True), ("7h 7d 7c 7s 7h 2c Jo", False),
                   ("Ah Ad Ac", False))
    score = score_side(CLASSIC, 0, melds, 2, [(), _cards("9h 4d 3s")], 100)
    assert score.concealed_bonus == 100 and score.total == 1405


def test_s12_4_worked_example_side_b_65() -> None:
    melds = _melds(("Qh Qd Qc 2d", False), ("5h 5d 5c", False))
    score = score_side(CLASSIC, 1, melds, 1, [_cards("Jh Jd 8c"), _cards("Jo As")], 0)
    assert score.total == 65


def test_s12_3_side_that_never_melded_scores_red_threes_negative() -> None:
    score = score_side(CLASSIC, 1, EMPTY_MELDS, 2, [_cards("Kh Kd Qs Jc 5c 5d 5h 10c Ah"), ()], 0)
    assert score.hand_penalty == -85 and score.total == -285


def test_s12_3_all_four_red_threes_800_and_the_no_meld_option() -> None:
    assert CLASSIC.red_three_points(4, True) == 800
    assert CLASSIC.red_three_points(4, False) == -800
    assert CLASSIC.with_options(red3_no_meld_all_four=-400).red_three_points(4, False) == -400


def test_s14_3_six_player_red_threes_1000_for_five_1200_for_six() -> None:
    six = PRESETS["six-player"]
    assert [six.red_three_points(n, True) for n in (1, 4, 5, 6)] == [100, 400, 1000, 1200]
    assert six.red_three_points(6, False) == -1200


def test_s12_1_hand_score_from_real_play_concealed_exit() -> None:
    st = setup(seat0=f"{KINGS8} Ah Ad Ac 9h", seat1="3h 3d 4c 5d 6h 7s 8c 9d 10h Js Qc",
               stock="Qh 4h 5h Ks")
    st = play(st, "draw", "meld K K K K K K K K", "meld A A A", "discard 9")
    ended = [e for e in st.events() if isinstance(e, HandEnded)][0]
    res = ended.result
    partner = sum(_value(c) for c in ended.hands[2])
    a = res.sides[0]
    assert (a.meld_points, a.canasta_bonus, a.concealed_bonus, a.going_out) == (140, 500, 100, 200)
    assert a.total == 940 - partner
    b = res.sides[1]
    # Side B never melded: its two red threes count against it.
    assert b.red_three_points == -200
    assert b.total == -200 - sum(_value(c) for s in (1, 3) for c in ended.hands[s])
    assert st.scores == (a.total, b.total)


def _value(card: int) -> int:
    from canasta_cli.core.cards import VALUE_OF
    return VALUE_OF[card]


def test_s12_1_partner_of_the_player_who_went_out_loses_their_hand() -> None:
    st = setup(seat0=f"{KINGS8} Ah Ad Ac 9h", seat2="Jo Jo 2c 2d As 5d 6h 7s 8c 9d 10h",
               stock="Qh Ks")
    st = play(st, "draw", "meld K K K K K K K K", "meld A A A", "discard 9")
    assert st.results[0].sides[0].hand_penalty == -(50 + 50 + 20 + 20 + 20 + 5 + 5 + 5 + 10 + 10
                                                      + 10)


def test_s13_tie_at_the_target_draw_policy_ends_in_a_draw() -> None:
    # Seed 208 ties at 460 each after the first hand (found by search, fixed here).
    rules = CLASSIC.with_options(target=100, tie_policy="draw")
    st = _random_game(rules, 208)
    assert st.winner is None and st.game_end_reason == "draw" and st.scores == (460, 460)


def test_s13_tie_at_the_target_play_on_policy_plays_more_hands() -> None:
    rules = CLASSIC.with_options(target=100, tie_policy="play_on")
    st = _random_game(rules, 208)
    assert len(st.results) > 1 and st.winner is not None
    assert st.scores[st.winner] > st.scores[1 - st.winner]


def test_s13_next_hand_minimum_follows_the_cumulative_score() -> None:
    rules = CLASSIC.with_options(target=100_000, max_hands=3)
    st = _random_game(rules, 4)
    from canasta_cli.core.events import HandStarted
    starts = [e for e in st.events() if isinstance(e, HandStarted)]
    running = [0, 0]
    for i, e in enumerate(starts):
        assert list(e.minimums) == [rules.initial_minimum(s) for s in running]
        running = [a + b for a, b in zip(running, st.results[i].totals, strict=True)]
    assert st.game_end_reason == "hand_limit"


def _random_game(rules: Ruleset, seed: int) -> GameState:
    st = new_game(rules, seed=seed)
    rng = random.Random(seed)
    while not st.is_over:
        st = apply(st, rng.choice(legal_moves(st)))
    return st


def test_s14_1_two_player_numbers() -> None:
    two = PRESETS["two-player"]
    assert (two.hand_size, two.draw_count, two.canastas_to_go_out, two.sides) == (15, 2, 2, 2)
    assert not two.permission_question


def test_s14_2_three_player_each_plays_alone() -> None:
    three = PRESETS["three-player"]
    assert (three.hand_size, three.draw_count, three.canastas_to_go_out) == (13, 1, 1)
    assert three.sides == 3 and [three.side_of(s) for s in range(3)] == [0, 1, 2]
    st = _random_game(three.with_options(target=2000), 1)
    assert len(st.scores) == 3


def test_s14_3_six_player_numbers() -> None:
    six = PRESETS["six-player"]
    assert (six.hand_size, six.canastas_to_go_out, six.target, six.deck_size) == (13, 2, 10000, 162)


def test_pagat_preset_differs_where_documented() -> None:
    pagat = PRESETS["pagat"]
    assert pagat.concealed_canasta_bonus == 0 and not pagat.wild_le_natural
    assert pagat.upcard_cover == "red_three_or_wild"
