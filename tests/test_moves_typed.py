"""The engine refuses what is not a move: a field that is not an int (a float, a bool, a
string, None) is an ``IllegalMoveError`` with a reason, never a ``TypeError``, and never
played as the move it equals (``Discard(True) == Discard(1)``, ``Meld(9, 3.0) == Meld(9, 3)``).

Both builds alike: a move keeps the values it is given, in the compiled build (mypyc) too,
where its C fields cannot hold them (core/moves.py), and ``explain.malformed`` reads them in
pure Python there as well.  Where the builds still differ (an argument of ``apply`` or
``new_game`` that is no move or no int at all: mypyc checks the declared type at the call),
the tests below say so."""

from __future__ import annotations

import copy
import dataclasses
import doctest
import pickle
import random
from typing import Any

import pytest
from helpers import play, setup
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st_

from canasta_cli.core import (
    PRESETS,
    Add,
    Answer,
    Discard,
    GameState,
    IllegalMoveError,
    Meld,
    TakePile,
    apply,
    legal_moves,
    new_game,
)
from canasta_cli.core import explain as explain_module
from canasta_cli.core.state import Phase
from canasta_cli.util.build import engine_build

COMPILED = engine_build() == "compiled"


def _kings_and_aces() -> GameState:
    """Seat 0 has drawn and may meld K K K (A A A makes the minimum), or discard a 5."""
    return play(setup(seat0="Kh Kd Ks Ah Ad As 5c 6c 7c 8c 9c", stock="4h 10d"), "draw")


def _values(move: Any) -> list[object]:
    return [getattr(move, f.name) for f in dataclasses.fields(move) if f.init]


@pytest.mark.parametrize(("kind", "fields", "reason"), [
    (Discard, (True,), "not a card kind"),
    (Meld, (9, 3.0), "whole number of cards"),
    (Meld, (9, True), "whole number of cards"),
    (Meld, (9, 3, None), "whole number of cards"),
    (Meld, (9.0, 3), "not a card kind"),
    (Add, ("9", 9), "not a card kind"),
    (TakePile, (0, 2.5), "whole number of cards"),
])
def test_a_field_that_is_not_an_int_is_refused_with_a_reason(kind: type[Any],
                                                             fields: tuple[object, ...],
                                                             reason: str) -> None:
    st = _kings_and_aces()
    assert Meld(9, 3) in legal_moves(st) and Discard(1) in legal_moves(st)
    move = kind(*fields)
    assert all(v is f for v, f in zip(_values(move), fields, strict=False))  # kept as given
    with pytest.raises(IllegalMoveError, match=reason) as err:
        apply(st, move)
    assert err.value.move is move


def test_an_answer_is_a_bool() -> None:
    st = _asked()
    assert st.phase is Phase.ANSWER
    move = Answer(1)  # type: ignore[arg-type]
    assert type(move.yes) is int  # kept as given, not made a bool
    with pytest.raises(IllegalMoveError, match="yes or no"):
        apply(st, move)


@pytest.mark.parametrize(("move", "equal", "text"), [
    (Discard(True), Discard(1), "Discard(kind=True)"),
    (Meld(9, 3.0), Meld(9, 3), "Meld(rank=9, naturals=3.0, deuces=0, jokers=0)"),  # type: ignore[arg-type]
    (Answer(1), Answer(True), "Answer(yes=1)"),  # type: ignore[arg-type]
])
def test_a_move_keeps_what_it_was_given(move: Any, equal: Any, text: str) -> None:
    """As a dataclass does: it prints, compares, hashes, copies and pickles as given."""
    assert repr(move) == text and move == equal and equal == move and hash(move) == hash(equal)
    for again in (pickle.loads(pickle.dumps(move)), copy.deepcopy(move)):
        assert repr(again) == text and _values(again) == _values(move)
        assert [type(v) for v in _values(again)] == [type(v) for v in _values(move)]


def test_the_listed_move_is_the_one_played() -> None:
    st = _kings_and_aces()
    made = Meld(9, 3)  # equal to a listed move, not the listed object
    assert all(m is not made for m in legal_moves(st))
    assert apply(st, made).melds == apply(st, "meld K K K").melds


@pytest.mark.parametrize("dealer", [1.5, True, False, "1", 4, -1, 10**20])
def test_new_game_refuses_a_dealer_that_is_no_seat(dealer: object) -> None:
    refused: tuple[type[Exception], ...] = (ValueError,)
    if COMPILED and type(dealer) not in (int, bool):
        refused = (ValueError, TypeError)  # mypyc checks ``int | None`` at the call
    with pytest.raises(refused, match="dealer must be a seat|int or None"):
        new_game("classic", dealer=dealer)  # type: ignore[arg-type]
    assert new_game("classic", dealer=3).dealer == 3


