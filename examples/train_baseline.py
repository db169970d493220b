"""A baseline that learns to play against the built-ins: cloning, DAgger and PPO, numpy only.

A masked policy (an MLP over the normalized observation: two hidden layers of tanh units, a
logit per action of the fixed table, softmax over the legal ones, and a value head) plays
one-hand classic in ``single_agent_env`` against ``builtin:greedy`` opponents.

1. **Behaviour cloning** (``--bc-minutes``): the greedy opponents' own decisions, recorded
   inside the environments as they are played (their seat's vector and mask, the action they
   chose), are the labels of a cross-entropy loss: the policy starts as an imitation of greedy.
   The learner's own hands (played by the policy) train the value head meanwhile.
2. **PPO** (``--minutes``): clipped surrogate, generalized advantage estimation, an entropy
   bonus and the value loss, over batches of steps from ``--envs`` environments stepped in one
   process; the cloning loss stays in, down-weighted by ``--bc-coef``, so that the policy does
   not forget what it copied while it learns to score more.
3. **DAgger** (``--teacher SPEC --dagger-minutes M``, before PPO): a stronger built-in says
   what it would play at each of the policy's own decisions, and the policy learns those
   labels.  Its games can be played against other opponents (``--dagger-opponents``) and in
   worker processes (``--workers``, one per core: the teacher's search is most of the cost);
   examples/README.md gives the one-hour command for two cores.

The reward is the hand's points for the learner's side less the other side's (``reward="hand"``)
in thousands.  Every ``--eval-every`` seconds the greedy (argmax) policy plays ``evaluate``
against ``builtin:greedy`` on ``--eval-deals`` duplicate deals; each evaluation's weights are
saved next to ``--out`` (``OUT.ckptN.npz``) and the last ones in ``--out``.

    python examples/train_baseline.py --bc-minutes 10 --minutes 20 --out examples/baseline_greedy.npz
    canasta bot policy examples/train_baseline.py --function load --arg examples/baseline_greedy.npz

``load(path)`` returns the trained policy, ``(observation, mask) -> action index`` with
``normalize = True`` (it was trained on normalized observations): what ``as_player`` and
``canasta bot policy`` play.  Needs ``pip install 'canasta[rl]'`` (numpy, gymnasium).
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core: numpy's threads would only contend

import numpy as np  # noqa: E402

RULES = "classic"
NAMES = ("W1", "b1", "W2", "b2", "Wp", "bp", "Wv", "bv")


class Net:
    """x -> tanh(x W1 + b1) -> tanh(. W2 + b2) -> logits (. Wp + bp) and value (. Wv + bv)."""

    normalize = True  # trained on normalized observations: as_player normalizes them too

    def __init__(self, n_obs: int, n_act: int, hidden: int = 128, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)

        def w(n_in: int, n_out: int, gain: float = 1.0) -> np.ndarray:
            return (rng.normal(0, gain / np.sqrt(n_in), (n_in, n_out))).astype(np.float32)

        self.params: dict[str, np.ndarray] = {
            "W1": w(n_obs, hidden), "b1": np.zeros(hidden, np.float32),
            "W2": w(hidden, hidden), "b2": np.zeros(hidden, np.float32),
            "Wp": w(hidden, n_act, 0.01), "bp": np.zeros(n_act, np.float32),
            "Wv": w(hidden, 1, 0.1), "bv": np.zeros(1, np.float32),
        }

    def forward(self, x: np.ndarray, mask: np.ndarray) -> tuple[Any, ...]:
        """Batched: hidden layers, log-probabilities over the legal actions (-inf-ish off the
        mask), probabilities, values."""
        p = self.params
        h1 = np.tanh(x @ p["W1"] + p["b1"])
        h2 = np.tanh(h1 @ p["W2"] + p["b2"])
        z = h2 @ p["Wp"] + p["bp"]
        z = np.where(mask > 0, z, -1e9).astype(np.float32)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        probs = e / e.sum(axis=1, keepdims=True)
        logp = z - np.log(e.sum(axis=1, keepdims=True))
        v = (h2 @ p["Wv"] + p["bv"])[:, 0]
        return h1, h2, logp, probs, v

    def backward(self, x: np.ndarray, h1: np.ndarray, h2: np.ndarray, dz: np.ndarray,
                 dv: np.ndarray) -> dict[str, np.ndarray]:
        """Gradients of the loss from its gradients at the logits (dz) and values (dv)."""
        p = self.params
        g: dict[str, np.ndarray] = {}
        g["Wp"] = h2.T @ dz
        g["bp"] = dz.sum(0)
        g["Wv"] = h2.T @ dv[:, None]
        g["bv"] = np.array([dv.sum()], np.float32)
        dh2 = (dz @ p["Wp"].T + dv[:, None] @ p["Wv"].T) * (1 - h2 * h2)
        g["W2"] = h1.T @ dh2
        g["b2"] = dh2.sum(0)
        dh1 = (dh2 @ p["W2"].T) * (1 - h1 * h1)
        g["W1"] = x.T @ dh1
        g["b1"] = dh1.sum(0)
        return g

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The most probable legal action: what the trained player plays."""
        x = np.asarray(observation, np.float32)[None]
        _, _, logp, _, _ = self.forward(x, np.asarray(mask)[None])
        return int(np.argmax(logp[0]))

    def save(self, path: Path | str) -> None:
        # numpy's stub types a keyword array as savez's allow_pickle
        np.savez(path, **self.params)  # type: ignore[arg-type]


