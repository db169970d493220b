"""The environment keeps its observations up to date incrementally (per-seat buffers whose
parts are rewritten only when the state fields or tracker facts they come from change; the
tracker's per-seat facts kept event by event).  Over many random games on every preset, at
every step, the vector the environment returns for the seat to act and for another seat
equals the one built from scratch: ``Encoder.from_view`` (the definition) over that seat's
protocol observation and the views of the events it was sent, with a fresh encoder, and
the one a fresh encoder (empty caches) builds from the state."""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")

from canasta_cli.core import PRESETS, observation  # noqa: E402
from canasta_cli.env import aec_env  # noqa: E402
from canasta_cli.env.observe import Encoder  # noqa: E402
from canasta_cli.env.public import PublicTracker  # noqa: E402


@pytest.mark.parametrize("name", list(PRESETS))
def test_incremental_observations_equal_ones_from_scratch(name: str) -> None:
    env = aec_env(name, max_hands=2)
    rules = env.rules
    rng = random.Random(17)
    steps = hands = 0
    for game in range(4):
        env.reset(seed=17 + game)
        views = [PublicTracker(rules.players, rules.decks) for _ in range(rules.players)]
        seen_log = None
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            state = env.game_state
            fresh: list[object] = []
            node = state.log
            while node is not seen_log:
                fresh.append(node[1])
                node = node[0]
            for event in reversed(fresh):
                for s in range(rules.players):
                    views[s].feed_view(event.view(s))  # type: ignore[attr-defined]
            seen_log = state.log
            seat = env.possible_agents.index(agent)
            for s in (seat, rng.randrange(rules.players)):
                got = obs if s == seat else env.observe(env.possible_agents[s])
                vec = got["observation"]
                assert vec.dtype == np.float32
                want = Encoder(rules).from_view(observation(state, s, history=False), views[s])
                assert vec.tolist() == want, (name, game, steps, s)
                assert vec.tolist() == Encoder(rules).from_state(
                    state, s, env.tracker.copy()).tolist()
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        hands += len(env.game_state.results)
    assert steps > 400 and hands >= 4