def test_the_core_doctests_pass() -> None:
    result = doctest.testmod(explain_module)
    assert result.failed == 0
    assert result.attempted >= 3


# Any value a caller might put in a field: the wrong types, and ints out of every range.
WRONG = st_.one_of(
    st_.integers(-3, 16), st_.integers(min_value=2**63), st_.integers(max_value=-(2**63)),
    st_.floats(allow_nan=True), st_.booleans(), st_.text(max_size=3), st_.none(),
)


def _twins(value: object) -> st_.SearchStrategy[object]:
    """Values of another type that equal or resemble a listed move's field (and the field as
    it is, and a huge int): the ones equality would take for it."""
    assert isinstance(value, int)
    return st_.sampled_from([value, float(value), value == 1, str(value), None, value + 2**64])


SHAPES: dict[type[Any], int] = {Discard: 1, Add: 2, Meld: 4, TakePile: 4, Answer: 1}


def _asked() -> GameState:
    """Seat 0 may go out, and has asked its partner."""
    return play(setup(seat0="Kh Kd Ks Kc Kh Kd Ks Qh Qd Qs Qc", stock="9c 5h"), "draw", "ask")


def _positions() -> list[GameState]:
    """Positions of every phase a move may meet: from short random games, and one asked."""
    out: list[GameState] = []
    for name in ("classic", "two-player", "three-player-cutthroat"):
        st = new_game(PRESETS[name].with_options(max_hands=1), seed=3)
        rng = random.Random(3)
        while not st.is_over:
            out.append(st)
            st = apply(st, rng.choice(legal_moves(st)))
        out.append(st)
    return out[::3] + [_kings_and_aces(), _asked(), out[-1]]


POSITIONS = _positions()
NEAR = {kind: [p for p in POSITIONS if any(type(m) is kind for m in legal_moves(p))]
        for kind in SHAPES}


def _snapshot(st: GameState) -> tuple[object, ...]:
    return (st.hands, st.stock, st.pile, st.melds, st.red3, st.scores, st.phase, st.actor)


@pytest.mark.parametrize("kind", list(SHAPES), ids=lambda k: k.__name__)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st_.data())
def test_any_fields_are_played_as_a_listed_move_or_refused(kind: type[Any],
                                                          data: st_.DataObject) -> None:
    near = NEAR[kind]
    like: bool = data.draw(st_.booleans(), label="like a listed move")
    if near and like:
        # A listed move with one field changed (or none): what equality could confuse.
        st = data.draw(st_.sampled_from(near), label="position")
        fields = _values(data.draw(st_.sampled_from([m for m in legal_moves(st)
                                                     if type(m) is kind]), label="listed"))
        i = data.draw(st_.integers(0, len(fields)), label="field changed")
        if i < len(fields):
            fields[i] = data.draw(_twins(fields[i]), label="value")
    else:
        st = data.draw(st_.sampled_from(POSITIONS), label="position")
        fields = [data.draw(WRONG, label=f"field {i}") for i in range(SHAPES[kind])]
    move = kind(*fields)
    assert all(v is f for v, f in zip(_values(move), fields, strict=True))  # kept as given
    before = _snapshot(st)
    try:
        after = apply(st, move)
    except IllegalMoveError as err:
        event("refused")
        assert err.reason and err.move is move
    else:
        event("played")
        listed = [m for m in legal_moves(st) if m == move]
        want = bool if kind is Answer else int
        assert listed and all(type(v) is want for v in _values(move))
        assert _snapshot(after) == _snapshot(apply(st, listed[0]))
    assert _snapshot(st) == before


@settings(max_examples=30, deadline=None)
@given(thing=st_.one_of(st_.none(), st_.integers(), st_.floats(), st_.tuples(st_.integers())))
def test_what_is_no_move_at_all_is_refused(thing: object) -> None:
    if COMPILED:  # mypyc checks ``move: Move | str`` at the call
        with pytest.raises(TypeError, match="object expected"):
            apply(POSITIONS[0], thing)  # type: ignore[arg-type]
        return
    with pytest.raises(IllegalMoveError, match="is not a move"):
        apply(POSITIONS[0], thing)  # type: ignore[arg-type]
