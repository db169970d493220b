"""The parallel-API environment: PettingZoo's parallel, seed and max-cycles checks for every
preset; only the mover acts, everyone else waits; the same games as the AEC environment."""

from __future__ import annotations

import functools
import random
import types
import warnings

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from pettingzoo.test import (  # noqa: E402
    max_cycles_test,
    parallel_api_test,
    parallel_seed_test,
)

from canasta_cli.core import PRESETS, legal_moves  # noqa: E402
from canasta_cli.env import IllegalActionError, aec_env, parallel_env  # noqa: E402
from canasta_cli.env import parallel as parallel_module  # noqa: E402

NAMES = list(PRESETS)


@pytest.mark.parametrize("name", NAMES)
def test_pettingzoo_parallel_seed_and_max_cycles_tests(name: str) -> None:
    with warnings.catch_warnings():
        # PettingZoo warns about dict observations (it wants a bare Box), as for its own
        # classic games with action masks.
        warnings.simplefilter("ignore")
        parallel_api_test(parallel_env(name), num_cycles=1000)
        parallel_seed_test(lambda: parallel_env(name))
        max_cycles_test(types.SimpleNamespace(
            env=functools.partial(parallel_module.env, name),
            parallel_env=functools.partial(parallel_module.parallel_env, name)))


def test_the_module_itself_is_a_pettingzoo_environment_module() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        max_cycles_test(parallel_module)


@pytest.mark.parametrize("name", ["classic", "three-player-cutthroat", "six-player"])
def test_only_the_mover_acts_and_the_games_are_the_aec_games(name: str) -> None:
    par = parallel_env(name, max_hands=1, illegal="raise")
    seq = aec_env(name, max_hands=1)
    obs, infos = par.reset(seed=5)
    seq.reset(seed=5)
    rng = random.Random(5)
    wait = par.wait
    assert wait == seq.table.size and par.action_space("seat_0").n == wait + 1
    cycles = 0
    total = dict.fromkeys(par.possible_agents, 0.0)
    while par.agents:
        state = seq.game_state
        mover = seq.agent_selection
        assert set(obs) == set(par.agents) and set(infos) == set(par.agents)
        for agent in par.agents:
            mask = obs[agent]["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (wait + 1,)
            if agent == mover:
                assert mask[wait] == 0
                assert np.flatnonzero(mask).tolist() == sorted(
                    seq.table.indices(legal_moves(state)))
            else:
                assert np.flatnonzero(mask).tolist() == [wait]
            assert obs[agent]["observation"].tolist() == \
                seq.observe(agent)["observation"].tolist()
        legal = np.flatnonzero(obs[mover]["action_mask"])
        action = int(legal[rng.randrange(len(legal))])
        actions = {a: (action if a == mover else wait) for a in par.agents}
        obs, rewards, terms, truncs, infos = par.step(actions)
        seq.step(action)
        cycles += 1
        assert rewards == {a: seq.rewards[a] for a in rewards}
        for a, r in rewards.items():
            total[a] += r
        assert not any(truncs.values()) and all(i == {} for i in infos.values())
    assert all(terms.values()) and par.cycles == cycles > 50
    assert sum(total.values()) == pytest.approx(0.0) and any(total.values())
    assert seq.game_state.is_over


def test_illegal_actions_wait_or_raise() -> None:
    par = parallel_env("two-player")
    obs, _ = par.reset(seed=3)
    mover = par.game.agent_selection
    other = next(a for a in par.agents if a != mover)
    before = par.game.game_state
    wrong = int(np.flatnonzero(obs[mover]["action_mask"] == 0)[0])
    obs2, rewards, terms, truncs, infos = par.step({mover: wrong, other: 7})
    assert par.game.game_state is before and par.game.agent_selection == mover
    assert "not legal" in infos[mover]["illegal"] and "only action is wait" in infos[other]["illegal"]
    _, _, _, _, infos = par.step({other: par.wait})  # the mover's action is missing
    assert "illegal" in infos[mover] and infos[other] == {}
    assert par.game.game_state is before and par.cycles == 2
    strict = parallel_env("two-player", illegal="raise")
    strict.reset(seed=3)
    start = strict.game.game_state
    with pytest.raises(IllegalActionError, match="not legal"):
        strict.step({mover: wrong, other: strict.wait})
    with pytest.raises(IllegalActionError, match="only action is wait"):
        strict.step({mover: int(np.flatnonzero(obs[mover]["action_mask"])[0]), other: True})
    assert strict.game.game_state is start and strict.cycles == 0


def test_max_cycles_truncates_everyone_and_bad_arguments_are_refused() -> None:
    par = parallel_env("classic", max_cycles=3)
    obs, _ = par.reset(seed=1)
    for _ in range(3):
        mover = par.game.agent_selection
        legal = np.flatnonzero(obs[mover]["action_mask"])
        obs, _, terms, truncs, _ = par.step(
            {a: (int(legal[0]) if a == mover else par.wait) for a in par.agents})
    assert all(truncs.values()) and not any(terms.values()) and par.agents == []
    with pytest.raises(RuntimeError, match="reset"):
        par.step({})
    par.reset(seed=1)
    with pytest.raises(TypeError, match="dict of agent to action"):
        par.step([0, 1])
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="max_cycles"):
            parallel_env("classic", max_cycles=bad)
    with pytest.raises(ValueError, match="illegal"):
        parallel_env("classic", illegal="ignore")
