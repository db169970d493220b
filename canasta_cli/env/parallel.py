"""The same game behind PettingZoo's parallel API (``canasta_cli.env.parallel_env``).

Canasta is turn-based, so it gets a parallel API the standard way: every live agent submits
an action at every step, only the agent to move acts, and the others wait.  The action space
is the AEC table plus one index, ``wait`` (the last, ``N``): the mover's mask is its
``legal_moves`` (``wait`` is not among them), every other agent's mask holds ``wait`` alone.
One step is one cycle; ``max_cycles`` truncates every agent after that many.  This module is
also a PettingZoo environment module: ``env(...)`` is the AEC form of the parallel game
(every agent once per cycle, PettingZoo's own ``parallel_to_aec``), which is what
``pettingzoo.test.max_cycles_test`` drives.  docs/ML.md documents it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import ParallelEnv  # type: ignore[import-untyped, unused-ignore]
from pettingzoo.utils import parallel_to_aec  # type: ignore[import-untyped, unused-ignore]

from ..core import Ruleset
from .aec import CanastaEnv, IllegalActionError

ILLEGAL = ("wait", "raise")


class CanastaParallelEnv(ParallelEnv):  # type: ignore[misc]
    """Canasta as a ParallelEnv.  See ``parallel_env`` for the arguments."""

    metadata: dict[str, Any] = {"name": "canasta_parallel_v0",
                                "render_modes": ["human", "ansi"], "is_parallelizable": True}

    def __init__(self, rules: Ruleset | str = "classic", *, render_mode: str | None = None,
                 reward: str = "hand", max_cycles: int | None = None, illegal: str = "wait",
                 **options: Any) -> None:
        if illegal not in ILLEGAL:
            raise ValueError(f"illegal must be 'wait' or 'raise', not {illegal!r}")
        _check_cap(max_cycles)
        self.game = CanastaEnv(rules, render_mode=render_mode, reward=reward, **options)
        self.rules = self.game.rules
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.illegal = illegal
        size = self.game.table.size
        self.wait = size
        self.possible_agents = list(self.game.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces = {a: spaces.Dict({
            "observation": self.game.observation_spaces[a]["observation"],
            "action_mask": spaces.Box(0, 1, (size + 1,), dtype=np.int8)})
            for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(size + 1) for a in self.possible_agents}
        self._wait_mask = np.zeros(size + 1, np.int8)
        self._wait_mask[size] = 1
        self.cycles = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """A new game, seeded as ``aec_env``'s ``reset``."""
        self.game.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        self.cycles = 0
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float],
                                                     dict[str, bool], dict[str, bool],
                                                     dict[str, dict[str, Any]]]:
        """One cycle: the mover's action is played, every other agent must ``wait``.

        With ``illegal="wait"`` (the default) an action off the agent's mask, or a missing
        one, is played as ``wait``: the game does not move (the mover stays to move) and
        ``infos[agent]["illegal"]`` says why.  With ``illegal="raise"`` it raises
        ``IllegalActionError`` and the step does nothing."""
        if not self.agents:
            raise RuntimeError("every agent is done: call reset() to start a new game")
        if not isinstance(actions, dict):
            raise TypeError(f"actions must be a dict of agent to action, not"
                            f" {type(actions).__name__}")
        game = self.game
        mover = game.agent_selection
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        for agent in self.agents:
            if agent != mover and not self._is_wait(actions.get(agent)):
                self._refuse(infos, agent, f"{agent} is not to move: its only action is wait"
                             f" ({self.wait}), not {_shown(actions.get(agent))}")
        action = actions.get(mover)
        rewards = dict.fromkeys(self.agents, 0.0)
        if self._is_wait(action):
            self._refuse(infos, mover, f"{mover} is to move: wait ({self.wait}) is not"
                         " among its legal actions")
        else:
            try:
                game.step(action)
            except IllegalActionError as exc:
                self._refuse(infos, mover, str(exc))
            else:
                rewards = {a: float(game.rewards[a]) for a in self.agents}
        self.cycles += 1
        capped = self.max_cycles is not None and self.cycles >= self.max_cycles
        terminations = {a: bool(game.terminations[a]) for a in self.agents}
        truncations = {a: bool(game.truncations[a]) or capped for a in self.agents}
        observations = self._observations()
        self.agents = [a for a in self.agents if not (terminations[a] or truncations[a])]
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        return self.game.render()

    def close(self) -> None:
        pass

    def state(self) -> npt.NDArray[Any]:
        raise NotImplementedError("the game has no global observation for agents; use"
                                  " .game.game_state for the engine state")

    def _observations(self) -> dict[str, dict[str, npt.NDArray[Any]]]:
        """Every agent's view: the AEC observation, and its mask with ``wait`` appended
        (``wait`` alone for an agent not to move, and for everyone once the game is over).
        An agent not to move gets its vector alone from the AEC env (no mask of its own to
        make and throw away)."""
        game = self.game
        state = game.game_state
        actor = state.actor
        mover = game._agent_at[actor] if actor >= 0 else None
        vector, index, tracker, scaler = game._from_state, game._index, game.tracker, game._scaler
        out = {}
        for agent in self.agents:
            if agent == mover:
                seen = game.observe(agent)
                mask = np.zeros(self.wait + 1, np.int8)
                mask[:self.wait] = seen["action_mask"]
                out[agent] = {"observation": seen["observation"], "action_mask": mask}
            else:
                vec = vector(state, index[agent], tracker)
                if scaler is not None:
                    scaler(vec)
                out[agent] = {"observation": vec, "action_mask": self._wait_mask.copy()}
        return out

    def _is_wait(self, action: Any) -> bool:
        if type(action) is int:  # the usual case, at once
            return action == self.wait
        return (action is not None and not isinstance(action, bool)
                and isinstance(action, int | np.integer) and int(action) == self.wait)

    def _refuse(self, infos: dict[str, dict[str, Any]], agent: str, why: str) -> None:
        if self.illegal == "raise":
            raise IllegalActionError(why)
        infos[agent]["illegal"] = why


