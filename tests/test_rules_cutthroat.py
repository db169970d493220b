"""Rules reference §14.2: cut-throat three-player Canasta, one test per clause."""

from __future__ import annotations

import random

from helpers import legal_texts, play, setup

from canasta_cli.core import PRESETS, Draw, GameState, TakePile, apply, legal_moves, new_game, observation
from canasta_cli.core.cards import VALUE_OF
from canasta_cli.core.events import HandEnded
from canasta_cli.core.moves import Discard
from canasta_cli.ui.event_text import describe_event
from canasta_cli.ui.render import Style, render_table

CUT = PRESETS["three-player-cutthroat"]
ACE = 10


def test_preset_numbers() -> None:
    assert (CUT.players, CUT.hand_size, CUT.draw_count, CUT.canastas_to_go_out, CUT.target) \
        == (3, 13, 2, 2, 7500)
    assert CUT.cutthroat and not CUT.partnerships and CUT.sides == 3
    assert not CUT.permission_question


def test_cutthroat_needs_three_players() -> None:
    import pytest

    from canasta_cli.core import RulesError
    with pytest.raises(RulesError, match="three-player game"):
        PRESETS["classic"].with_options(cutthroat=True)


def _partners_after_a_take() -> GameState:
    """Seats 1 and 2 each meld aces; then seat 0 is the first to take the pile."""
    st = setup(CUT, stock="5c 9h 9d 9s 9c 10h 10d 10s 10c",
               seat0="Qh Qd Kh Kd Kc 6h", seat1="Ah Ad Ac As 7h", seat2="Ah Ad Ac Qs")
    st = play(st, "draw", "discard 6")
    st = play(st, "draw", "meld A A A", "discard 7")
    st = play(st, "draw", "meld A A A", "discard Q")
    assert st.lone is None and st.team == (0, 1, 2)
    return play(st, "pile Q Q", "meld K K K")


def test_everyone_plays_alone_until_the_pile_is_taken() -> None:
    st = setup(CUT, stock="5c 9h 9d", seat1="Ah Ad Ac 7h")
    st = play(st, "draw", "discard " + _some_discard(st))
    st = play(st, "draw", "meld A A A", "discard 7")
    obs = observation(st, 2, history=False)
    assert obs["lone_hand"] is None and obs["meld_side"] == [0, 1, 2]
    assert obs["side_melded"] == [False, True, False]
    assert obs["pile_frozen_for_me"]  # seat 2 has not melded: seat 1's melds are not its own


def _some_discard(st: GameState) -> str:
    st2 = apply(st, Draw()) if st.phase.value == "draw" else st
    discards = [m for m in legal_moves(st2) if isinstance(m, Discard)]
    from canasta_cli.core import format_move
    return format_move(discards[-1]).split()[1]


def test_the_first_to_take_the_pile_is_the_lone_hand_and_the_others_share_melds() -> None:
    st = _partners_after_a_take()
    assert st.lone == 0 and st.team == (0, 1, 1)
    aces = st.melds[1][ACE]
    assert aces is not None and aces.size == 6  # both partners' aces, now one meld
    assert all(m is None for m in st.melds[2])
    assert st.melds[0][9] is not None  # the lone hand's kings stay its own
    kinds = [e.full()["type"] for e in st.events()]
    i = kinds.index("took_pile")
    assert kinds[i + 1] == "partners"  # then the opening meld from the hand, then the pick-up
    assert kinds[i + 2:i + 4] == ["meld", "picked_up"]
    event = next(e.full() for e in st.events() if e.full()["type"] == "partners")
    assert event == {"type": "partners", "lone": 0, "partners": [1, 2], "merged": ["A"]}
    for seat in range(3):
        obs = observation(st, seat, history=False)
        assert obs["lone_hand"] == 0 and obs["meld_side"] == [0, 1, 1]
        assert obs["side_melded"] == [True, True, True]


def test_partners_add_to_each_others_melds() -> None:
    st = _partners_after_a_take()
    st = play(st, "discard " + _some_discard(st))
    assert st.turn_seat == 1
    st = play(st, "draw")
    assert "add A" in legal_texts(st)  # seat 1's fourth ace goes on the shared aces
    st = play(st, "add A")
    aces = st.melds[1][ACE]
    assert aces is not None and aces.size == 7


def test_a_later_pile_take_does_not_change_the_partnership() -> None:
    st = _partners_after_a_take()
    rng = random.Random(5)
    while st.hand_no == 1 and not st.is_over:
        moves = legal_moves(st)
        takes = [m for m in moves if isinstance(m, TakePile)]
        st = apply(st, takes[0] if takes else rng.choice(moves))
        if st.hand_no == 1:
            assert st.lone == 0 and st.team == (0, 1, 1)


def _out_before_any_take() -> GameState:
    """Seat 0 goes out concealed on its first turn with two canastas; seat 1 holds a red three."""
    st = setup(CUT, stock="5c 9c 8s 4c",  # 9c replaces seat 1's red three
               seat0="7h 7d 7c 7s 7h 7d 7c 8h 8d 8c 8s 8h 8d", seat1="3h")
    return play(st, "draw", "meld 7 7 7 7 7 7 7", "meld 8 8 8 8 8 8 8", "discard 4")


def test_going_out_before_the_pile_was_taken_makes_the_lone_hand() -> None:
    st = _out_before_any_take()
    ended = [e.full() for e in st.events()]
    kinds = [e["type"] for e in ended]
    assert kinds.index("went_out") < kinds.index("partners") < kinds.index("hand_ended")
    assert next(e for e in ended if e["type"] == "partners")["lone"] == 0


