"""Canasta as an OpenSpiel game: ``import canasta_cli.env.openspiel`` registers
``python_canasta``, so that ``pyspiel.load_game("python_canasta")`` works.

The deal is chance, card by card: before each hand, ``deck_size`` chance nodes each place
the next card of the deck, uniformly among the cards not yet placed (outcome = card id).
The deck then goes to the exact engine as a stacked deck, so every hand is the engine's
game for that deck.  Parameters: ``rules`` (a preset name), ``options`` (rule options,
``"target=3000,max_turns=500"``) and ``max_hands`` (default 1: one hand is a game; more
play on, the scores carried over, until a side reaches the target).  The first dealer is
the last seat, so seat 0 leads.  Returns are terminal: each side's points less the mean of
the other sides' (zero-sum), the same for every player of a side.  Tensors are the
environment's observation vector (docs/ML.md), all zero during a deal; the information
state string is the player's whole history (perfect recall), the observation string its
current view.  Needs ``pip install 'canasta[openspiel]'``.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found, import-untyped, unused-ignore]

from ..core import Ruleset, apply, legal_moves, new_game, observation, parse_option
from ..core.cards import KIND_OF, KIND_VALUE, TEXT_OF, full_deck
from ..core.deal import game_over_reason
from ..core.observation import history_views
from ..core.state import GameState
from .actions import ActionTable, action_table
from .aec import load_ruleset, side_rewards
from .observe import Encoder
from .public import PublicTracker

NAME = "python_canasta"
DEFAULTS: dict[str, Any] = {"rules": "classic", "options": "", "max_hands": 1}

_GAME_TYPE = pyspiel.GameType(
    short_name=NAME,
    long_name="Python Canasta (canasta_cli, exact rules)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


def parse_options(text: str) -> dict[str, Any]:
    """``"target=3000,max_turns=500"`` as rule options (the ``--set`` syntax)."""
    return dict(parse_option(part) for part in text.split(",") if part.strip())


def utility_bound(rules: Ruleset, hands: int) -> float:
    """A bound on a return: each hand a side scores at most every card, a canasta bonus for
    every seven cards, every red three, the going-out bonus and the permission penalty."""
    cards = sum(KIND_VALUE[KIND_OF[c]] for c in full_deck(rules.decks))
    canastas = rules.deck_size // 7 * (500 + rules.concealed_canasta_bonus)
    red3 = 1200 + abs(rules.red3_no_meld_all_four)
    out = max(rules.going_out_bonus, rules.concealed_going_out_bonus)
    per_hand = cards + canastas + red3 + out + rules.permission_fail_penalty
    return float(2 * per_hand * hands)


class _Context:
    """What every state of one game shares (kept out of clones' deep copies)."""

    def __init__(self, rules: Ruleset, max_hands: int) -> None:
        self.rules = rules
        self.hand_rules = rules.with_options(max_hands=1)
        self.max_hands = max_hands
        self.table: ActionTable = action_table(rules)
        self.encoder = Encoder(rules)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Context:
        return self


class _Run:
    """The game in progress: engine states are immutable, so a clone shares them."""

    def __init__(self, players: int) -> None:
        self.engine: GameState | None = None
        self.tracker: PublicTracker | None = None
        self.deck: list[int] = []
        self.placed: set[int] = set()
        self.hands_done = 0
        self.scores: tuple[int, ...] | None = None
        self.dealer = players - 1
        self.past: tuple[tuple[str, ...], ...] = ((),) * players
        self.over = False

    def __deepcopy__(self, memo: dict[int, Any]) -> _Run:
        new = object.__new__(_Run)
        new.engine = self.engine
        new.tracker = self.tracker.copy() if self.tracker is not None else None
        new.deck = list(self.deck)
        new.placed = set(self.placed)
        new.hands_done = self.hands_done
        new.scores = self.scores
        new.dealer = self.dealer
        new.past = self.past
        new.over = self.over
        return new


class CanastaGame(pyspiel.Game):  # type: ignore[misc]
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = {**DEFAULTS, **(params or {})}
        rules = load_ruleset(str(given["rules"]), parse_options(str(given["options"])))
        max_hands = int(given["max_hands"])
        if max_hands < 1:
            raise ValueError("max_hands must be at least 1")
        self.context = _Context(rules, max_hands)
        deck = rules.deck_size
        turns = min(rules.max_turns, 2 * deck + 1)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.context.table.size,
            max_chance_outcomes=deck,
            num_players=rules.players,
            min_utility=-utility_bound(rules, max_hands),
            max_utility=utility_bound(rules, max_hands),
            utility_sum=0.0,
            # Per hand: the deal, then turns (each starts with a draw or a pile take, which
            # move a card for good) of at most a card per decision and four more decisions.
            max_game_length=max_hands * (deck + turns * (deck + 4)),
        )
        super().__init__(_GAME_TYPE, info, given)

    def new_initial_state(self) -> CanastaState:
        return CanastaState(self)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> CanastaObserver:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return CanastaObserver(self.context, recall)


