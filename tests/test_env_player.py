"""From a policy back to a player: ``as_player`` sees what the environment gives the seat,
and ``canasta bot policy`` plays in a real ``canasta match``."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")

from typer.testing import CliRunner  # noqa: E402

from canasta_cli.__main__ import app  # noqa: E402
from canasta_cli.core import preset  # noqa: E402
from canasta_cli.env import aec_env, as_player  # noqa: E402
from canasta_cli.env.player import PolicyError  # noqa: E402
from canasta_cli.hosting.referee import Referee  # noqa: E402
from canasta_cli.protocol.messages import encode  # noqa: E402
from canasta_cli.seats.policy import PolicySeat  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
POLICIES = ROOT / "tests" / "policies" / "env_policy.py"
runner = CliRunner()


class Recorder:
    """A random policy that keeps every (observation, mask, action) it was given."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seen: list[tuple[list[float], list[int], int]] = []

    def __call__(self, observation: object, mask: object) -> int:
        legal = np.flatnonzero(mask)
        action = int(legal[self.rng.randrange(len(legal))])
        self.seen.append((observation.tolist(), mask.tolist(), action))  # type: ignore[attr-defined]
        return action


@pytest.mark.parametrize("name", ["classic", "two-player", "three-player-cutthroat"])
def test_as_player_sees_exactly_what_the_environment_gives(name: str) -> None:
    """A referee game with a wrapped policy in every seat (seat 0 reading the wire form, the
    others the in-process form), then the same seed and actions through the environment:
    every observation vector and mask is the same, decision by decision."""
    rules = preset(name).with_options(max_hands=1)
    recorders = [Recorder(s) for s in range(rules.players)]
    players = [as_player(r) for r in recorders]
    wired = players[0]
    seats = [PolicySeat("wire", lambda msg: wired(json.loads(encode(msg))))]
    seats += [PolicySeat(f"p{s}", players[s]) for s in range(1, rules.players)]
    result = Referee(seats, rules).play(1, seed=21)
    assert all(s["status"] == "OK" for s in result.seats)
    env = aec_env(rules)
    env.reset(seed=21)
    taken = [0] * rules.players
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        vec, mask, action = recorders[seat].seen[taken[seat]]
        taken[seat] += 1
        assert obs["observation"].tolist() == vec
        assert obs["action_mask"].tolist() == mask
        env.step(action)
    assert taken == [len(r.seen) for r in recorders]
    assert env.game_state.scores == result.scores


def test_a_policy_off_the_mask_is_a_clear_failure() -> None:
    player = as_player(lambda obs, mask: int(np.flatnonzero(mask == 0)[0]))
    seats = [PolicySeat("bad", player), PolicySeat("other", as_player(Recorder(1)))]
    result = Referee(seats, preset("two-player").with_options(max_hands=1)).play(
        1, seed=2)
    assert result.seats[0]["status"] == "CRASHED"
    assert "not legal here" in json.dumps(result.seats[0])
    with pytest.raises(PolicyError, match="no ruleset"):
        as_player(lambda o, m: 0).choose({"type": "act", "id": 1, "observation": {}})


def _policy_bot(*args: str) -> str:
    return f"{sys.executable} -m canasta_cli.cli bot policy {POLICIES} " + " ".join(args)


