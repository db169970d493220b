"""The move notation: printing, reading back, and clear errors on bad text."""

from __future__ import annotations

import random

import pytest

from canasta_cli.core import (
    PRESETS,
    Add,
    Discard,
    Meld,
    NotationError,
    TakePile,
    apply,
    format_move,
    legal_moves,
    new_game,
    parse_move,
)
from canasta_cli.core.cards import DEUCE, JOKER, KIND_OF


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
    ("meld K K", "at least three cards"),
    ("meld K K Z", "unknown card 'Z'"),
    ("discard", "exactly one card"),
    ("discard 3h", "red three"),
    ("draw 5", "takes no cards"),
    ("add", "'add' takes"),
    ("pile 3 3", "black three"),
    ("meld 3 3 2", "without wild cards"),
])
def test_bad_text_gets_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        parse_move(text)


def test_pile_rank_must_match_the_top_card() -> None:
    with pytest.raises(NotationError, match="top card of the pile is a K"):
        parse_move("pile Q Q", top_rank=9)


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
