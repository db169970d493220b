"""The search reads an observation once per decision (``Known``) and shuffles with a written-out
``random.shuffle``: the deals, and so the decisions, are those of reading it every deal."""

from __future__ import annotations

import random

import pytest
from test_search import _inference_rows

from canasta_cli.core import PRESETS
from canasta_cli.core.determinize import Known, _shuffle, determinize
from canasta_cli.core.facts import public_facts
from canasta_cli.core.state import GameState


@pytest.mark.parametrize("n", [0, 1, 2, 3, 54, 108, 162])
def test_the_written_out_shuffle_is_random_shuffle(n: int) -> None:
    for seed in range(20):
        mine, theirs = list(range(n)), list(range(n))
        a, b = random.Random(seed), random.Random(seed)
        _shuffle(mine, a)
        b.shuffle(theirs)
        assert mine == theirs and a.getstate() == b.getstate()


class _Subclass(random.Random):
    def random(self) -> float:  # a subclass's own random(): random.shuffle's own path
        return 0.5


def test_a_random_subclass_shuffles_through_its_own_method() -> None:
    mine, theirs = list(range(30)), list(range(30))
    _shuffle(mine, _Subclass(3))
    _Subclass(3).shuffle(theirs)
    assert mine == theirs


def _fields(st: GameState) -> tuple[object, ...]:
    return (st.hands, st.stock, st.pile, st.melds, st.red3, st.seed, st.phase, st.team)


@pytest.mark.parametrize("name", ["classic", "six-player-pairs", "three-player-cutthroat"])
def test_a_known_observation_deals_as_the_observation_does(name: str) -> None:
    rules = PRESETS[name].with_options(max_hands=1)
    rows = 0
    for _st, _seat, history, msg in _inference_rows(rules, 2):
        obs = msg["observation"]
        facts = public_facts(history, obs, rules.decks)
        known = Known(obs, facts, rules)
        a, b = random.Random(rows), random.Random(rows)
        for _ in range(3):  # the same Known again: nothing of it is changed by a deal
            assert _fields(determinize(obs, facts, rules, a, None, known)) == \
                _fields(determinize(obs, facts, rules, b))
        rows += 1
    assert rows >= 5