@pytest.mark.parametrize("extra", [(), ("--function", "load", "--arg", "first")])
def test_bot_policy_plays_a_real_match(extra: tuple[str, ...]) -> None:
    result = runner.invoke(app, ["match", "--rules", "two-player", "--set", "max_hands=1",
                                 "--games", "2", "--seed", "4", "--json",
                                 "-s", _policy_bot(*extra), "-s", "builtin:random"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert len(data["games"]) == 2
    for game in data["games"]:
        me = game["seats"][0]
        assert me["status"] == "OK" and me["decisions"] > 10 and me["default_moves"] == 0


def test_bot_policy_errors_are_one_line() -> None:
    for args, message in ((["nowhere.py"], "no such file"),
                          ([str(POLICIES), "--function", "missing"], "no function missing"),
                          ([str(POLICIES), "--function", "1x"], "Python name"),
                          (["canasta_cli.no_such_module"], "cannot import")):
        result = runner.invoke(app, ["bot", "policy", *args])
        assert result.exit_code == 2, result.output
        assert message in result.output and "Traceback" not in result.output


def test_bench_env_runs_and_prints_the_ratio() -> None:
    result = runner.invoke(app, ["bench", "env", "-r", "two-player", "--decisions", "300",
                                 "--rounds", "2", "--games", "2"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("load average at start:")
    assert sum(1 for line in lines if line.startswith("round ")) == 2
    for label in ("AEC env/engine", "parallel env/engine", "single-agent env/engine (games)"):
        assert any(line.startswith(f"{label}: median") for line in lines), label
    assert lines[-1].startswith("load average at end:")
    bad = runner.invoke(app, ["bench", "env", "-r", "nope"])
    assert bad.exit_code == 2 and "unknown preset" in bad.output


def test_bench_env_slices_play_the_games_one_run_would() -> None:
    """The bench's two sides take turns in slices: a side run in slices plays exactly the
    decisions and games it would in one go (the game goes on across slices)."""
    from canasta_cli.bench.env import EngineRandom, EnvRandom
    rules = preset("two-player")
    whole_engine, whole_env = EngineRandom(rules, 3), EnvRandom(rules, 3)
    whole_engine.run(1500)
    whole_env.run(1500)
    cut_engine, cut_env = EngineRandom(rules, 3), EnvRandom(rules, 3)
    for k in (500, 1, 499, 500):
        cut_engine.run(k)
        cut_env.run(k)
    assert cut_engine.game == whole_engine.game
    assert cut_engine.state.events() == whole_engine.state.events()
    assert cut_env.game == whole_env.game
    assert cut_env.env.game_state.events() == whole_env.env.game_state.events()
    assert cut_env.env.moves_made == whole_env.env.moves_made > 0


def test_bench_env_parts_prints_each_part() -> None:
    result = runner.invoke(app, ["bench", "env", "-r", "two-player", "--decisions", "300",
                                 "--rounds", "1", "--parts"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "where an environment step's time goes" in out and "its own work" in out
    for label in ("the AEC API", "the observation vector", "the mask:",
                  "the agent's masked pick", "the public-facts tracker", "the rest"):
        line = next(x for x in out.splitlines() if x.strip().startswith(label))
        float(line.split(": ")[-1].split(" us")[0])  # a figure in microseconds
        assert line.endswith("%)")


def test_bench_env_parts_without_the_tracker_never_counts_unseen_cards_below_zero() -> None:
    """The run without the tracker reads stale facts: a three-player hand that grew past them
    (here by decision 2,100 of seed 2) once made a count of unseen cards negative and
    ``bench env --parts`` crash on the three-player presets."""
    from canasta_cli.bench.env import EnvParts
    for name in ("three-player", "three-player-cutthroat"):
        run = EnvParts(preset(name), 2, track=False)
        assert run.run(4000) > 0 and run.game >= 1
        assert bytes(run.env.tracker.hidden) == run.env.tracker.pack


def test_bench_env_parts_play_the_games_they_stand_for() -> None:
    """With every part, the stripped loop plays the very decisions of the environment run;
    without the mask (a pick among legal_moves), those of the bare engine's run."""
    from canasta_cli.bench.env import EngineRandom, EnvParts, EnvRandom
    rules = preset("two-player")
    env, whole = EnvRandom(rules, 5), EnvParts(rules, 5)
    engine, bare = EngineRandom(rules, 5), EnvParts(rules, 5, mask=False)
    for run in (env, whole, engine, bare):
        run.run(1200)
    assert whole.game == env.game and engine.game == bare.game
    assert whole.env.game_state.events() == env.env.game_state.events()
    assert bare.env.game_state.events() == engine.state.events()
    assert whole.env.game_state.events() != engine.state.events()
    # The tracker followed the same events (the hand in progress's facts).
    assert all(whole.env.tracker.facts(s) == env.env.tracker.facts(s) for s in range(2))
    assert whole.env.tracker.hidden == env.env.tracker.hidden
