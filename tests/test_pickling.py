"""The engine's values pickle and copy on both builds: moves, events, melds, scores, rules
and whole game states, which then play on exactly as the originals (the compiled build's
classes cannot be made field by field, so each pickles through its constructor)."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import random

import pytest

from canasta_cli.core import PRESETS, Ruleset, apply, legal_moves, new_game
from canasta_cli.core import moves as mv
from canasta_cli.core.events import Event
from canasta_cli.core.melds import MeldState, RowInfo
from canasta_cli.core.scoring import HandResult, SideScore
from canasta_cli.core.state import GameState


def _subclasses(cls: type) -> list[type]:
    out: list[type] = []
    sub: type
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out


VALUE_CLASSES = [Ruleset, MeldState, RowInfo, SideScore, HandResult, *_subclasses(Event),
                 mv.Draw, mv.TakePile, mv.Meld, mv.Add, mv.Discard, mv.Ask, mv.Answer,
                 mv.EndHand]


@pytest.mark.parametrize("cls", VALUE_CLASSES, ids=lambda c: c.__name__)
def test_each_value_constructor_takes_its_fields_in_order(cls: type) -> None:
    """What ``core.pickling.by_fields`` relies on."""
    try:
        params = list(inspect.signature(cls.__init__).parameters)[1:]  # type: ignore[misc]
    except (TypeError, ValueError):
        params = []
    if params in ([], ["args", "kwargs"]) and dataclasses.fields(cls):
        pytest.skip("no signature to read (a compiled constructor): the pure build checks it")
    assert params == [f.name for f in dataclasses.fields(cls) if f.init]


def _played(name: str, seed: int, steps: int) -> tuple[GameState, random.Random]:
    rng = random.Random(seed)
    state = new_game(PRESETS[name], seed=seed)
    for _ in range(steps):
        if state.is_over:
            break
        moves = legal_moves(state)
        state = apply(state, moves[rng.randrange(len(moves))])
    return state, rng


@pytest.mark.parametrize("name", ["classic", "three-player-cutthroat", "six-player-pairs"])
def test_a_game_state_pickles_and_copies_and_plays_on_alike(name: str) -> None:
    state, _ = _played(name, 4, 400)  # melds, pile takes, red threes, a hand's result or two
    events = state.events()
    kinds = {type(e) for e in events}
    assert len(kinds) >= 6
    for event in events:
        assert pickle.loads(pickle.dumps(event)) == event
    for move in legal_moves(state):
        assert pickle.loads(pickle.dumps(move)) == move
    backs: list[GameState] = [pickle.loads(pickle.dumps(state)), copy.deepcopy(state)]
    for back in backs:
        assert back.events() == events and back.hands == state.hands
        assert back.melds == state.melds and back.results == state.results
        a, b = state, back
        rng_a, rng_b = random.Random(9), random.Random(9)
        for _ in range(200):
            if a.is_over:
                break
            la, lb = legal_moves(a), legal_moves(b)
            assert la == lb
            a = apply(a, la[rng_a.randrange(len(la))])
            b = apply(b, lb[rng_b.randrange(len(lb))])
        assert a.events() == b.events()
