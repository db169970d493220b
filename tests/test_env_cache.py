"""The environment's observation caches (per seat, per side, per row of melds, the
tracker's facts) never serve a stale part: at every step of random games the vector the
environment returns equals one built by a fresh encoder, whose caches are empty."""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")

from canasta_cli.env import aec_env  # noqa: E402
from canasta_cli.env.observe import Encoder  # noqa: E402


@pytest.mark.parametrize("name", ["classic", "three-player-cutthroat", "six-player"])
def test_cached_observations_equal_fresh_ones(name: str) -> None:
    env = aec_env(name, max_hands=2)
    rng = random.Random(17)
    env.reset(seed=17)
    steps = hands = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        state = env.game_state
        seat = env.possible_agents.index(agent)
        fresh = Encoder(env.rules).from_state(state, seat, env.tracker.copy())
        assert obs["observation"].dtype == fresh.dtype
        assert obs["observation"].tolist() == fresh.tolist(), (name, steps)
        hands = len(state.results)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
        steps += 1
    assert steps > 100 and hands >= 1
