"""Opponents inside the environment (``aec_env(..., opponents=...)``): the other seats'
players move inside ``reset`` and ``step``, the games are those of ``canasta match`` with the
same seats and seed, the rewards are the learner's, and bad specs are refused."""

from __future__ import annotations

import json
import random
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from pettingzoo.test import (  # noqa: E402
    api_test,
    parallel_api_test,
    parallel_seed_test,
    seed_test,
)

from canasta_cli.core import preset  # noqa: E402
from canasta_cli.env import OpponentError, aec_env, parallel_env  # noqa: E402
from canasta_cli.env.aec import side_rewards  # noqa: E402
from canasta_cli.hosting.match import MatchPlan, run  # noqa: E402
from canasta_cli.hosting.records import load_record  # noqa: E402
from canasta_cli.players import GreedyPlayer  # noqa: E402
from canasta_cli.seats import PolicySeat  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
POLICIES = ROOT / "tests" / "policies" / "env_policy.py"


def _bot(*args: str) -> str:
    """A policy of tests/policies/env_policy.py as a protocol bot's command line."""
    return f"{sys.executable} -m canasta_cli.cli bot policy {POLICIES} " + " ".join(args)


def last_legal(observation: Any, mask: Any) -> int:
    """``env_policy.policy``: the last legal action."""
    return int(np.flatnonzero(mask)[-1])


def first_legal(observation: Any, mask: Any) -> int:
    """``env_policy.load("first")``: the first legal action."""
    return int(np.flatnonzero(mask)[0])


def _play(env: Any, policy: Any) -> tuple[dict[str, float], int]:
    """One game through the AEC API, the learner's agents all playing ``policy``: each
    agent's rewards summed, and the learner's decisions."""
    totals = dict.fromkeys(env.possible_agents, 0.0)
    decisions = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(policy(obs["observation"], obs["action_mask"]))
        decisions += 1
    return totals, decisions


def _events(env: Any) -> list[Any]:
    return [json.loads(json.dumps(e.view(-1))) for e in env.game_state.events()]