def load(path: str) -> Net:
    """The trained policy in ``path`` (a .npz written by this script)."""
    data = np.load(path)
    net = Net(data["W1"].shape[0], data["Wp"].shape[1], data["W1"].shape[1])
    net.params = {k: data[k].astype(np.float32) for k in NAMES}
    return net


class Adam:
    def __init__(self, params: dict[str, np.ndarray], lr: float) -> None:
        self.lr, self.t = lr, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray],
             max_norm: float = 0.5) -> None:
        """One descent step, after clipping the gradients' global norm to ``max_norm``."""
        norm = float(np.sqrt(sum(float((g * g).sum()) for g in grads.values())))
        scale = min(1.0, max_norm / (norm + 1e-8))
        self.t += 1
        for k, g in grads.items():
            g = g * scale
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            mh = self.m[k] / (1 - 0.9 ** self.t)
            vh = self.v[k] / (1 - 0.999 ** self.t)
            params[k] -= (self.lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)


def make_env(partner: str | None, opponents: str, record: list[Any]) -> Any:
    """A one-hand classic environment whose opponents' decisions (vector, mask, action) are
    appended to ``record`` as they are played: the cloning labels."""
    from canasta_cli.env import single_agent_env

    env = single_agent_env(RULES, opponents=opponents, partner=partner, normalize=True,
                           max_hands=1)
    game = env.game
    opp = game._opponents  # the environment's opponents (canasta_cli.env.opponents)
    move = opp.move
    table = game.table

    def recorded(state: Any) -> Any:
        chosen = move(state)
        vec, mask = opp.vectors(state, state.actor)
        if int(mask.sum()) > 1:  # a forced move teaches nothing
            record.append((vec, mask, table.index(chosen)))
        return chosen

    opp.move = recorded
    return env


class Teacher:
    """A stronger player asked what it would play at each of the learner's decisions (the
    labels of DAgger).  It sits at every seat of its own copy of the game's players, so it
    hears the game as a referee would tell each seat, but only the learner's decisions are
    put to it: its answers never reach the game."""

    def __init__(self, spec: str, env: Any) -> None:
        from canasta_cli.env.opponents import Opponents, Seating

        game = env.game
        self.table = game.table
        self.players = Opponents(game.rules, Seating((spec,) * game.rules.players),
                                 game._vectors, game.table.moves)
        self.last: Any = None

    def begin(self, env: Any) -> None:
        """A new game in ``env`` (just reset): the teacher's players start it too, seeded
        from the game's seed as the opponents are."""
        if self.last is not None:
            self.players.finish(self.last)
        self.last = env.game.game_state
        self.players.begin(self.last, env.game.seed_)

    def label(self, env: Any) -> int:
        """The action index the teacher plays at the learner's decision in ``env``."""
        self.last = env.game.game_state
        return int(self.table.index(self.players.move(self.last)))

    def close(self) -> None:
        self.players.close()


