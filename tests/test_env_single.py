"""The gymnasium single-agent environment (``single_agent_env``): gymnasium's own checker,
both vector environments, the learner's rewards, partners, and actions off the mask."""

from __future__ import annotations

import random
import warnings
from typing import Any

import pytest

np = pytest.importorskip("numpy")
gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from canasta_cli.env import aec_env  # noqa: E402
from canasta_cli.env.single import CanastaSingleEnv, single_agent_env  # noqa: E402


@pytest.mark.parametrize("name, options", [
    ("two-player", {}), ("classic", {"partner": "learner", "normalize": True}),
    ("three-player-cutthroat", {"seat": 2, "opponents": "builtin:random"})])
def test_gymnasium_check_env_passes(name: str, options: dict[str, Any]) -> None:
    env = single_agent_env(name, max_hands=1, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning either (no infinite bound, say)
        check_env(env, skip_render_check=True)
    assert isinstance(env, gymnasium.Env) and isinstance(env, CanastaSingleEnv)


def _masked(rng: Any, masks: Any) -> Any:
    """A masked random action per sub-environment (0 where the mask is empty: the episode
    just ended, and the vector env resets it at the next step whatever the action)."""
    out = []
    for mask in masks:
        legal = np.flatnonzero(mask)
        out.append(int(rng.choice(legal)) if len(legal) else 0)
    return np.array(out)


def _run_vector(cls: Any, steps: int) -> tuple[list[float], int]:
    def make() -> CanastaSingleEnv:
        return single_agent_env("two-player", opponents="builtin:random", max_hands=1)

    venv = cls([make, make])
    try:
        obs, _ = venv.reset(seed=[1, 2])
        rng = np.random.default_rng(0)
        total, ends = np.zeros(2), 0
        for _ in range(steps):
            assert obs["observation"].shape == (2, 182) and obs["action_mask"].dtype == np.int8
            obs, reward, term, trunc, _ = venv.step(_masked(rng, obs["action_mask"]))
            total += reward
            ends += int(term.sum() + trunc.sum())
    finally:
        venv.close()
    return total.tolist(), ends


def test_sync_and_async_vector_envs_play_the_same_games() -> None:
    """Both vector environments run it, and (seeded alike, fed the same actions) play the
    same games: the same rewards, the same number of episodes ended."""
    sync = _run_vector(gymnasium.vector.SyncVectorEnv, 250)
    assert sync[1] >= 2
    assert _run_vector(gymnasium.vector.AsyncVectorEnv, 250) == sync


def test_rewards_are_the_learner_sides_and_the_game_is_the_aec_game() -> None:
    """The single-agent env is the AEC env with opponents: the same seed and actions give
    the same game, and a step's reward is the learner's side's (summing to the difference
    of the final totals over a whole game)."""
    env = single_agent_env("two-player", opponents="builtin:greedy")
    aec = aec_env("two-player", opponents="builtin:greedy")
    obs, info = env.reset(seed=6)
    aec.reset(seed=6)
    rng = random.Random(6)
    total = 0.0
    terminated = truncated = False
    while not (terminated or truncated):
        assert obs["action_mask"].tolist() == env.action_masks().astype(np.int8).tolist()
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        obs, reward, terminated, truncated, info = env.step(action)
        aec.step(action)
        total += reward
    state = env.game.game_state
    assert state.is_over and state.events() == aec.game_state.events()
    assert total == state.scores[0] - state.scores[1]
    assert not env.action_masks().any() and not obs["action_mask"].any()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


def test_partners_and_an_action_off_the_mask() -> None:
    """partner=None: the opponents' spec plays the partner's seat; a spec of its own; or the
    learner plays it too (each decision from the seat to act).  An action off the mask plays
    nothing and says why."""
    own = single_agent_env("classic", seat=1, opponents="builtin:random",
                           partner="builtin:greedy", max_hands=1)
    assert [s is None for s in _specs(own)] == [False, True, False, False]
    assert _specs(own)[3] == "builtin:greedy"
    both = single_agent_env("classic", seat=1, partner="learner", max_hands=1)
    assert both.game.possible_agents == ["seat_1", "seat_3"]
    obs, _ = both.reset(seed=3)
    seats = set()
    for _ in range(200):
        seats.add(both.game.agent_selection)
        obs, _, term, trunc, _ = both.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if term or trunc:
            break
    assert seats == {"seat_1", "seat_3"}
    env = single_agent_env("two-player", max_hands=1)
    obs, _ = env.reset(seed=2)
    off = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    again, reward, term, trunc, info = env.step(off)
    assert "not legal" in info["illegal"] and reward == 0.0 and not (term or trunc)
    assert again["observation"].tolist() == obs["observation"].tolist()
    for kwargs, message in (({"seat": 2}, "seat must be"), ({"partner": "learner"}, "no partner"),
                            ({"opponents": {0: "builtin:random"}}, "no opponent for seat 1")):
        with pytest.raises(ValueError, match=message):
            single_agent_env("two-player", **kwargs)


def _specs(env: CanastaSingleEnv) -> list[Any]:
    return list(env.game._opponents.specs)


def test_gymnasium_make_builds_it_by_its_id() -> None:
    env = gymnasium.make("canasta_cli.env.single:Canasta-v0", opponents="builtin:random",
                         max_hands=1)
    obs, _ = env.reset(seed=3)
    assert set(obs) == {"observation", "action_mask"}
    check_env(env.unwrapped)
    env.close()


def test_a_game_over_before_the_learners_first_decision_is_skipped() -> None:
    """Seed 1000135: seat 1 goes out concealed on its first turn, before seat 0 or its
    partner decides anything.  reset deals the seed sequence's next game instead, says so,
    and does it the same way every time."""
    env = single_agent_env("classic", opponents="builtin:greedy", partner="learner",
                           max_hands=1)
    aec = aec_env("classic", opponents={1: "builtin:greedy", 3: "builtin:greedy"},
                  max_hands=1)
    aec.reset(seed=1000135)
    assert all(aec.terminations.values())  # the AEC env shows the game as it was
    seen = []
    for _ in range(2):
        obs, info = env.reset(seed=1000135)
        assert info == {"skipped": 1} and obs["action_mask"].any()
        seen.append((env.game.seed_, obs["observation"].tobytes()))
    assert seen[0] == seen[1] and seen[0][0] != 1000135
    env.close()
    aec.close()
