"""A gymnasium single-agent environment (``canasta_cli.env.single_agent_env``): one seat's
decisions, the other seats' players inside.

It is the AEC environment with opponents (``aec_env(..., opponents=...)``) behind
gymnasium's ``Env``: a ``Dict`` observation (``observation``, ``action_mask``), ``Discrete``
actions, and the learner's side's reward of each step.  docs/ML.md documents it.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ..core import Ruleset
from .aec import CanastaEnv, IllegalActionError, load_ruleset

# The keywords single_agent_env hands to the AEC environment as they are; any other is a
# rule option.
_ENV_KEYWORDS = frozenset({"render_mode", "reward", "max_moves"})
MAX_SKIPPED = 1000  # games over before the learner's first decision, skipped in a row
LEARNER = "learner"  # partner=LEARNER: the learner plays its partners' seats too


class CanastaSingleEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """One seat of Canasta as a gymnasium ``Env``.  See ``single_agent_env``."""

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(self, rules: Ruleset | str = "classic", *, seat: int = 0,
                 opponents: Any = "builtin:greedy", partner: Any = None,
                 normalize: bool = False, **options: Any) -> None:
        env_options = {k: v for k, v in options.items() if k in _ENV_KEYWORDS}
        ruleset = load_ruleset(rules, {k: v for k, v in options.items()
                                       if k not in _ENV_KEYWORDS})
        specs = _seats(ruleset, seat, opponents, partner)
        self.game = CanastaEnv(ruleset, opponents=specs, normalize=normalize, **env_options)
        self.rules = ruleset
        self.seat = seat
        self.render_mode = self.game.render_mode
        agent = self.game.possible_agents[0]
        self.observation_space = self.game.observation_spaces[agent]
        self.action_space = spaces.Discrete(self.game.table.size)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new game, seeded as ``aec_env``'s ``reset`` (the same seed, the same game, the
        opponents' play included); the opponents' moves up to the learner's first.  A game
        the opponents end before the learner's first decision (a concealed going out on the
        first turn) is no episode: the next game of the seed's sequence is dealt instead, and
        ``info["skipped"]`` counts such games, so an episode always starts with a decision."""
        super().reset(seed=seed)
        self.game.reset(seed=seed)
        skipped = 0
        while self._over() and skipped < MAX_SKIPPED:
            self.game.reset()  # the next seed of the sequence: still reproducible
            skipped += 1
        return self._observe(), {"skipped": skipped} if skipped else {}

    def _over(self) -> bool:
        agent = self.game.agent_selection
        return bool(self.game.terminations[agent] or self.game.truncations[agent])

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """The learner's move, then the opponents' up to the learner's next decision or the
        end.  An action off the mask plays nothing: the same observation comes back with
        reward 0 and ``info["illegal"]`` saying why."""
        game = self.game
        agent = game.agent_selection
        if game.terminations[agent] or game.truncations[agent]:
            raise RuntimeError("the episode is over: call reset() to start a new game")
        try:
            game.step(action)
        except IllegalActionError as exc:
            return self._observe(), 0.0, False, False, {"illegal": str(exc)}
        return (self._observe(), float(game.rewards[agent]), bool(game.terminations[agent]),
                bool(game.truncations[agent]), {})

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now, as booleans (what sb3-contrib's ``MaskablePPO`` asks an
        environment for)."""
        mask = np.zeros(self.game.table.size, np.bool_)
        if not (self.game.terminations[self.game.agent_selection]
                or self.game.truncations[self.game.agent_selection]):
            mask[self.game.legal_actions()] = True
        return mask

    def render(self) -> str | None:
        return self.game.render()

    def close(self) -> None:
        self.game.close()

    def _observe(self) -> dict[str, Any]:
        return self.game.observe(self.game.agent_selection)


def _seats(rules: Ruleset, seat: int, opponents: Any, partner: Any) -> list[Any]:
    """The AEC environment's ``opponents`` list: None at the learner's seat (and at its
    partners' with ``partner="learner"``), each other seat's spec."""
    n = rules.players
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ValueError(f"seat must be a seat of {rules.name}, 0 to {n - 1}, not {seat!r}")
    partners = [s for s in rules.seats_of(rules.side_of(seat)) if s != seat]
    if partner is not None and not partners:
        raise ValueError(f"partner: seat {seat} has no partner in {rules.name}")
    specs: list[Any] = []
    for s in range(n):
        if s == seat or (s in partners and partner == LEARNER):
            specs.append(None)
        elif s in partners and partner is not None:
            specs.append(partner)
        else:
            specs.append(_spec_for(opponents, s))
    return specs


def _spec_for(opponents: Any, s: int) -> Any:
    """Seat ``s``'s opponent: the one spec, or its entry of a dict or list per seat."""
    if isinstance(opponents, dict | list | tuple):
        try:
            spec = opponents[s]
        except (KeyError, IndexError):
            raise ValueError(f"opponents: no opponent for seat {s}") from None
    else:
        spec = opponents
    if spec is None:
        raise ValueError(f"opponents: no opponent for seat {s} (a single-agent environment's"
                         " learner plays its own seat, and its partners' with"
                         " partner='learner')")
    return spec


def single_agent_env(rules: Ruleset | str = "classic", *, seat: int = 0,
                     opponents: Any = "builtin:greedy", partner: Any = None,
                     normalize: bool = False, **options: Any) -> CanastaSingleEnv:
    """A gymnasium ``Env`` in which the learner plays ``seat`` and ``opponents`` play every
    other seat: one spec for all (``"builtin:NAME"``, a bot's command line, a policy
    ``(observation, mask) -> action index``) or a dict or list of them per seat.  ``partner``
    (partnership games): the partners' player, a spec, or ``"learner"`` for the learner to
    play them too (each decision then seen from the seat to act); None: the opponents' spec.
    ``options``: ``render_mode``, ``reward`` and ``max_moves`` as in ``aec_env``, and rule
    options (``max_hands=1``).  The reward of a step is the learner's side's (``aec_env``'s
    rewards), the opponents' moves in it included."""
    return CanastaSingleEnv(rules, seat=seat, opponents=opponents, partner=partner,
                            normalize=normalize, **options)


# ``gymnasium.make("canasta_cli.env.single:Canasta-v0", opponents=..., ...)`` imports this
# module and builds the environment with ``single_agent_env``'s keywords.
ENV_ID = "Canasta-v0"
if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="canasta_cli.env.single:CanastaSingleEnv")