def run_eval(net: Net, deals: int, seed: int, opponents: str = "builtin:greedy") -> Any:
    from canasta_cli.env import as_player
    from canasta_cli.tournament.evaluate import evaluate

    return evaluate(lambda: as_player(net), opponents, deals=deals, seed=seed, rules=RULES)


class Budget:
    """A phase's rounds, until its minutes or its learner steps (``steps``, None: no limit)
    run out, whichever comes first; ``done`` counts the steps of the rounds begun."""

    def __init__(self, minutes: float, steps: int | None, per_round: int) -> None:
        self.start = time.monotonic()
        self.minutes, self.steps, self.per_round = minutes, steps, per_round
        self.done = 0

    def rounds(self) -> Iterator[None]:
        while (self.elapsed < self.minutes * 60
               and (self.steps is None or self.done < self.steps)):
            self.done += self.per_round
            yield

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.start


@dataclass
class Config:
    """The training's settings (``main``'s options).  Each phase stops at its minutes or its
    number of learner steps (``steps``/``bc_steps``), whichever comes first."""

    minutes: float = 20.0  # PPO
    bc_minutes: float = 10.0  # behaviour cloning
    steps: int | None = None
    bc_steps: int | None = None
    envs: int = 8
    horizon: int = 64
    seed: int = 0
    hidden: int = 128
    lr: float = 3e-4
    bc_lr: float = 1e-3
    bc_coef: float = 0.2
    ent_coef: float = 0.003
    clip: float = 0.2
    epochs: int = 4
    minibatch: int = 256
    gamma: float = 1.0
    lam: float = 0.95
    partner: str | None = "learner"
    opponents: str = "builtin:greedy"
    eval_every: float = 300.0  # seconds
    eval_deals: int = 20
    eval_seed: int = 777
    out: Path | str | None = None
    init: Path | str | None = None  # start from these weights (a .npz of this script)
    teacher: str | None = None  # DAgger's teacher; None: no DAgger phase
    dagger_minutes: float = 0.0
    dagger_steps: int | None = None
    beta: float = 0.3  # the share of the teacher's own moves in the DAgger games
    dagger_keep: int = 300_000  # the labels kept (the oldest go first)
    dagger_updates: int = 32  # minibatch steps on the aggregated labels after each rollout
    dagger_opponents: str | None = None  # the opponents of the DAgger games (None: opponents)
    workers: int = 1  # processes playing the DAgger games (their teachers' search is the cost)