def _shown(action: Any) -> str:
    return repr(action)[:40]


def _check_cap(max_cycles: int | None) -> None:
    if max_cycles is not None and (isinstance(max_cycles, bool) or not isinstance(
            max_cycles, int) or max_cycles < 1):
        raise ValueError(f"max_cycles must be a positive whole number, not {max_cycles!r}")


def parallel_env(rules: Ruleset | str = "classic", *, render_mode: str | None = None,
                 reward: str = "hand", max_cycles: int | None = None, illegal: str = "wait",
                 **options: Any) -> CanastaParallelEnv:
    """A PettingZoo ``ParallelEnv`` for ``rules`` with rule ``options``: every agent acts at
    every step, the one to move with a move of the action table, the others with ``wait``
    (index N, the last).  ``reward`` as in ``aec_env``; ``max_cycles`` truncates every
    agent after that many steps; ``illegal`` is "wait" (an action off the mask is played as
    ``wait`` and reported in the agent's info) or "raise".  ``options`` also take
    ``aec_env``'s ``opponents`` (the agents are then the learner's seats; the opponents move
    inside ``reset`` and ``step``) and ``normalize``."""
    return CanastaParallelEnv(rules, render_mode=render_mode, reward=reward,
                              max_cycles=max_cycles, illegal=illegal, **options)


def env(rules: Ruleset | str = "classic", **kwargs: Any) -> Any:
    """The parallel game in AEC form (each agent once per cycle, in seat order): PettingZoo's
    ``parallel_to_aec`` of ``parallel_env(rules, **kwargs)``.  For the turn-by-turn AEC
    environment (one step per decision) use ``aec_env``."""
    return parallel_to_aec(parallel_env(rules, **kwargs))
