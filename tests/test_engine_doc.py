"""docs/ENGINE.md stays true: its examples run, and everything the engine produces is listed."""

from __future__ import annotations

import dataclasses
import doctest
import random
import re
from pathlib import Path

import pytest

from canasta_cli.core import PRESETS, GameState, apply, legal_moves, new_game, observation
from canasta_cli.core.reasons import GameEnd, HandEnd
from canasta_cli.core.scoring import SideScore
from canasta_cli.core.state import MeldState

DOC = Path(__file__).resolve().parent.parent / "docs" / "ENGINE.md"
TEXT = DOC.read_text(encoding="utf-8")


def _table_keys(heading: str) -> set[str]:
    """The first-column names of the table under ``heading`` (backquoted words)."""
    part = TEXT.split(heading, 1)[1].split("\n#", 1)[0]
    keys: set[str] = set()
    for line in part.splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            keys.update(re.findall(r"`([a-z_]+)", first))
    return keys


def test_the_examples_run() -> None:
    result = doctest.testfile(str(DOC), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 20
    assert result.failed == 0


def _games() -> list[GameState]:
    states = []
    for name, rules in PRESETS.items():
        for seed in range(3):
            st = new_game(rules.with_options(max_hands=2), seed=seed)
            rng = random.Random(seed)
            while not st.is_over:
                states.append(st)
                st = apply(st, rng.choice(legal_moves(st)))
            states.append(st)
        assert name
    return states


@pytest.fixture(scope="module")
def states() -> list[GameState]:
    return _games()


def test_every_observation_key_is_documented(states: list[object]) -> None:
    seen: set[str] = set()
    turn: set[str] = set()
    for st in states[::7] + states[-1:]:
        obs = observation(st, 0)  # type: ignore[arg-type]
        seen |= set(obs)
        turn |= set(obs["turn"])
    documented = _table_keys("### Observation keys")
    assert seen <= documented, seen - documented
    assert {"winner", "end_reason", "lone_hand", "meld_side", "history"} <= seen
    section = TEXT.split("### Observation keys", 1)[1]
    for key in turn:
        assert f"`{key}`" in section


def test_every_meld_attribute_and_json_key_is_documented(states: list[object]) -> None:
    documented = _table_keys("### Melds")
    attributes = {f.name for f in dataclasses.fields(MeldState) if not f.name.startswith("_")}
    attributes |= {"size", "naturals", "is_canasta", "is_natural", "value"}
    assert attributes <= documented, attributes - documented
    json_keys: set[str] = set()
    for st in states[::50]:
        for row in st.melds:  # type: ignore[attr-defined]
            for m in row:
                if m is not None:
                    json_keys |= set(m.to_json())
    assert json_keys and json_keys <= documented


def test_every_score_part_is_documented() -> None:
    documented = _table_keys("### Scoring a hand")
    parts = {f.name for f in dataclasses.fields(SideScore)}
    assert parts <= documented, parts - documented
    json_names = set(SideScore(0, *([0] * 11)).to_json())
    assert json_names <= documented | parts


def test_every_end_reason_is_documented(states: list[GameState]) -> None:
    hand = _table_keys("### End-of-hand reasons")
    game = _table_keys("### End-of-game reasons")
    produced_hand = {str(e) for e in HandEnd}  # every reason the engine can give
    produced_game = {str(e) for e in (GameEnd.TARGET, GameEnd.DRAW, GameEnd.HAND_LIMIT,
                                      GameEnd.TURN_LIMIT)}  # the engine's; the rest are the referee's
    seen_hand = {r.reason for st in states[-1:] for r in st.results}
    assert {"went_out", "stock_exhausted", "last_red_three", "turn_limit"} <= produced_hand
    assert produced_hand | seen_hand <= hand, (produced_hand | seen_hand) - hand
    assert {"target", "draw", "hand_limit", "turn_limit"} <= produced_game <= game