class Trainer:
    """The environments, the policy and its optimizer, the cloning buffer, the counters."""

    def __init__(self, cfg: Config, log: Callable[[str], None] = print) -> None:
        self.cfg, self.log = cfg, log
        self.rng = np.random.default_rng(cfg.seed)
        self.record: list[Any] = []  # the opponents' decisions since the last rollout
        self.pool = [make_env(cfg.partner, cfg.opponents, self.record) for _ in range(cfg.envs)]
        n_obs = self.pool[0].observation_space["observation"].shape[0]
        self.n_act = int(self.pool[0].action_space.n)
        self.net = Net(n_obs, self.n_act, cfg.hidden, cfg.seed)
        if cfg.init is not None:
            self.net = load(str(cfg.init))
        self.teachers = ([Teacher(cfg.teacher, env) for env in self.pool]
                         if cfg.teacher is not None else [])
        self.opt = Adam(self.net.params, cfg.bc_lr)
        self.next_seed = cfg.seed * 1_000_003
        self.obs = [self.fresh(e) for e in self.pool]
        self.dagger: list[Any] = []  # the teacher's labels of the learner's decisions
        self.ep_ret = [0.0] * len(self.pool)
        self.start = self.last_eval = time.monotonic()
        self.total_steps = 0
        self.ckpt = 0
        self.finished: list[float] = []  # the returns of the hands played since the last log
        self.labels: list[Any] = []  # the cloning buffer: the latest greedy decisions

    def fresh(self, env: Any) -> dict[str, Any]:
        self.next_seed += 1
        obs = env.reset(seed=self.next_seed)[0]
        while not obs["action_mask"].any():  # over before a decision (older environments)
            self.next_seed += 1
            obs = env.reset(seed=self.next_seed)[0]
        if getattr(self, "teachers", None):
            self.teachers[self.pool.index(env)].begin(env)
        return dict(obs)

    def evaluate_now(self, phase: str) -> None:
        cfg, net = self.cfg, self.net
        self.last_eval = time.monotonic()
        if cfg.eval_deals <= 0:
            return
        t0 = time.monotonic()
        res = run_eval(net, cfg.eval_deals, cfg.eval_seed)
        msg = ""
        if cfg.out is not None:
            self.ckpt += 1
            path = Path(str(cfg.out).removesuffix(".npz") + f".ckpt{self.ckpt}.npz")
            net.save(path)
            msg = f" saved {path.name}"
        self.log(f"[eval {phase} {(time.monotonic() - self.start) / 60:.1f} min,"
                 f" {self.total_steps} steps] vs greedy over {cfg.eval_deals} deals:"
                 f" {res.mean_diff:+.1f} +- {res.ci95:.1f} (W{res.wins} L{res.losses}"
                 f" D{res.draws}, {time.monotonic() - t0:.0f}s){msg}")

    def bc_grad(self, batch: list[Any]) -> tuple[dict[str, np.ndarray], float, float]:
        """The cross-entropy's gradients on greedy's decisions, the loss and the accuracy."""
        net = self.net
        x = np.stack([b[0] for b in batch])
        m = np.stack([b[1] for b in batch])
        a = np.array([b[2] for b in batch])
        h1, h2, logp, probs, _ = net.forward(x, m)
        n = len(batch)
        dz = probs.copy()
        dz[np.arange(n), a] -= 1.0
        dz /= n
        g = net.backward(x, h1, h2, dz.astype(np.float32), np.zeros(n, np.float32))
        loss = float(-logp[np.arange(n), a].mean())
        acc = float((logp.argmax(1) == a).mean())
        return g, loss, acc

    def bc_sample(self) -> tuple[dict[str, np.ndarray], float, float]:
        idx = self.rng.integers(len(self.labels), size=min(self.cfg.minibatch, len(self.labels)))
        return self.bc_grad([self.labels[j] for j in idx])

    def act(self) -> tuple[np.ndarray, ...]:
        """One step of every environment, the actions sampled from the policy."""
        x = np.stack([o["observation"] for o in self.obs])
        m = np.stack([o["action_mask"] for o in self.obs])
        k = len(self.pool)
        _, _, logp, probs, v = self.net.forward(x, m)
        cum = probs.cumsum(1)
        u = self.rng.random((k, 1))
        a = np.minimum((cum < u).sum(1), self.n_act - 1)
        a = np.where(m[np.arange(k), a] > 0, a, logp.argmax(1))
        rew = np.zeros(k, np.float32)
        done = np.zeros(k, np.float32)
        for i, env in enumerate(self.pool):
            o, r, term, trunc, _ = env.step(int(a[i]))
            rew[i] = r / 1000.0
            self.ep_ret[i] += r
            if term or trunc:
                done[i] = 1.0
                self.finished.append(self.ep_ret[i])
                self.ep_ret[i] = 0.0
                o = self.fresh(env)
            self.obs[i] = o
        self.total_steps += k
        return x, m, a, logp[np.arange(k), a], v, rew, done

    def rollout(self) -> dict[str, np.ndarray]:
        """``horizon`` learner steps in each environment, with GAE advantages; the opponents'
        decisions meanwhile join the cloning buffer."""
        cfg = self.cfg
        cols = list(zip(*(self.act() for _ in range(cfg.horizon)), strict=True))
        X, M, A, LP, V, R, D = (np.array(c) for c in cols)
        x = np.stack([o["observation"] for o in self.obs])
        m = np.stack([o["action_mask"] for o in self.obs])
        last_v = self.net.forward(x, m)[4]
        adv = np.zeros_like(V)
        gae = np.zeros(len(self.pool), np.float32)
        for t in reversed(range(cfg.horizon)):
            nv = last_v if t == cfg.horizon - 1 else V[t + 1]
            nonterm = 1.0 - D[t]
            delta = R[t] + cfg.gamma * nv * nonterm - V[t]
            gae = delta + cfg.gamma * cfg.lam * nonterm * gae
            adv[t] = gae
        ret = adv + V
        self.labels.extend(self.record)
        self.record.clear()
        self.labels = self.labels[-50_000:]
        n = cfg.horizon * len(self.pool)
        return {"x": X.reshape(n, -1), "m": M.reshape(n, -1), "a": A.reshape(n),
                "lp": LP.reshape(n), "adv": adv.reshape(n), "ret": ret.reshape(n)}

    def clone(self) -> None:
        """Phase 1: behaviour cloning of the greedy opponents' decisions, while the learner
        plays (and its value head learns the hands' returns)."""
        cfg, net = self.cfg, self.net
        self.log(f"behaviour cloning: {cfg.envs} envs, partner={cfg.partner},"
                 f" opponents={cfg.opponents}")
        phase = Budget(cfg.bc_minutes, cfg.bc_steps, cfg.horizon * len(self.pool))
        last_log = phase.start
        for _ in phase.rounds():
            roll = self.rollout()
            for _ in range(4):
                g, loss, acc = self.bc_sample()
                h1, h2, _, _, v = net.forward(roll["x"], roll["m"])
                dv = (v - roll["ret"]) / len(v)
                gv = net.backward(roll["x"], h1, h2, np.zeros((len(v), self.n_act), np.float32),
                                  dv.astype(np.float32))
                self.opt.step(net.params, {k: g[k] + 0.5 * gv[k] for k in g})
            if time.monotonic() - last_log > 30 and len(self.finished) >= 20:
                last_log = time.monotonic()
                el = phase.elapsed
                self.log(f"bc {el / 60:5.1f} min {self.total_steps:8d} steps"
                         f" {self.total_steps / el:6.0f}/s ce {loss:.3f} acc {acc:.3f}"
                         f" labels {len(self.labels)}"
                         f" reward/hand {np.mean(self.finished[-200:]):+7.1f}")
                self.finished.clear()
            if time.monotonic() - self.last_eval >= cfg.eval_every:
                self.evaluate_now("bc")
        self.evaluate_now("after bc")

    def ppo_update(self, roll: dict[str, np.ndarray]) -> list[tuple[float, ...]]:
        """The PPO epochs over one rollout (plus the cloning loss at ``bc_coef``)."""
        cfg, net, rng = self.cfg, self.net, self.rng
        n = len(roll["a"])
        stats: list[tuple[float, ...]] = []
        for _ in range(cfg.epochs):
            order = rng.permutation(n)
            for s in range(0, n, cfg.minibatch):
                j = order[s:s + cfg.minibatch]
                x, m, a = roll["x"][j], roll["m"][j], roll["a"][j]
                adv = roll["adv"][j]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                h1, h2, logp, probs, v = net.forward(x, m)
                k = len(j)
                ratio = np.exp(logp[np.arange(k), a] - roll["lp"][j])
                unclipped = ratio * adv
                clipped = np.clip(ratio, 1 - cfg.clip, 1 + cfg.clip) * adv
                active = (unclipped <= clipped).astype(np.float32)  # min picks the unclipped
                dlp = -adv * ratio * active / k  # d loss / d logp(a)
                dz = -probs * dlp[:, None]
                dz[np.arange(k), a] += dlp
                ent = -np.where(probs > 0, probs * logp, 0.0).sum(1)
                # d(-ent_coef * H)/dz = ent_coef * p (logp + H)
                dz += cfg.ent_coef * np.where(probs > 0, probs * (logp + ent[:, None]), 0.0) / k
                dv = 0.5 * 2 * (v - roll["ret"][j]) / k
                g = net.backward(x, h1, h2, dz.astype(np.float32), dv.astype(np.float32))
                if cfg.bc_coef > 0 and self.labels:
                    gb, _, _ = self.bc_sample()
                    g = {key: g[key] + cfg.bc_coef * gb[key] for key in g}
                self.opt.step(net.params, g)
                stats.append((float(np.mean(np.minimum(unclipped, clipped))),
                              float(np.mean((v - roll["ret"][j]) ** 2)), float(ent.mean()),
                              float(np.mean(np.abs(ratio - 1) > cfg.clip))))
        return stats

    def ppo(self) -> None:
        """Phase 2: PPO, the cloning loss kept in at ``bc_coef``."""
        cfg = self.cfg
        self.opt.lr = cfg.lr
        self.log(f"PPO: {cfg.envs} envs x {cfg.horizon} steps a batch, {cfg.epochs} epochs,"
                 f" minibatch {cfg.minibatch}")
        phase = Budget(cfg.minutes, cfg.steps, cfg.horizon * len(self.pool))
        last_log = phase.start
        for _ in phase.rounds():
            roll = self.rollout()
            done = phase.done
            stats = self.ppo_update(roll)
            if time.monotonic() - last_log > 30:
                last_log = time.monotonic()
                el = phase.elapsed
                s = np.mean(stats, 0)
                fin = self.finished
                self.log(f"ppo {el / 60:5.1f} min {done:8d} steps {done / el:6.0f}/s"
                         f" reward/hand {np.mean(fin[-400:]) if fin else 0:+7.1f}"
                         f" (n={len(fin)}) vloss {s[1]:.3f} ent {s[2]:.3f}"
                         f" clipfrac {s[3]:.3f}")
                fin.clear()
            if time.monotonic() - self.last_eval >= cfg.eval_every:
                self.evaluate_now("ppo")
        self.evaluate_now("final")

    def dagger_step(self) -> None:
        """One step of every environment: the teacher labels each decision with more than one
        legal move, and the move played is the teacher's (with probability ``beta``) or the
        policy's own choice, so the labels come from the states the policy reaches."""
        x = np.stack([o["observation"] for o in self.obs])
        m = np.stack([o["action_mask"] for o in self.obs])
        _, _, logp, _, _ = self.net.forward(x, m)
        mine = logp.argmax(1)
        for i, env in enumerate(self.pool):
            action = int(mine[i])
            if int(m[i].sum()) > 1:
                label = self.teachers[i].label(env)
                self.dagger.append((x[i], m[i], label))
                if self.rng.random() < self.cfg.beta:
                    action = label
            elif m[i][action] == 0:
                action = int(np.flatnonzero(m[i])[0])
            o, r, term, trunc, _ = env.step(action)
            self.ep_ret[i] += r
            if term or trunc:
                self.finished.append(self.ep_ret[i])
                self.ep_ret[i] = 0.0
                o = self.fresh(env)
            self.obs[i] = o
        self.total_steps += len(self.pool)

    def imitate(self) -> None:
        """Phase 0 (with ``teacher``): DAgger.  The policy plays, the teacher says what it
        would have played at each decision, and the policy learns the aggregated labels by
        cross-entropy (the accuracy logged is on fresh labels, before it learns them)."""
        cfg = self.cfg
        self.log(f"DAgger: teacher {cfg.teacher}, {cfg.envs} envs in {max(1, cfg.workers)}"
                 f" process(es), opponents {cfg.dagger_opponents or cfg.opponents},"
                 f" beta {cfg.beta}")
        self.opt.lr = cfg.bc_lr
        phase = Budget(cfg.dagger_minutes, cfg.dagger_steps, cfg.horizon * len(self.pool))
        last_log = phase.start
        hits, seen = 0, 0
        sources = self.label_sources()
        try:
            for _ in phase.rounds():
                fresh = self.collect(sources)
                hits, seen = self.learn_labels(fresh, hits, seen)
                if time.monotonic() - last_log > 60:
                    last_log = time.monotonic()
                    el = phase.elapsed
                    self.log(f"dagger {el / 60:5.1f} min {phase.done:7d} steps"
                             f" labels {len(self.dagger)} fresh acc {hits / max(seen, 1):.3f}"
                             f" return/hand"
                             f" {np.mean(self.finished) if self.finished else 0:+7.1f}"
                             f" (n={len(self.finished)})")
                    hits = seen = 0
                    self.finished.clear()
                if time.monotonic() - self.last_eval >= cfg.eval_every:
                    self.evaluate_now("dagger")
        finally:
            for source in sources:
                source.close()
        self.evaluate_now("after dagger")

    def label_sources(self) -> list[Any]:
        """Where the DAgger games are played: this trainer's own environments, or (with
        ``workers`` > 1 or other ``dagger_opponents``) trainers of their own, one per worker
        process, each with its share of the environments and a seed of its own."""
        cfg = self.cfg
        opponents = cfg.dagger_opponents or cfg.opponents
        if cfg.workers <= 1 and opponents == cfg.opponents:
            return [Local(self)]
        n = max(1, cfg.workers)
        shares = [cfg.envs // n + (i < cfg.envs % n) for i in range(n)]
        subs = [replace(cfg, envs=k, seed=cfg.seed * 1000 + i + 1, opponents=opponents,
                        dagger_opponents=None, workers=1, init=None, out=None, eval_deals=0)
                for i, k in enumerate(shares) if k > 0]
        if cfg.workers <= 1:
            return [Local(Trainer(subs[0], self.log), own=True)]
        return [Remote(sub) for sub in subs]

    def collect(self, sources: list[Any]) -> list[Any]:
        """One rollout of ``horizon`` steps in every source's environments, with the
        current weights: the fresh labels (added to ``dagger``), the hands finished and
        the learner steps counted here."""
        for source in sources:
            source.send(self.net.params)
        fresh: list[Any] = []
        for source in sources:
            labels, finished, steps = source.receive()
            fresh.extend(labels)
            self.finished.extend(finished)
            if source.trainer is not self:  # its own steps are counted as they are played
                self.total_steps += steps
        self.dagger.extend(fresh)
        return fresh

    def learn_labels(self, fresh: list[Any], hits: int, seen: int) -> tuple[int, int]:
        """The policy's agreement with the fresh labels (before it learns them), then
        ``dagger_updates`` minibatch steps on the aggregated labels."""
        cfg = self.cfg
        if fresh:
            x = np.stack([b[0] for b in fresh])
            m = np.stack([b[1] for b in fresh])
            a = np.array([b[2] for b in fresh])
            hits += int((self.net.forward(x, m)[2].argmax(1) == a).sum())
            seen += len(fresh)
        self.dagger = self.dagger[-cfg.dagger_keep:]
        for _ in range(cfg.dagger_updates):
            idx = self.rng.integers(len(self.dagger), size=min(cfg.minibatch,
                                                               len(self.dagger)))
            g, _, _ = self.bc_grad([self.dagger[j] for j in idx])
            self.opt.step(self.net.params, g)
        return hits, seen

    def play_dagger(self, params: dict[str, np.ndarray]) -> tuple[list[Any], list[float], int]:
        """``horizon`` DAgger steps of this trainer's environments with ``params``: the
        labels, the returns of the hands finished, the learner steps (a source's work)."""
        self.net.params = params
        before, steps = len(self.dagger), self.total_steps
        for _ in range(self.cfg.horizon):
            self.dagger_step()
        labels = self.dagger[before:]
        del self.dagger[before:]
        finished = self.finished[:]
        self.finished.clear()
        return labels, finished, self.total_steps - steps

    def close(self) -> None:
        for env in self.pool:
            env.close()
        for teacher in self.teachers:
            teacher.close()


class Local:
    """A source of DAgger labels in this process: a trainer's own environments."""

    def __init__(self, trainer: Trainer, own: bool = False) -> None:
        self.trainer, self.own = trainer, own  # own: made for this phase, closed after it
        self.result: tuple[list[Any], list[float], int] | None = None

    def send(self, params: dict[str, np.ndarray]) -> None:
        self.result = self.trainer.play_dagger(params)

    def receive(self) -> tuple[list[Any], list[float], int]:
        assert self.result is not None
        result, self.result = self.result, None
        return result

    def close(self) -> None:
        if self.own:
            self.trainer.close()


def _serve(conn: Any, cfg: Config) -> None:
    """A worker process: a trainer of its own plays the DAgger games it is sent weights for."""
    trainer = Trainer(cfg, log=lambda line: None)
    try:
        while (params := conn.recv()) is not None:
            conn.send(trainer.play_dagger(params))
    except (EOFError, KeyboardInterrupt):
        pass  # the trainer went away or was interrupted: nothing to hand back
    finally:
        trainer.close()


class Remote:
    """A source of DAgger labels in a worker process of its own (``workers`` > 1): the
    teacher's search, most of the cost, runs on another core."""

    trainer = None

    def __init__(self, cfg: Config) -> None:
        ctx = multiprocessing.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, cfg), daemon=True)
        self.proc.start()
        child.close()

    def send(self, params: dict[str, np.ndarray]) -> None:
        self.conn.send(params)

    def receive(self) -> tuple[list[Any], list[float], int]:
        try:
            return self.conn.recv()  # type: ignore[no-any-return]
        except EOFError:
            raise RuntimeError(f"a DAgger worker stopped (exit code {self.proc.exitcode})"
                               ) from None

    def close(self) -> None:
        with contextlib.suppress(OSError):  # a worker that already stopped
            self.conn.send(None)
        self.proc.join(30)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join()
        self.conn.close()