def test_scoring_partners_share_the_result_but_not_red_threes() -> None:
    st = _out_before_any_take()
    result = st.results[0]
    lone, p1, p2 = result.sides
    hands = next(e for e in st.events() if isinstance(e, HandEnded)).hands
    assert lone.going_out == 200 and lone.hand_penalty == 0  # concealed: 200
    both = -sum(VALUE_OF[c] for h in hands[1:] for c in h)
    assert p1.hand_penalty == p2.hand_penalty == both  # both partners' cards count for both
    assert p1.red_threes == 1 and p1.red_three_points == -100  # partnership has not melded
    assert p2.red_threes == 0 and p2.red_three_points == 0
    assert p1.total - p1.red_three_points == p2.total - p2.red_three_points
    assert st.scores == (lone.total, p1.total, p2.total)


def test_nobody_ever_took_the_pile_so_everyone_scores_alone() -> None:
    rules = CUT.with_options(max_hands=1)
    for seed in range(30):
        st = new_game(rules, seed=seed)
        rng = random.Random(seed)
        while not st.is_over:
            moves = legal_moves(st)
            quiet = [m for m in moves if not isinstance(m, TakePile)
                     and type(m).__name__ not in ("Meld", "Add")]
            st = apply(st, rng.choice(quiet or moves))
        if st.lone is None:
            break
    assert st.lone is None and st.results[0].reason == "stock_exhausted"
    hands = next(e for e in st.events() if isinstance(e, HandEnded)).hands
    for seat, side in enumerate(st.results[0].sides):
        assert side.hand_penalty == -sum(VALUE_OF[c] for c in hands[seat])


def test_each_players_own_score_sets_the_minimum() -> None:
    st = new_game(CUT, seed=1, scores=[3000, 0, 1500])
    assert observation(st, 0, history=False)["minimums"] == [120, 50, 90]


def test_a_partner_opens_with_their_own_minimum() -> None:
    """Neither partner had melded: the first of them to meld needs their own minimum."""
    st = setup(CUT, stock="5c 9h 9d 9s 9c 10h 10d 10s 10c", seat0="Qh Qd Kh Kd Kc 6h",
               seat1="Jh Jd Jc 7h 7d 7c", seat2="Qs")
    st = new_game(CUT, seed=0, decks=[st.stacked[0]], dealer=2, scores=[0, 1500, 0])
    st = play(st, "draw", "discard 6")
    st = play(st, "draw")
    st = play(st, "discard " + _some_discard_not(st, {"J", "7"}))
    st = play(st, "draw", "discard Q")
    st = play(st, "pile Q Q", "meld K K K")
    assert st.lone == 0
    st = play(st, "discard " + _some_discard(st), "draw")
    assert st.turn_seat == 1 and not st.side_has_melded(st.team[1])
    # J J J + 7 7 7 = 45 < 90 (seat 1's own minimum at 1,500), though 50 would do at 0.
    texts = legal_texts(st)
    assert "meld J J J" not in texts and "meld 7 7 7" not in texts


def _some_discard_not(st: GameState, avoid: set[str]) -> str:
    from canasta_cli.core import format_move
    for m in legal_moves(st):
        if isinstance(m, Discard):
            rank = format_move(m).split()[1]
            if rank not in avoid:
                return rank
    raise AssertionError("no discard")


def test_the_game_ends_at_7500_for_a_single_leader() -> None:
    rules = CUT.with_options(max_hands=3)
    ended = 0
    for seed in range(20):
        st = new_game(rules, seed=seed, scores=[7495, 7000, 0])
        rng = random.Random(seed)
        while st.hand_no == 1 and not st.is_over:
            st = apply(st, rng.choice(legal_moves(st)))
        best = max(st.scores)
        single = sum(1 for s in st.scores if s == best) == 1
        assert st.is_over == (best >= 7500 and single) or st.game_end_reason == "hand_limit"
        ended += st.is_over
    assert ended


def test_the_table_says_who_plays_alone() -> None:
    st = _partners_after_a_take()
    text = render_table(observation(st, 1, history=False), [], ["a", "b", "c"],
                        Style(color=False))
    assert "Right plays alone this hand; You and Left are partners." in text
    assert "You and Left: melds" in text
    event = next(e.full() for e in st.events() if e.full()["type"] == "partners")
    assert describe_event(event) == ("seat 0 plays alone this hand; seat 1 and seat 2 are"
                                     " partners (their A melds are now one)")


def test_a_merged_meld_keeps_its_wild_cards_and_takes_no_more() -> None:
    """Both partners melded 7s with two wild cards: the merged meld holds four (over the
    limit of three); it still takes natural 7s but no further wild card."""
    st = setup(CUT, stock="5c 9h 9d 9s 9c 10h 10d 10s 10c",
               seat0="Qh Qd Kh Kd Kc 6h", seat1="7h 7d 2c 2d 7c Jo 8h", seat2="7h 7d 2h 2s Qs")
    st = play(st, "draw", "discard 6")
    st = play(st, "draw", "meld 7 7 2 2", "discard 8")
    st = play(st, "draw", "meld 7 7 2 2", "discard Q")
    st = play(st, "pile Q Q", "meld K K K")
    sevens = st.melds[1][3]
    assert sevens is not None and (sevens.naturals, sevens.wilds) == (4, 4)
    st = play(st, "discard " + _some_discard(st), "draw")
    texts = legal_texts(st)
    assert "add 7" in texts and "add 7 Jo" not in texts


def test_canasta_rules_describes_the_cutthroat_preset() -> None:
    from typer.testing import CliRunner

    from canasta_cli.__main__ import app
    result = CliRunner().invoke(app, ["rules", "-r", "three-player-cutthroat"])
    assert result.exit_code == 0, result.output
    assert "Ruleset: three-player-cutthroat" in result.output
    assert "the first to take the pile plays alone" in result.output
    assert "red threes count for their owner alone" in result.output