class CanastaState(pyspiel.State):  # type: ignore[misc]
    def __init__(self, game: CanastaGame) -> None:
        super().__init__(game)
        self.context = game.context
        self.run = _Run(game.context.rules.players)

    # The game's flow ----------------------------------------------------------------------

    def current_player(self) -> int:
        run = self.run
        if run.over:
            return int(pyspiel.PlayerId.TERMINAL)
        if run.engine is None:
            return int(pyspiel.PlayerId.CHANCE)
        return run.engine.actor

    def _legal_actions(self, player: int) -> list[int]:
        engine = self.run.engine
        if engine is None or player != engine.actor:
            return []
        return sorted(self.context.table.indices(legal_moves(engine)))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        placed = self.run.placed
        left = [c for c in range(self.context.rules.deck_size) if c not in placed]
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _apply_action(self, action: int) -> None:
        run = self.run
        ctx = self.context
        if run.engine is None:
            if action in run.placed or not 0 <= action < ctx.rules.deck_size:
                raise ValueError(f"card {action} cannot be dealt now")
            run.deck.append(action)
            run.placed.add(action)
            if len(run.deck) == ctx.rules.deck_size:
                self._start_hand()
            return
        before = run.engine
        after = apply(before, ctx.table.moves[action])
        assert run.tracker is not None
        node, fresh = after.log, []
        while node is not None and node is not before.log:
            fresh.append(node[1])
            node = node[0]
        for event in reversed(fresh):
            run.tracker.feed(event)
        run.engine = after
        if after.is_over:
            self._end_hand(after)

    def _start_hand(self) -> None:
        run = self.run
        ctx = self.context
        run.engine = new_game(ctx.hand_rules, seed=0, decks=[run.deck], dealer=run.dealer,
                              scores=run.scores, hand_no=run.hands_done + 1)
        run.tracker = ctx.encoder.tracker()
        for event in run.engine.events():
            run.tracker.feed(event)

    def _end_hand(self, engine: GameState) -> None:
        run = self.run
        ctx = self.context
        run.hands_done += 1
        run.scores = engine.scores
        run.past = tuple(past + (_hand_text(engine, seat),)
                         for seat, past in enumerate(run.past))
        if (run.hands_done >= ctx.max_hands or engine.game_end_reason == "turn_limit"
                or game_over_reason(ctx.rules, engine.scores) is not None):
            run.over = True
            return
        run.engine = None
        run.tracker = None
        run.deck = []
        run.placed = set()
        run.dealer = (run.dealer + 1) % ctx.rules.players

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal card {action} ({TEXT_OF[action]})"
        return self.context.table.text(action)

    def is_terminal(self) -> bool:
        return self.run.over

    def returns(self) -> list[float]:
        rules = self.context.rules
        if not self.run.over or self.run.scores is None:
            return [0.0] * rules.players
        per_side = side_rewards(self.run.scores)
        return [per_side[rules.side_of(p)] for p in range(rules.players)]

    def __str__(self) -> str:
        run = self.run
        if run.engine is None:
            return (f"hand {run.hands_done + 1}: dealing, {len(run.deck)} of"
                    f" {self.context.rules.deck_size} cards placed")
        e = run.engine
        hands = " | ".join(" ".join(TEXT_OF[c] for c in h) for h in e.hands)
        return f"{e!r}; hands: {hands}; stock {len(e.stock)}; pile {len(e.pile)}"


def _hand_text(engine: GameState, seat: int) -> str:
    """A finished hand as ``seat`` saw it (for the information state of later hands)."""
    return "\n".join(json.dumps(v, sort_keys=True) for v in history_views(engine, seat))


class CanastaObserver:
    """OpenSpiel's Python observer interface: ``tensor``, ``dict``, ``set_from``,
    ``string_from``.  The tensor is the environment's vector; ``dict`` views it by field."""

    def __init__(self, context: _Context, perfect_recall: bool) -> None:
        self.context = context
        self.perfect_recall = perfect_recall
        layout = context.encoder.layout
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict = {f.name: self.tensor[layout.slice(f.name)] for f in layout.fields}

    def set_from(self, state: CanastaState, player: int) -> None:
        run = state.run
        if run.engine is None or run.tracker is None:
            self.tensor.fill(0)
            return
        self.tensor[:] = self.context.encoder.from_state(run.engine, player, run.tracker)

    def string_from(self, state: CanastaState, player: int) -> str:
        run = state.run
        if self.perfect_recall:
            parts = [f"player {player}", *run.past[player]]
            if run.engine is not None:
                parts.append(_hand_text(run.engine, player))
            elif not run.over:
                parts.append(f"dealing hand {run.hands_done + 1}: {len(run.deck)} cards placed")
            return "\n".join(parts)
        if run.engine is None:
            return (f"player {player}: dealing hand {run.hands_done + 1},"
                    f" {len(run.deck)} cards placed")
        return json.dumps(observation(run.engine, player, history=False), sort_keys=True)


_registered = False


def register() -> None:
    """Register ``python_canasta`` with OpenSpiel (done on import; safe to call again)."""
    global _registered
    if not _registered:
        pyspiel.register_game(_GAME_TYPE, CanastaGame)
        _registered = True


register()