def train(cfg: Config, log: Callable[[str], None] = print) -> Net:
    """Trains and returns the policy (and saves it in ``cfg.out``)."""
    trainer = Trainer(cfg, log)
    try:
        if cfg.bc_minutes > 0 or cfg.bc_steps:
            trainer.clone()
        if cfg.teacher is not None:
            trainer.imitate()
        if cfg.minutes > 0 or cfg.steps:
            trainer.ppo()
    finally:
        trainer.close()
    if cfg.out is not None:
        trainer.net.save(cfg.out)
        log(f"saved {cfg.out} after {trainer.total_steps} learner steps,"
            f" {(time.monotonic() - trainer.start) / 60:.1f} min")
    return trainer.net


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=20.0, help="PPO minutes")
    ap.add_argument("--bc-minutes", type=float, default=10.0, help="behaviour cloning minutes")
    ap.add_argument("--steps", type=int, default=None, help="PPO learner steps at most")
    ap.add_argument("--bc-steps", type=int, default=None, help="cloning learner steps at most")
    ap.add_argument("--envs", type=int, default=8)
    ap.add_argument("--horizon", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--bc-lr", type=float, default=1e-3)
    ap.add_argument("--bc-coef", type=float, default=0.2)
    ap.add_argument("--ent-coef", type=float, default=0.003)
    ap.add_argument("--partner", default="learner",
                    help="'learner' (the policy plays both seats of its side) or a spec")
    ap.add_argument("--opponents", default="builtin:greedy")
    ap.add_argument("--eval-every", type=float, default=300.0, help="seconds")
    ap.add_argument("--eval-deals", type=int, default=20)
    ap.add_argument("--out", type=Path, default=Path("examples/baseline_greedy.npz"))
    ap.add_argument("--init", type=Path, default=None, help="start from these weights")
    ap.add_argument("--teacher", default=None,
                    help="DAgger's teacher, a 'builtin:NAME' (none: no DAgger phase)")
    ap.add_argument("--dagger-minutes", type=float, default=0.0)
    ap.add_argument("--dagger-steps", type=int, default=None)
    ap.add_argument("--dagger-updates", type=int, default=32,
                    help="minibatch steps on the labels after each DAgger rollout")
    ap.add_argument("--beta", type=float, default=0.3,
                    help="the share of the teacher's own moves in the DAgger games")
    ap.add_argument("--dagger-opponents", default=None,
                    help="the opponents of the DAgger games (default: --opponents)")
    ap.add_argument("--workers", type=int, default=1,
                    help="processes playing the DAgger games (the teacher's search is most"
                         " of the time: one per core)")
    a = ap.parse_args()
    train(Config(minutes=a.minutes, bc_minutes=a.bc_minutes, steps=a.steps,
                 bc_steps=a.bc_steps, envs=a.envs, horizon=a.horizon, seed=a.seed,
                 hidden=a.hidden, lr=a.lr, bc_lr=a.bc_lr, bc_coef=a.bc_coef,
                 ent_coef=a.ent_coef,
                 partner=None if a.partner in ("", "none") else a.partner,
                 opponents=a.opponents, eval_every=a.eval_every, eval_deals=a.eval_deals,
                 out=a.out, init=a.init, teacher=a.teacher, dagger_minutes=a.dagger_minutes,
                 dagger_steps=a.dagger_steps, beta=a.beta,
                 dagger_updates=a.dagger_updates, dagger_opponents=a.dagger_opponents,
                 workers=a.workers),
          log=lambda s: print(s, flush=True))


if __name__ == "__main__":
    main()
