"""REINFORCE by self-play on the Canasta environment, with numpy alone.

A tiny masked policy (one hidden layer of tanh units over the observation vector, a logit
per action of the fixed table, softmax over the legal ones) plays both seats of one-hand
two-player games against itself.  Each seat's decisions are pushed toward the hand's
reward for its side (points won minus points lost, in thousands), less a running baseline;
Adam does the steps.  Every ``--eval-every`` games it plays the greedy policy against a
uniformly random player on fresh deals and prints the learning curve.

    python examples/reinforce.py --minutes 4 --out examples/weights.npz
    canasta tournament --rules two-player --set max_hands=1 --games 50 --out /tmp/t \\
        --bot "rl=canasta bot policy examples/reinforce.py --function load --arg examples/weights.npz" \\
        --bot random=builtin:random

``load(path)`` returns the trained policy, a function (observation, mask) -> action index:
what ``canasta bot policy`` runs as a protocol bot.  Needs ``pip install 'canasta[rl]'``.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from canasta_cli.env import aec_env

RULES = "two-player"


class Policy:
    """logits = tanh(x W1 + b1) W2 + b2, over the legal actions only."""

    def __init__(self, n_obs: int, n_act: int, hidden: int, scale: np.ndarray,
                 seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.params = {
            "W1": rng.normal(0, 1 / np.sqrt(n_obs), (n_obs, hidden)).astype(np.float32),
            "b1": np.zeros(hidden, np.float32),
            "W2": np.zeros((hidden, n_act), np.float32),
            "b2": np.zeros(n_act, np.float32),
        }
        self.scale = scale.astype(np.float32)

    def forward(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                  np.ndarray, np.ndarray]:
        p = self.params
        x = obs * self.scale
        h = np.tanh(x @ p["W1"] + p["b1"])
        legal = np.flatnonzero(mask)
        z = h @ p["W2"][:, legal] + p["b2"][legal]
        z -= z.max()
        probs = np.exp(z)
        probs /= probs.sum()
        return x, h, legal, probs

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """The greedy action: what the trained player plays."""
        _, _, legal, probs = self.forward(obs, mask)
        return int(legal[int(np.argmax(probs))])

    def save(self, path: Path) -> None:
        np.savez(path, scale=self.scale, **self.params)


def load(path: str) -> Policy:
    """The trained policy in ``path`` (a .npz written by ``--out``)."""
    data = np.load(path)
    w1 = data["W1"]
    policy = Policy(w1.shape[0], data["W2"].shape[1], w1.shape[1], data["scale"])
    policy.params = {k: data[k] for k in ("W1", "b1", "W2", "b2")}
    return policy


def obs_scale(env: Any) -> np.ndarray:
    """Divide each field by its bound (points by 1000), so that inputs are about 0..1."""
    space = env.observation_space(env.possible_agents[0])["observation"]
    high = np.where(np.isfinite(space.high), space.high, 1000.0)
    high[env.encoder.layout.slice("turn").stop - 1] = 1000.0  # opening_total, in points
    high[env.encoder.layout.slice("minimums")] = 1000.0
    high[env.encoder.layout.slice("discards")] = 10.0
    return 1.0 / np.maximum(high, 1.0)


class Adam:
    def __init__(self, params: dict[str, np.ndarray], lr: float) -> None:
        self.lr, self.t = lr, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]) -> None:
        self.t += 1
        for k, g in grads.items():
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            mh = self.m[k] / (1 - 0.9 ** self.t)
            vh = self.v[k] / (1 - 0.999 ** self.t)
            params[k] += self.lr * mh / (np.sqrt(vh) + 1e-8)  # ascent: more reward


def play_hand(env: Any, policy: Policy, rng: np.random.Generator, seed: int,
              sample: tuple[bool, ...], opponent_random: tuple[bool, ...] = (False, False)
              ) -> tuple[list[list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]]],
                         list[float]]:
    """One game; per seat its decisions (x, h, legal, probs, chosen position) and reward."""
    env.reset(seed=seed)
    steps: list[list[Any]] = [[] for _ in env.possible_agents]
    rewards = [0.0] * len(env.possible_agents)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        seat = env.possible_agents.index(agent)
        if term or trunc:
            rewards[seat] = float(reward)
            env.step(None)
            continue
        mask = obs["action_mask"]
        if opponent_random[seat]:
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.integers(len(legal))]))
            continue
        x, h, legal, probs = policy.forward(obs["observation"], mask)
        pick = int(rng.choice(len(legal), p=probs)) if sample[seat] else int(np.argmax(probs))
        steps[seat].append((x, h, legal, probs, pick))
        env.step(int(legal[pick]))
    return steps, rewards


def evaluate(env: Any, policy: Policy, games: int, seed: int) -> tuple[float, float]:
    """Greedy policy against a uniformly random player, seats alternating: win rate and mean
    points per game for the policy."""
    rng = np.random.default_rng(seed)
    wins = total = 0.0
    for g in range(games):
        me = g % 2
        rand = (me == 1, me == 0)
        _, rewards = play_hand(env, policy, rng, seed + g, (False, False), rand)
        r = rewards[me]
        wins += 1.0 if r > 0 else 0.5 if r == 0 else 0.0
        total += r
    return wins / games, total / games


def train(minutes: float, out: Path, seed: int, eval_every: int, eval_games: int,
          hidden: int, lr: float, batch: int) -> None:
    env = aec_env(RULES, max_hands=1)
    n_obs = env.encoder.size
    n_act = env.table.size
    policy = Policy(n_obs, n_act, hidden, obs_scale(env), seed)
    opt = Adam(policy.params, lr)
    rng = np.random.default_rng(seed)
    deals = random.Random(seed)
    baseline = 0.0
    start = time.monotonic()
    games = 0
    grads = {k: np.zeros_like(v) for k, v in policy.params.items()}
    win, pts = evaluate(env, policy, eval_games, 10**9)
    print(f"{'games':>7} {'minutes':>8} {'win% vs random':>15} {'points/game':>12}", flush=True)
    print(f"{games:>7} {0.0:>8.1f} {100 * win:>15.1f} {pts:>12.0f}", flush=True)
    while time.monotonic() - start < minutes * 60:
        steps, rewards = play_hand(env, policy, rng, deals.randrange(2**62), (True, True))
        games += 1
        p = policy.params
        for seat, seat_steps in enumerate(steps):
            g = rewards[seat] / 1000.0
            adv = g - baseline
            baseline += 0.01 * (g - baseline)
            if not seat_steps or adv == 0.0:
                continue
            for x, h, legal, probs, pick in seat_steps:
                dz = -probs * adv
                dz[pick] += adv
                grads["b2"][legal] += dz
                grads["W2"][:, legal] += np.outer(h, dz)
                dh = (p["W2"][:, legal] @ dz) * (1 - h * h)
                grads["b1"] += dh
                grads["W1"] += np.outer(x, dh)
        if games % batch == 0:
            opt.step(p, {k: v / batch for k, v in grads.items()})
            for v in grads.values():
                v.fill(0)
        if games % eval_every == 0:
            win, pts = evaluate(env, policy, eval_games, 10**9)
            print(f"{games:>7} {(time.monotonic() - start) / 60:>8.1f} {100 * win:>15.1f}"
                  f" {pts:>12.0f}", flush=True)
    policy.save(out)
    print(f"saved {out} after {games} self-play games", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=4.0)
    ap.add_argument("--out", type=Path, default=Path("examples/weights.npz"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eval-every", type=int, default=500)
    ap.add_argument("--eval-games", type=int, default=100)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--lr", type=float, default=0.003)
    ap.add_argument("--batch", type=int, default=8)
    a = ap.parse_args()
    train(a.minutes, a.out, a.seed, a.eval_every, a.eval_games, a.hidden, a.lr, a.batch)


if __name__ == "__main__":
    main()
