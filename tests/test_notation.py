"""The move notation: printing, reading back, and clear errors on bad text."""

from __future__ import annotations

import random

import pytest

from canasta_cli.core import (
    PRESETS,
    Add,
    Discard,
    IllegalMoveError,
    Meld,
    NotationError,
    TakePile,
    apply,
    format_move,
    legal_moves,
    new_game,
    parse_move,
)
from canasta_cli.core.cards import BLACK3, DEUCE, JOKER, KIND_OF, RED3


@pytest.mark.parametrize(("text", "move"), [
    ("meld K K 2", Meld(9, 2, 1, 0)),
    ("meld 10 10 T Jo", Meld(6, 3, 0, 1)),
    ("MELD kh kd ks", Meld(9, 3, 0, 0)),
    ("meld 3 3 3", Meld(13, 3, 0, 0)),
    ("add 7", Add(3, 3)),
    ("add 7 2", Add(3, DEUCE)),
    ("add 7 Jo", Add(3, JOKER)),
    ("discard 9h", Discard(5)),
    ("discard 3s", Discard(13)),
    ("pile Q Q", TakePile(8, 2, 0, 0)),
    ("pile Q 2", TakePile(8, 1, 1, 0)),
])
def test_parse_examples(text: str, move: object) -> None:
    assert parse_move(text) == move


def test_bare_pile_needs_the_top_card() -> None:
    assert parse_move("pile", top_rank=8) == TakePile(8)
    with pytest.raises(NotationError, match="top card"):
        parse_move("pile")


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty move"),
    ("jump", "unknown move 'jump'"),
    ("meld K Q 2", "single rank"),
    ("meld 2 2 Jo", "only wild cards"),
    ("meld", "needs the cards"),
    ("meld K K Z", "unknown card 'Z'"),
    ("discard", "exactly one card"),
    ("draw 5", "takes no cards"),
    ("add", "'add' takes"),
    ("meld 3h 3", "single rank, not black 3 and red 3"),
])
def test_bad_text_gets_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        parse_move(text)


@pytest.mark.parametrize(("text", "move", "reason"), [
    ("meld 3h 3h 3h", Meld(RED3, 3), "red threes are laid face up"),
    ("discard 3h", Discard(RED3), "red threes are laid face up"),
    ("discard 3d", Discard(RED3), "red threes are laid face up"),
    ("add 3h", Add(RED3, RED3), "red threes are laid face up"),
    ("meld 3 3 2", Meld(BLACK3, 2, 1), "never with wild cards"),
    ("meld 3 3", Meld(BLACK3, 2), "set of three or more"),
    ("add 3", Add(BLACK3, BLACK3), "nothing can be added to black threes"),
    ("meld K K", Meld(9, 2), "at least 3 cards"),
])
def test_a_real_move_the_rules_forbid_is_refused_by_apply(text: str, move: object,
                                                           reason: str) -> None:
    """Text naming a real move reads as that move; the rules refuse it, with their reason."""
    assert parse_move(text) == move
    st = apply(new_game("classic", seed=1), "draw")
    with pytest.raises(IllegalMoveError, match=reason) as info:
        apply(st, text)
    assert info.value.move == move
    assert not isinstance(info.value, NotationError)


def test_pile_rank_must_match_the_top_card() -> None:
    assert parse_move("pile Q Q", top_rank=9) == TakePile(8, 2)
    st = new_game("classic", seed=1)
    top = KIND_OF[st.pile[-1]]
    other = 9 if top != 9 else 8
    text = "pile " + " ".join([format_move(Discard(other)).split()[1]] * 2)
    with pytest.raises(IllegalMoveError, match="the top card of the pile is a"):
        apply(st, text)


def test_a_pile_under_a_black_three_is_refused_as_a_rule() -> None:
    assert parse_move("pile 3 3") == TakePile(BLACK3, 2)
    st = new_game("classic", seed=1)
    with pytest.raises(IllegalMoveError):
        apply(st, "pile 3 3")


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_legal_move_round_trips_through_the_notation(name: str) -> None:
    rules = PRESETS[name].with_options(max_hands=1)
    st = new_game(rules, seed=3)
    rng = random.Random(3)
    while not st.is_over:
        top = KIND_OF[st.pile[-1]] if st.pile else None
        for m in legal_moves(st):
            assert parse_move(format_move(m), top_rank=top) == m
        st = apply(st, rng.choice(legal_moves(st)))


def test_moves_have_pasteable_reprs() -> None:
    m = Meld(9, 2, 1, 0)
    assert eval(repr(m), {"Meld": Meld}) == m  # noqa: S307 - the repr is the contract
