"""The training example (examples/train_baseline.py) in a few seconds: behaviour cloning and
PPO steps run and change the weights, the weights save and load (as ``canasta bot policy``
loads them), and the loaded policy plays legal one-hand games of classic through
``as_player``.  The full run is documented in examples/README.md and docs/ML.md."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from canasta_cli.botdev.policy import load_policy  # noqa: E402
from canasta_cli.env import as_player  # noqa: E402
from canasta_cli.tournament.evaluate import evaluate  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "train_baseline.py"
KEPT = EXAMPLE.parent / "baseline_greedy.npz"


def _module() -> Any:
    """The example, loaded as ``canasta bot policy`` loads a policy file."""
    load = load_policy(str(EXAMPLE), "load", None)  # the factory itself, not called
    import sys

    return sys.modules[load.__module__]


def test_a_tiny_training_runs_saves_and_loads(tmp_path: Path) -> None:
    tb = _module()
    out = tmp_path / "w.npz"
    cfg = tb.Config(bc_steps=64, steps=64, envs=2, horizon=16, minibatch=32, hidden=16,
                    eval_deals=0, seed=3, out=out)
    logs: list[str] = []
    net = tb.train(cfg, log=logs.append)
    assert out.is_file() and any("saved" in line for line in logs)
    fresh = tb.Net(net.params["W1"].shape[0], net.params["Wp"].shape[1], 16, 3)
    assert any(not np.allclose(fresh.params[k], net.params[k]) for k in tb.NAMES)  # it learned
    assert all(np.isfinite(v).all() for v in net.params.values())

    policy = load_policy(str(EXAMPLE), "load", str(out))
    assert policy.normalize is True  # as_player normalizes its observations
    for k in tb.NAMES:
        assert np.array_equal(policy.params[k], net.params[k])

    result = evaluate(lambda: as_player(policy), "builtin:greedy", deals=1, seed=11)
    assert result.games == 2  # one duplicate deal, both seatings, one hand each
    assert not any(result.failures.values())  # every move legal, none timed out


@pytest.mark.parametrize("kept", [KEPT, EXAMPLE.parent / "baseline_dagger.npz",
                                  EXAMPLE.parent / "baseline_hour.npz"])
def test_the_kept_weights_play_a_legal_hand(kept: Path) -> None:
    if not kept.is_file():
        pytest.skip("the kept weights are not in this checkout")
    policy = load_policy(str(EXAMPLE), "load", str(kept))
    result = evaluate(lambda: as_player(policy), "builtin:greedy", deals=1, seed=5)
    assert result.games == 2 and not any(result.failures.values())


@pytest.mark.parametrize(("workers", "opponents"), [(1, None), (1, "builtin:random"),
                                                     (2, "builtin:normal")])
def test_dagger_labels_the_learner_s_own_decisions_with_the_teacher_s_moves(
        workers: int, opponents: str | None) -> None:
    """The DAgger phase: the teacher (here greedy, quick) is asked at each of the learner's
    decisions with a choice; every label is a legal action of the observation it labels,
    and after a few hundred labels the policy agrees with the teacher more than at first.
    The same in the trainer's own environments, in environments with other opponents, and
    in worker processes."""
    tb = _module()
    cfg = tb.Config(bc_steps=0, bc_minutes=0, steps=0, minutes=0, envs=2, horizon=16,
                    minibatch=64, hidden=32, eval_deals=0, seed=5, teacher="builtin:greedy",
                    dagger_minutes=10, dagger_steps=640, dagger_updates=16, beta=0.5,
                    workers=workers, dagger_opponents=opponents)
    trainer = tb.Trainer(cfg, log=lambda line: None)
    try:
        trainer.imitate()
        labels = trainer.dagger
        assert len(labels) >= 200
        assert trainer.total_steps == 640  # every learner step counted once
        assert all(m[a] == 1 and m.sum() > 1 for _, m, a in labels)
        x = np.stack([b[0] for b in labels])
        m = np.stack([b[1] for b in labels])
        a = np.array([b[2] for b in labels])
        agree = float((trainer.net.forward(x, m)[2].argmax(1) == a).mean())
        fresh = tb.Net(x.shape[1], m.shape[1], 32, 5)
        assert agree > float((fresh.forward(x, m)[2].argmax(1) == a).mean()) + 0.2
    finally:
        trainer.close()
