"""Bounded observations: every field of the observation's ``Box`` is finite and never
passed, and ``normalize=True`` scales every feature into [-1, 1] as docs/ML.md says, in the
environment and in ``as_player`` alike."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from canasta_cli.core import PRESETS, preset  # noqa: E402
from canasta_cli.env import aec_env, as_player  # noqa: E402
from canasta_cli.env.observe import Encoder, score_bound  # noqa: E402
from canasta_cli.hosting.referee import Referee  # noqa: E402
from canasta_cli.protocol.messages import encode  # noqa: E402
from canasta_cli.seats.policy import PolicySeat  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_step_of_random_games_is_within_the_bounds(name: str) -> None:
    """Two hands of masked random play per preset (a low target's end of the game too), every
    seat observed at every step: the raw vector within the raw Box (finite everywhere), the
    normalized one within [-1, 1] and its own Box, and equal to the raw one scaled and
    clipped."""
    raw = aec_env(name, max_hands=2, target=1500)
    norm = aec_env(name, max_hands=2, target=1500, normalize=True)
    box = raw.observation_space("seat_0")["observation"]
    nbox = norm.observation_space("seat_0")["observation"]
    assert np.isfinite(box.low).all() and np.isfinite(box.high).all()
    assert (nbox.low >= -1).all() and (nbox.high <= 1).all()
    scale = np.array(raw.encoder.layout.scales(), np.float32)
    rng = random.Random(name)
    for seed in (1, 2, 3):
        raw.reset(seed=seed)
        norm.reset(seed=seed)
        steps = 0
        while not raw.terminations[raw.agent_selection]:
            for agent in raw.possible_agents:
                vec = raw.observe(agent)["observation"]
                got = norm.observe(agent)["observation"]
                assert box.contains(vec) and nbox.contains(got), agent
                assert got.tolist() == np.clip(vec * scale, -1, 1).tolist()
            mask = raw.observe(raw.agent_selection)["action_mask"]
            action = rng.choice(np.flatnonzero(mask).tolist())
            raw.step(action)
            norm.step(action)
            steps += 1
        assert steps > 50 and raw.game_state.is_over
        final = raw.observe(raw.agent_selection)["observation"]
        assert box.contains(final) and nbox.contains(norm.observe(norm.agent_selection)[
            "observation"])


def test_the_scales_are_those_documented() -> None:
    """The documented scales, field by field (classic): counts of a kind over the pack's
    count, sizes over the pack's size, scores over the target, minimums and the opening
    total over 150; the score bound is finite and the Box's."""
    rules = preset("classic")
    layout = Encoder(rules).layout
    scales = layout.scales()

    def of(field: str) -> list[float]:
        return scales[layout.slice(field)]

    assert of("hand")[:11] == [1 / 8] * 11 and of("hand")[11:] == [1 / 8, 1 / 4, 1 / 4, 1 / 4]
    assert of("discards")[:15] == of("hand") and of("known")[:15] == of("hand")
    assert of("hand_sizes") == of("pile_size") * 4 == [1 / 108] * 4
    assert of("scores") == [1 / 5000] * 2 and of("minimums") == [1 / 150] * 2
    assert of("turn") == [1, 1, 1, 1, 1 / 150] and of("red_threes") == [1 / 4] * 2
    melds = of("melds")[:25]
    assert melds[:11] == [1 / 8] * 11 and melds[11:22] == [1 / 12] * 11
    assert melds[22:] == [1 / 11, 1 / 11, 1 / 4]
    assert of("phase") == [1] * 5 and of("pile_frozen") == [1]
    low, high = layout.bounds()
    bound = score_bound(rules)
    assert high[layout.slice("scores")].tolist() == [bound] * 2 == (-low[layout.slice(
        "scores")]).tolist()
    assert 100_000 < bound < 16_000_000  # exact in float32
    doc = (ROOT / "docs" / "ML.md").read_text(encoding="utf-8")
    assert "normalize=True" in doc and "| scale" in doc


def test_as_player_normalizes_as_the_environment_does() -> None:
    """A policy played through ``as_player(..., normalize=True)`` (or a policy whose
    ``normalize`` attribute is true) in a referee game sees the normalized vectors the
    environment gives the same seat with the same seed and moves."""
    rules = preset("two-player").with_options(max_hands=1)
    seen: list[list[list[float]]] = [[], []]
    actions: list[list[int]] = [[], []]

    def recorder(seat: int) -> object:
        rng = random.Random(seat)

        def policy(observation: object, mask: object) -> int:
            action = int(rng.choice(np.flatnonzero(mask).tolist()))
            seen[seat].append(observation.tolist())  # type: ignore[attr-defined]
            actions[seat].append(action)
            return action
        return policy

    marked = recorder(1)
    marked.normalize = True  # type: ignore[attr-defined]
    wired = as_player(recorder(0), normalize=True)
    seats = [PolicySeat("wire", lambda msg: wired(json.loads(encode(msg)))),
             PolicySeat("marked", as_player(marked))]
    Referee(seats, rules).play(1, seed=5)
    env = aec_env(rules, normalize=True)
    env.reset(seed=5)
    taken = [0, 0]
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = int(agent[5:])
        assert obs["observation"].tolist() == seen[seat][taken[seat]]
        env.step(actions[seat][taken[seat]])
        taken[seat] += 1
    assert taken == [len(s) for s in seen] and min(taken) > 10
    assert max(max(max(v) for v in s) for s in seen) <= 1.0