# (rules, the match's seats, the env's opponents, the learner's policy): the learner's seats
# are played in the match by the policy as a bot process.
CASES = [
    ("two-player", (_bot(), "builtin:random"), "builtin:random", last_legal),
    ("classic", (_bot(), "builtin:normal", _bot(), "builtin:normal"),
     {1: "builtin:normal", 3: "builtin:normal"}, last_legal),
    ("three-player", ("builtin:greedy", _bot("--function", "load", "--arg", "first"),
                      "builtin:easy"),
     ["builtin:greedy", None, "builtin:easy"], first_legal),
    ("two-player", (_bot(), _bot("--function", "load", "--arg", "first")),
     _bot("--function", "load", "--arg", "first"), last_legal),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_opponents_play_the_games_of_canasta_match(case: int, tmp_path: Path) -> None:
    """The same seats and seed in ``canasta match`` (in-process: its MatchPlan) and in the
    environment, the learner's seats played by the same policy (a bot process in the match):
    the same events, one by one, the same scores, and the learner's decisions.  Built-ins
    are seeded as the match seeds them; the last case's opponent is a bot process in both."""
    name, seats, opponents, policy = CASES[case]
    rules = preset(name).with_options(max_hands=1)
    seed = 11 + case
    result = run(MatchPlan(seats=seats, rules=rules, seed=seed, record_dir=tmp_path))
    game = result.games[0]
    assert all(s["status"] == "OK" for s in game.seats), game.seats
    record = load_record(tmp_path / "game-0001.jsonl")
    env = aec_env(rules, opponents=opponents)
    try:
        env.reset(seed=seed)
        totals, decisions = _play(env, policy)
        assert _events(env) == [line["event"] for line in record if line["type"] == "event"]
        assert env.game_state.scores == game.scores
        assert decisions == sum(game.seats[int(a[5:])]["decisions"]
                                for a in env.possible_agents) > 10
        # The learner's reward: its side's hand points less the other sides' mean.
        per_side = side_rewards(game.hand_scores[0])
        for agent, total in totals.items():
            assert total == per_side[rules.side_of(int(agent[5:]))]
    finally:
        env.close()


def test_only_the_learners_agents_and_their_rewards_add_up() -> None:
    """Seat 0 alone by default; the partner's seat too when the dict leaves it out; the
    opponents' moves never reach the agent loop; over a whole game the rewards sum to the
    difference of the final totals."""
    env = aec_env("two-player", opponents="builtin:greedy")
    assert env.possible_agents == ["seat_0"]
    env.reset(seed=4)
    rng = random.Random(4)
    totals, _ = _play(env, lambda o, m: int(rng.choice(np.flatnonzero(m).tolist())))
    state = env.game_state
    assert state.is_over and len(state.results) >= 1
    assert totals["seat_0"] == state.scores[0] - state.scores[1]
    partners = aec_env("classic", opponents={1: "builtin:greedy", 3: "builtin:greedy"})
    assert partners.possible_agents == ["seat_0", "seat_2"]
    assert aec_env("classic", opponents=[None, "builtin:random", "builtin:greedy",
                                         "builtin:random"]).possible_agents == ["seat_0"]
    assert aec_env("classic").possible_agents == [f"seat_{i}" for i in range(4)]


def test_policy_and_seat_opponents_and_the_pettingzoo_tests() -> None:
    """A policy opponent sees the very vector and mask the environment gives its seat (a
    policy is called with them, no messages); a Seat plays as given; PettingZoo's API, seed
    and parallel tests pass with opponents inside."""
    seen: list[tuple[int, int]] = []

    def spy(observation: Any, mask: Any) -> int:
        seen.append((observation.shape[0], int(mask.sum())))
        return first_legal(observation, mask)

    env = aec_env("three-player", opponents={1: spy, 2: PolicySeat("g", GreedyPlayer())},
                  max_hands=1)
    env.reset(seed=2)
    _play(env, last_legal)
    size = env.observation_space("seat_0")["observation"].shape[0]
    assert seen and all(n == size and legal >= 1 for n, legal in seen)
    pairs = {1: "builtin:random", 3: "builtin:random"}
    with warnings.catch_warnings():
        # PettingZoo warns about dict observations (it wants a bare Box), as for its own
        # classic games with action masks.
        warnings.simplefilter("ignore")
        api_test(aec_env("classic", opponents="builtin:greedy", max_hands=1), num_cycles=300)
        seed_test(lambda: aec_env("two-player", opponents="builtin:random", max_hands=1),
                  num_cycles=300)
        parallel_api_test(parallel_env("classic", opponents=pairs, max_hands=1),
                          num_cycles=300)
        parallel_seed_test(lambda: parallel_env("classic", opponents=pairs, max_hands=1))


def test_parallel_env_with_opponents_is_the_aec_game() -> None:
    """The parallel env with opponents: the learner's agents only, only the mover acts, and
    the game and rewards are the AEC env's with the same seed and moves."""
    par = parallel_env("classic", opponents={1: "builtin:normal", 3: "builtin:normal"},
                       max_hands=1)
    aec = aec_env("classic", opponents={1: "builtin:normal", 3: "builtin:normal"},
                  max_hands=1)
    obs, _ = par.reset(seed=9)
    aec.reset(seed=9)
    assert sorted(obs) == ["seat_0", "seat_2"]
    got = dict.fromkeys(obs, 0.0)
    while par.agents:
        mover = aec.agent_selection
        mask = obs[mover]["action_mask"]
        assert mask[par.wait] == 0
        other = next(a for a in par.agents if a != mover)
        assert obs[other]["action_mask"].tolist() == par._wait_mask.tolist()
        action = last_legal(None, mask[:par.wait])
        obs, rewards, *_ = par.step({mover: action, other: par.wait})
        aec.step(action)
        for a, r in rewards.items():
            got[a] += r
    assert par.game.game_state.events() == aec.game_state.events()
    want = side_rewards(aec.game_state.results[0].totals)
    assert got == {"seat_0": want[0], "seat_2": want[0]}


def test_failing_and_bad_opponents_are_clear_errors() -> None:
    """A policy off its mask and a bot that breaks are OpponentError (a reset plays on);
    a bad spec or seating is refused when the environment is made."""
    env = aec_env("two-player", opponents=lambda o, m: int(np.flatnonzero(m == 0)[0]))
    with pytest.raises(OpponentError, match="seat 1 .* not a legal action"):
        env.reset(seed=1)
        _play(env, last_legal)
    bad = aec_env("two-player", opponents=_bot("--function", "illegal"), max_hands=1)
    try:
        with pytest.raises(OpponentError, match="seat 1"):
            bad.reset(seed=1)
            _play(bad, last_legal)
    finally:
        bad.close()
    for opponents, message in (
            ("builtin:nosuch", "unknown built-in"), (3, "an opponent is"),
            ({5: "builtin:random"}, "not a seat"), (["builtin:random"], "one spec"),
            ({0: "builtin:random", 1: "builtin:random"}, "every seat has an opponent")):
        with pytest.raises(ValueError, match=message):
            aec_env("two-player", opponents=opponents)
    seat = PolicySeat("g", GreedyPlayer())
    with pytest.raises(ValueError, match="a Seat plays one seat"):
        aec_env("classic", opponents={1: seat, 3: seat})
    import copy
    with pytest.raises(TypeError, match="cannot be copied"):
        copy.deepcopy(aec_env("two-player", opponents="builtin:random"))
