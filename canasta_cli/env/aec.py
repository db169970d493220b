"""A PettingZoo AEC environment on the exact engine (``canasta_cli.env.aec_env``).

One agent per seat (``seat_0`` ...); the agent to act is the engine's ``state.actor``, so a
turn is several steps of one agent (draw, melds, discard) and the partner answers the
permission question.  ``observation["action_mask"]`` is exactly ``legal_moves`` over the
fixed action table, and an action off the mask is refused with the engine's reason.
docs/ML.md documents the spaces, rewards and options.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped, unused-ignore]

from ..core import IllegalMoveError, Ruleset, apply, legal_moves, new_game, observation, preset
from ..core.errors import CanastaError
from ..core.moves import Move
from ..core.state import GameState, Phase
from ..util.seeds import fresh_seed
from .actions import action_table
from .observe import Encoder
from .public import _HANDLERS
from .scaling import scaler_for

REWARDS = ("hand", "game")


_WHOLE = (int, np.integer)
_GAME_OVER = Phase.GAME_OVER
# What a deep copy of the environment shares with it: immutable, or read-only tables.
_SHARED_ON_COPY = frozenset({"state_", "_seen_log", "rules", "table", "_moves", "_mask", "_index",
                             "_scaler"})


class IllegalActionError(IllegalMoveError):
    """An action the mask does not allow; the message says which move and why.  It is the
    engine's ``IllegalMoveError`` (so a ``CanastaError`` and a ``ValueError`` too), with the
    message as its ``reason``."""

    def __init__(self, reason: str, move: object = None) -> None:
        # Not IllegalMoveError.__init__: compiled (mypyc), it takes no instance of a class
        # defined outside the compiled core.  It sets no more than this.
        CanastaError.__init__(self, reason)
        self.move = move
        self.reason = reason


def side_rewards(totals: tuple[int, ...] | list[int]) -> list[float]:
    """Zero-sum: each side's points less the mean of the other sides' points."""
    n = len(totals)
    whole = sum(totals)
    return [float(t - (whole - t) / (n - 1)) for t in totals]


def load_ruleset(rules: Ruleset | str, options: dict[str, Any]) -> Ruleset:
    base = preset(rules) if isinstance(rules, str) else rules
    return base.with_options(**options) if options else base


class CanastaEnv(AECEnv):  # type: ignore[misc]
    """Canasta as an AEC environment.  See ``aec_env`` for the arguments."""

    metadata: dict[str, Any] = {"name": "canasta_v0", "render_modes": ["human", "ansi"],
                "is_parallelizable": False}

    def __init__(self, rules: Ruleset | str = "classic", *, render_mode: str | None = None,
                 reward: str = "hand", max_moves: int | None = None, opponents: Any = None,
                 normalize: bool = False, **options: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of human, ansi or None, not"
                             f" {render_mode!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be 'hand' or 'game', not {reward!r}")
        if max_moves is not None and (isinstance(max_moves, bool) or not isinstance(
                max_moves, int) or max_moves < 1):
            raise ValueError(f"max_moves must be a positive whole number, not {max_moves!r}")
        self.rules = load_ruleset(rules, options)
        self.render_mode = render_mode
        self.reward_mode = reward
        self.max_moves = max_moves
        self.table = action_table(self.rules)
        self.encoder = Encoder(self.rules)
        n = self.rules.players
        self.seat_names = [f"seat_{i}" for i in range(n)]
        self._scaler = scaler_for(self.encoder.layout, normalize)
        self._opponents: Any = None  # opponents.Opponents, when there are any
        # Per seat, the learner's agent playing it ("" at an opponent's seat).
        self._agent_at = list(self.seat_names)
        if opponents is not None:
            self._seat_opponents(opponents)
        self.possible_agents = [a for a in self._agent_at if a]
        self._index = {a: i for i, a in enumerate(self._agent_at) if a}
        if self._scaler is not None:
            low, high = self._scaler.bounds(self.encoder.layout)
        else:
            low, high = self.encoder.layout.bounds()
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(low, high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (self.table.size,), dtype=np.int8)})
            for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.table.size) for a in self.possible_agents}
        self._rng: random.Random | None = None
        self._rng_seed: int | None = None  # None: each game's seed is drawn afresh
        self._no_mask = np.zeros(self.table.size, np.int8)
        self._size = self.table.size
        self._moves = self.table.moves
        self._from_state = self.encoder.from_state
        self._mask = self.table.mask
        self.state_: GameState | None = None

    def _seat_opponents(self, opponents: Any) -> None:
        from .opponents import Opponents, seating
        seats = seating(self.rules.players, opponents)
        self._opponents = Opponents(self.rules, seats, self._vectors, self.table.moves)
        self._agent_at = ["" if spec is not None else self.seat_names[i]
                          for i, spec in enumerate(seats.specs)]

    # The PettingZoo API -----------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game.  ``seed`` is the engine's game seed (``new_game(rules, seed)``); later
        resets without one continue a sequence of seeds drawn from it (an environment never
        seeded draws each game's seed from ``secrets``)."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
                raise ValueError(f"seed must be a whole number, not {seed!r}")
            self._rng, self._rng_seed = None, int(seed)  # seeded on first use (costly)
            game_seed = int(seed)
        elif self._rng_seed is None:
            game_seed = fresh_seed()  # never seeded: a deal no agent can work out
        else:
            if self._rng is None:
                self._rng = random.Random(self._rng_seed)
            game_seed = self._rng.randrange(2**63)
        self.seed_ = game_seed
        if self._opponents is not None and self.state_ is not None:
            self._opponents.finish(self.state_)  # a game given up: the opponents are told
        self.state_ = start = new_game(self.rules, seed=game_seed)
        self.tracker = self.encoder.tracker()
        self._seen_log: Any = None
        self._feed()
        self.moves_made = 0
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._rewarded = False
        if self._opponents is not None:
            self._opponents.begin(start, game_seed)
            self._opponents_first(start)
        else:
            self.agent_selection = self._agent_at[start.actor]

    def _opponents_first(self, start: GameState) -> None:
        """After a reset: the opponents' moves until a learner's seat is to act.  (A hand
        or the whole game ending in them is rewarded as in a step.)"""
        after = self._opponents_play(start)
        if after.results:
            self._reward(start, after)
            self._accumulate_rewards()
        if after.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.possible_agents[0]
        else:
            self.agent_selection = self._agent_at[after.actor]

    def _opponents_play(self, state: GameState) -> GameState:
        """The opponents' moves from ``state`` until a learner's seat is to act or the game
        is over (the opponents are then told it is)."""
        opponents, agent_at = self._opponents, self._agent_at
        while not state.is_over and not agent_at[state.actor]:
            state = apply(state, opponents.move(state))
            self.state_ = state
            self._follow(state)
        if state.is_over:
            opponents.finish(state)
        return state

    def _vectors(self, state: GameState, seat: int
                 ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """The vector and mask of ``seat``, to act in ``state`` (for an opponent's policy)."""
        vec = self._from_state(state, seat, self.tracker)
        if self._scaler is not None:
            self._scaler(vec)
        return vec, self._mask(legal_moves(state))

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        state = self.state_
        if state is None:
            raise RuntimeError("call reset() before using the environment")
        seat = self._index[agent]
        if state.actor == seat:
            cached = state._legal  # legal_moves' cache, filled by its first call
            legal: Sequence[Move] = cached if cached is not None else legal_moves(state)
            mask = self._mask(legal)
        else:
            mask = self._no_mask.copy()
        vec = self._from_state(state, seat, self.tracker)
        if self._scaler is not None:
            self._scaler(vec)
        return {"observation": vec, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state_
        if state is None:
            raise RuntimeError("call reset() before using the environment")
        if type(action) is not int:
            action = self._action_index(action)
        if not 0 <= action < self._size:
            raise IllegalActionError(f"action {action} is outside 0..{self._size - 1}")
        try:
            after = apply(state, self._moves[action])
        except IllegalMoveError as exc:
            raise IllegalActionError(f"action {action} ({self.table.text(action)}) is not"
                                     f" legal for {agent} now: {exc.reason}") from None
        self.state_ = after
        self._follow(after)
        if self._opponents is not None:
            after = self._opponents_play(after)
        self.moves_made += 1
        self._cumulative_rewards[agent] = 0.0
        if (self._rewarded or after.results is not state.results
                or after.phase is _GAME_OVER or self.max_moves is not None):
            self._settle(state, after, agent)
        else:
            self.agent_selection = self._agent_at[after.actor]
        if self.render_mode == "human":
            self.render()

    def _follow(self, after: GameState) -> None:
        """Feed the tracker the events of the move that made ``after`` (the log is a cons
        list, newest first): most moves log one."""
        node, stop = after.log, self._seen_log
        if node is not stop and node is not None:
            if node[0] is stop:
                handler = _HANDLERS.get(type(node[1]))
                if handler is not None:
                    handler(self.tracker, node[1])
                elif self.tracker._pending is not None:
                    self.tracker.settle()
            else:
                self._track(node, stop)
            self._seen_log = node

    def _track(self, node: Any, stop: Any) -> None:
        """Feed the tracker the events logged after ``stop`` up to ``node``, oldest first."""
        fresh = []
        handled = False
        while node is not stop and node is not None:
            fresh.append(node[1])
            handled = handled or type(node[1]) in _HANDLERS
            node = node[0]
        tracker = self.tracker
        if not handled:  # draws: only a pending meld to settle
            if tracker._pending is not None:
                tracker.settle()
            return
        for event in reversed(fresh):
            handler = _HANDLERS.get(type(event))
            if handler is not None:
                handler(tracker, event)
            elif tracker._pending is not None:
                tracker.settle()

    def _settle(self, state: GameState, after: GameState, agent: str) -> None:
        """The rest of a step that ends a hand or the game, follows a rewarded step, or may
        reach the move cap: rewards, terminations, truncations and the next agent."""
        if self._rewarded:
            self._clear_rewards()
            self._rewarded = False
        over = after.phase is Phase.GAME_OVER
        if over or len(after.results) != len(state.results):
            self._reward(state, after)
        if over:
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = agent
        elif self.max_moves is not None and self.moves_made >= self.max_moves:
            self.truncations = dict.fromkeys(self.agents, True)
            self.agent_selection = agent
        else:
            self.agent_selection = self._agent_at[after.actor]
        if self._rewarded:
            self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self.table_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Stops the opponents' bots, if any (a later ``reset`` starts them again)."""
        if self._opponents is not None:
            self._opponents.close()

    def __deepcopy__(self, memo: dict[int, Any]) -> CanastaEnv:
        """An environment that plays on apart from this one (a lookahead's usual tool).  Game
        states are never changed once made (``apply`` makes new ones), so the copy shares the
        current state, its event log and the read-only tables; the public-facts tracker and
        the per-agent bookkeeping are copied, and the copy's encoder starts with empty
        caches.  (Copying the state itself would also fail in the compiled build, whose
        engine classes cannot be copied field by field.)"""
        if self._opponents is not None:
            raise TypeError("an environment with opponents cannot be copied: its opponents'"
                            " players and bots play one game at a time")
        new = CanastaEnv.__new__(CanastaEnv)
        memo[id(self)] = new
        for name, value in self.__dict__.items():
            if name in _SHARED_ON_COPY:
                new.__dict__[name] = value
            elif name == "encoder":
                new.encoder = Encoder(self.rules)
            elif name == "_from_state":
                continue  # bound to the copy's encoder below
            elif name == "tracker":
                new.tracker = value.copy()
            else:
                new.__dict__[name] = copy.deepcopy(value, memo)
        new._from_state = new.encoder.from_state
        return new

    # Helpers ------------------------------------------------------------------------------

    def table_text(self, seat: int | None = None) -> str:
        """The table as ``seat`` (default: the seat to act) sees it, in the project's table
        layout, with the final scores once the game is over."""
        from ..ui.render import Style, render_table
        state = self._state()
        if seat is None:
            seat = state.actor if state.actor >= 0 else self._index[self.agent_selection]
        names = list(self.seat_names)
        text = render_table(observation(state, seat, history=False), [], names,
                            Style(color=False, ascii=True))
        if state.is_over:
            text += (f"\nGame over ({state.game_end_reason}): scores "
                     + ", ".join(map(str, state.scores)))
        return text

    def legal_actions(self) -> list[int]:
        """The legal action indices for the agent to act, in ``legal_moves`` order."""
        state = self._state()
        return self.table.indices(legal_moves(state)) if not state.is_over else []

    @property
    def game_state(self) -> GameState:
        """The engine state (the whole game, hidden cards included: for tests and tools, not
        for an agent's input)."""
        return self._state()

    def _state(self) -> GameState:
        if self.state_ is None:
            raise RuntimeError("call reset() before using the environment")
        return self.state_

    def _action_index(self, action: Any) -> int:
        """An action as a plain int: a whole number (numpy's too), never a bool or None."""
        if action is None or isinstance(action, bool) or not isinstance(action, _WHOLE):
            raise IllegalActionError(f"an action is a whole number from 0 to"
                                     f" {self._size - 1}, not {action!r}")
        return int(action)

    def _feed(self) -> None:
        """Give the tracker the events so far (after a reset)."""
        for event in self._state().events():
            self.tracker.feed(event)
        self._seen_log = self._state().log

    def _reward(self, before: GameState, after: GameState) -> None:
        rules = self.rules
        if self.reward_mode == "hand":
            per_side = [0.0] * rules.sides
            for result in after.results[len(before.results):]:
                for s, r in enumerate(side_rewards(result.totals)):
                    per_side[s] += r
        elif after.is_over:
            per_side = [0.0] * rules.sides
            if after.winner is not None:
                per_side = side_rewards([1 if s == after.winner else 0
                                         for s in range(rules.sides)])
        else:
            return
        for a in self.agents:
            self.rewards[a] = per_side[rules.side_of(self._index[a])]
        self._rewarded = True


def aec_env(rules: Ruleset | str = "classic", *, render_mode: str | None = None,
            reward: str = "hand", max_moves: int | None = None, opponents: Any = None,
            normalize: bool = False, **options: Any) -> CanastaEnv:
    """A PettingZoo ``AECEnv`` for ``rules`` (a preset name or a Ruleset) with rule
    ``options`` (``aec_env("classic", max_hands=1)``).  ``reward``: "hand" (each hand's
    points, zero-sum between sides, at the step that ends the hand) or "game" (+1 for the
    winning side, the rest shared as -1 among the others, at the end).  ``max_moves``
    truncates every agent after that many steps in all.

    ``opponents`` plays the seats the learner does not (None: the learner plays every seat):
    one spec for every seat but seat 0, a dict ``{seat: spec}`` (the seats left out are the
    learner's: its partner's too, say) or a list of one spec per seat (None at the learner's).
    A spec is ``"builtin:NAME"`` (in-process), a protocol bot's command line (a boxed
    process, as ``canasta match`` starts it), a policy ``(observation, mask) -> action
    index`` or a ``Seat``.  The environment's agents are then the learner's seats alone;
    the opponents' moves are played inside ``reset`` and ``step``.  ``normalize``: every
    feature scaled into [-1, 1] (``Layout.scales``)."""
    return CanastaEnv(rules, render_mode=render_mode, reward=reward, max_moves=max_moves,
                      opponents=opponents, normalize=normalize, **options)
