"""From a trained policy back to a player: ``as_player(policy)``.

The player reads protocol messages only, like the built-in players, so it plays in-process
(``PolicySeat``) or as a bot process (``canasta bot policy``) in ``canasta match``,
``tournament`` and ``play``.  It builds the very observation vector and mask the
environment gives the same seat (``Encoder.from_view`` over the act's observation and the
public facts of the events it was sent), so a policy trained on ``aec_env`` sees the same
numbers here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ..core.cards import KIND_OF
from ..core.errors import CanastaError
from ..core.moves import Move
from ..core.notation import parse_move
from ..core.rules import Ruleset
from ..protocol.messages import ActRequest
from .actions import ActionTable, action_table
from .observe import Encoder
from .public import PublicTracker, face_of_text
from .scaling import Scaler, scaler_for

Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], Any]


class PolicyError(CanastaError, RuntimeError):
    """The policy answered with something that is not one of the legal actions."""


class PolicyPlayer:
    """A protocol player around ``policy(observation, mask) -> action index``."""

    hears_events = True  # the public facts come from the events

    def __init__(self, policy: Policy, rules: Ruleset | None = None,
                 normalize: bool = False) -> None:
        self.policy = policy
        self.normalize = normalize
        self._rules: Ruleset | None = None
        self._encoder: Encoder | None = None
        self._table: ActionTable | None = None
        self._tracker: PublicTracker | None = None
        self._scaler: Scaler | None = None
        if rules is not None:
            self._use(rules)

    def _use(self, rules: Ruleset) -> None:
        if self._rules != rules:
            self._rules = rules
            self._encoder = Encoder(rules)
            self._table = action_table(rules)
            self._scaler = scaler_for(self._encoder.layout, self.normalize)
        self._tracker = PublicTracker(rules.players, rules.decks)

    def __call__(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        kind = dict.get(msg, "type")
        if kind == "event":
            if self._tracker is not None:
                self._tracker.feed_view(msg["event"])
            return None
        if kind in ("hello", "game_start"):
            rules = msg.get("rules")
            if isinstance(rules, dict):
                self._use(Ruleset.from_dict(rules))
            return None
        if kind != "act":
            return None
        return {"type": "move", "id": msg["id"], "index": self.choose(msg)}

    def act(self, request: ActRequest) -> dict[str, Any]:
        """In-process: the listed moves come as engine objects, not parsed back from text."""
        return {"type": "move", "id": request.id,
                "index": self.choose(cast(dict[str, Any], request.message()), request.legal)}

    def vectors(self, msg: dict[str, Any], legal: list[Move] | None = None
                ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], list[int]]:
        """The observation vector, the mask, and the action index of each listed move."""
        if self._encoder is None or self._table is None or self._tracker is None:
            raise PolicyError("no ruleset yet: the player needs the hello or game_start"
                              " message first")
        obs = msg["observation"]
        moves = legal
        if moves is None:
            top = obs.get("pile_top")
            top_rank = KIND_OF[face_of_text(top)] if top is not None else None
            moves = [parse_move(m["text"], top_rank) for m in msg["moves"]]
        indices = self._table.indices(moves)
        mask = np.zeros(self._table.size, np.int8)
        mask[indices] = 1
        vec = np.array(self._encoder.from_view(obs, self._tracker), np.float32)
        if self._scaler is not None:
            self._scaler(vec)
        return vec, mask, indices

    def choose(self, msg: dict[str, Any], legal: list[Move] | None = None) -> int:
        """The listed index of the move the policy picks (``legal``: the listed moves as
        engine objects, when the caller has them)."""
        vec, mask, indices = self.vectors(msg, legal)
        action = self.policy(vec, mask)
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise PolicyError(f"the policy returned {action!r}, not an action index")
        try:
            return indices.index(int(action))
        except ValueError:
            assert self._table is not None
            what = self._table.text(int(action)) if 0 <= action < self._table.size else "?"
            raise PolicyError(f"the policy chose action {int(action)} ({what}), which is not"
                              " legal here") from None


def as_player(policy: Policy, rules: Ruleset | None = None,
              normalize: bool | None = None) -> PolicyPlayer:
    """A player like the built-ins from ``policy(observation, mask) -> action index``.

    ``observation`` and ``mask`` are exactly what ``aec_env`` gives the seat to act (with
    ``normalize=True``, what ``aec_env(..., normalize=True)`` gives; None: the policy's own
    ``normalize`` attribute, if it has one, so that ``canasta bot policy`` plays a policy
    trained on normalized features when its loader sets ``policy.normalize = True``).  The
    ruleset comes from the ``hello``/``game_start`` message (or ``rules``).  Use it as
    ``PolicySeat(name, as_player(policy))``, or run it as a bot process with
    ``canasta bot policy FILE.py --function NAME``."""
    if normalize is None:
        normalize = getattr(policy, "normalize", False) is True
    return PolicyPlayer(policy, rules, normalize)
