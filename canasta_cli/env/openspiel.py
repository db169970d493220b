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

Imperfect information done right: ``resample_from_infostate(player, sampler)`` (what
OpenSpiel's ``ISMCTSBot`` calls) returns a state the player cannot tell from this one, the
cards it has not seen dealt afresh by the engine's determinizer (``core.determinize``) and the
game replayed from that deck, so the new state has its own consistent history
(``CanastaState.resample``; ``resampler(seed)`` gives ``ISMCTSBot.set_resampler`` a
reproducible one).  ``ResamplingMCTSBot`` runs OpenSpiel's ``MCTSBot`` on such states only:
plain ``MCTSBot`` searches the true state and so sees every hand.  docs/ML.md says which
OpenSpiel algorithms see what.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found, import-untyped, unused-ignore]

from ..core import Ruleset, apply, legal_moves, new_game, observation, parse_option
from ..core import events as ev
from ..core.cards import KIND_OF, KIND_VALUE, RED3, TEXT_OF, display_sorted, full_deck
from ..core.deal import game_over_reason
from ..core.determinize import determinize
from ..core.observation import history_views, public_observation
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
    """``"target=3000,max_turns=500"`` as rule options (the ``--set`` syntax).  A game string
    cannot hold ``=`` or ``,`` in a value, so ``:`` and ``;`` may stand for them
    there: ``python_canasta(rules=two-player,options=max_turns:4;target:3000)``."""
    parts = (p.strip() for p in re.split(r"[,;]", text))
    return dict(parse_option(p if "=" in p else p.replace(":", "=", 1)) for p in parts if p)


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
        self.lines: dict[int, tuple[str, ...]] = {}  # per seat: this hand's events as JSON
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
        new.lines = dict(self.lines)
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
        if iig_obs_type is None:
            return CanastaObserver(self.context, False)
        kinds = pyspiel.PrivateInfoType
        private = ("none" if iig_obs_type.private_info == kinds.NONE else
                   "all" if iig_obs_type.private_info == kinds.ALL_PLAYERS else "single")
        return CanastaObserver(self.context, bool(iig_obs_type.perfect_recall),
                               bool(iig_obs_type.public_info), private)


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
        run.lines = {}
        for event in run.engine.events():
            run.tracker.feed(event)

    def _end_hand(self, engine: GameState) -> None:
        run = self.run
        ctx = self.context
        run.hands_done += 1
        run.scores = engine.scores
        run.past = tuple(past + (_hand_text(run, seat),)
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

    # Imperfect information ----------------------------------------------------------------

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]
                                ) -> CanastaState:
        """OpenSpiel's ``ResampleFromInfostate``: a state with the same information state for
        ``player_id``, drawn afresh (``resample``), seeded from ``probability_sampler()``."""
        seed = int(float(probability_sampler()) * 2**53)
        return self.resample(int(player_id), random.Random(seed))

    def resample(self, player: int, rng: random.Random) -> CanastaState:
        """A state ``player`` cannot tell from this one, every card it has not seen dealt at
        random: the same actions replayed from a new deck, so that the state has a history of
        its own (chance outcomes included) that replays to it.  In the hand being played the
        cards the player has not seen (in other hands, in the stock) are dealt by the engine's
        determinizer, then the engine's own constraints are kept (``_Unseen``), and the replay
        is checked: the player's whole history must read the same (else another deal is
        drawn).  Finished hands are kept as they were (all their cards but the stock were shown
        when they ended); during a deal the cards placed so far are drawn afresh."""
        run = self.run
        if run.over:
            return self.clone()  # type: ignore[no-any-return]
        history = [int(a) for a in self.history()]
        if run.engine is None:  # dealing: nobody has seen a card of this hand yet
            placed = len(run.deck)
            fresh = rng.sample(range(self.context.rules.deck_size), placed)
            return self._replayed([*history[:len(history) - placed], *fresh])
        played = 0
        for step in reversed(self.full_history()):
            if step.player == pyspiel.PlayerId.CHANCE:
                break
            played += 1
        start = len(history) - played - len(run.deck)
        unseen = _Unseen(run.engine, run.deck, player)
        for _ in range(_ATTEMPTS):
            deck = unseen.redeal(rng)
            if deck is None:
                continue
            try:
                new = self._replayed([*history[:start], *deck, *history[start + len(deck):]])
            except (ValueError, pyspiel.SpielError):
                continue  # an action the new deal does not allow
            if new._looks_the_same(self, player):
                return new
        raise RuntimeError(f"no deal found that player {player} could not tell from this one"
                           f" in {_ATTEMPTS} attempts")

    def _replayed(self, actions: Sequence[int]) -> CanastaState:
        state: CanastaState = self.get_game().new_initial_state()
        for action in actions:
            state.apply_action(action)
        return state

    def _looks_the_same(self, other: CanastaState, player: int) -> bool:
        a, b = self.run, other.run
        if a.past[player] != b.past[player] or a.engine is None or b.engine is None:
            return False
        return history_views(a.engine, player) == history_views(b.engine, player)

    def __str__(self) -> str:
        run = self.run
        if run.engine is None:
            return (f"hand {run.hands_done + 1}: dealing, {len(run.deck)} of"
                    f" {self.context.rules.deck_size} cards placed")
        e = run.engine
        hands = " | ".join(" ".join(TEXT_OF[c] for c in h) for h in e.hands)
        return f"{e!r}; hands: {hands}; stock {len(e.stock)}; pile {len(e.pile)}"


_ATTEMPTS = 1000  # deals tried by ``resample`` before it gives up (one is nearly always enough)
_NEVER = 1 << 30  # a floor no card id reaches: no card of that kind may lie there


def _card_ids(event: ev.Event) -> Iterable[int]:
    """Every card id an event names."""
    for name in ("card", "top"):
        value = getattr(event, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            yield value
    for name in ("cards", "with_cards"):
        yield from getattr(event, name, ())
    for hand in getattr(event, "hands", ()):
        yield from hand


def _seen_by(events: Sequence[ev.Event], player: int) -> set[int]:
    """The cards of a hand a player has seen: those its events show it (``Event.view``):
    all but the deck, the other seats' deals and their draws."""
    seen: set[int] = set()
    for e in events:
        if isinstance(e, ev.HandStarted):
            continue
        if isinstance(e, ev.Dealt | ev.Drew) and e.seat != player:
            continue
        seen.update(_card_ids(e))
    return seen


def _picks(events: Sequence[ev.Event]) -> Iterable[tuple[int, int, list[int], frozenset[int]]]:
    """Each time a seat took cards from its hand (a meld, a lay-off, a pile take, a discard):
    (event index, seat, the cards, the cards it took up with the pile this turn)."""
    from_pile: frozenset[int] = frozenset()
    for t, e in enumerate(events):
        nxt = events[t + 1] if t + 1 < len(events) else None
        if isinstance(e, ev.Melded):
            if not (isinstance(nxt, ev.PileTaken) and nxt.seat == e.seat):  # else the take's
                yield t, e.seat, list(e.cards), from_pile
        elif isinstance(e, ev.PileTaken):
            from_pile = frozenset()  # a turn's first move
            yield t, e.seat, list(e.with_cards), from_pile
        elif isinstance(e, ev.Added):
            yield t, e.seat, [e.card], from_pile
        elif isinstance(e, ev.Discarded):
            yield t, e.seat, [e.card], from_pile
            from_pile = frozenset()  # the turn is over
        elif isinstance(e, ev.Drew):
            from_pile = frozenset()
        elif isinstance(e, ev.PilePickedUp):
            from_pile = frozenset(e.cards)


class _Unseen:
    """The cards of the hand in play one player has not seen, and where they lie: each is a
    position of the deck (a slot), in another seat's hand or in the stock.  A uniform deal of
    them is not always a state of this game, because the engine's own choices show through:
    a red three is laid as soon as it is drawn (and after the deal), and a seat that plays a
    card of a kind plays the first of that kind in its hand (by card id, cards taken with the
    pile last), so a card it still holds cannot come before the one it played.  ``floors``
    holds, per slot, the lowest card id each kind may have there (``_NEVER``: none)."""

    def __init__(self, engine: GameState, deck: Sequence[int], player: int) -> None:
        events = engine.events()
        self.engine = engine
        self.player = player
        self.seen = _seen_by(events, player)
        self.slots = [i for i, c in enumerate(deck) if c not in self.seen]
        self.cards = [deck[i] for i in self.slots]  # the true cards, only to size the deal
        self.deck = list(deck)
        self.owner = {c: s for s, hand in enumerate(engine.hands) for c in hand}
        self.floors: list[dict[int, int]] = [{} for _ in self.slots]
        self._rule_out(events)

    def _rule_out(self, events: Sequence[ev.Event]) -> None:
        rules = self.engine.rules
        arrival: dict[int, int] = {}
        for t, e in enumerate(events):
            if isinstance(e, ev.Dealt):
                arrival.update((c, t) for c in e.cards)
            elif isinstance(e, ev.Drew):
                arrival.setdefault(e.card, t)
        slot_of = {c: i for i, c in enumerate(self.cards)}
        held: dict[int, list[int]] = {}
        for c, i in slot_of.items():
            seat = self.owner.get(c)
            if seat is None:
                continue  # in the stock
            held.setdefault(seat, []).append(c)
            dealt = isinstance(events[arrival[c]], ev.Dealt)
            if not (dealt and rules.initial_red3_timing == "first_turn"
                    and not self._has_played(seat)):
                self.floors[i][RED3] = _NEVER
        for t, seat, cards, from_pile in _picks(events):
            for kind in {KIND_OF[c] for c in cards}:
                same = [c for c in cards if KIND_OF[c] == kind]
                floor = _NEVER if any(c in from_pile for c in same) else max(same) + 1
                for c in held.get(seat, ()):
                    if arrival[c] < t:
                        floors = self.floors[slot_of[c]]
                        floors[kind] = max(floors.get(kind, 0), floor)

    def _has_played(self, seat: int) -> bool:
        """Whether ``seat`` has begun a turn this hand (its dealt red threes are laid then)."""
        e = self.engine
        return e.hand_turns >= (seat - e.dealer - 1) % e.rules.players + 1

    def violations(self, cards: Sequence[int]) -> int:
        """How many slots hold a card the engine's choices rule out there."""
        return sum(c < f.get(KIND_OF[c], 0) for c, f in zip(cards, self.floors, strict=True))

    def redeal(self, rng: random.Random) -> list[int] | None:
        """A new deck for the hand: the player's seen cards where they were, the others dealt
        by ``core.determinize`` (each seat its cards known from pile pickups, the rest at
        random), then, if that deal breaks a constraint, a Metropolis chain of swaps of two
        slots (a symmetric proposal, accepted when no constraint more is broken) until none
        is and for a while after, so that it settles on a uniform deal among the allowed
        ones.  None if the chain does not get there (the caller draws again)."""
        cards = self._deal(rng)
        if cards is None or not self._settle(cards, rng):
            return None
        deck = list(self.deck)
        for i, c in zip(self.slots, cards, strict=True):
            deck[i] = c
        return deck

    def _deal(self, rng: random.Random) -> list[int] | None:
        e, player = self.engine, self.player
        hands = [[c for c in hand if c in self.seen] if s != player else []
                 for s, hand in enumerate(e.hands)]
        facts = {"pile": [TEXT_OF[c] for c in e.pile],
                 "known": [[TEXT_OF[c] for c in display_sorted(h)] for h in hands]}
        det = determinize(observation(e, player, history=False), facts, e.rules, rng)
        pools: dict[str, list[int]] = {}
        for c in self.cards:
            pools.setdefault(TEXT_OF[c], []).append(c)
        for pool in pools.values():
            rng.shuffle(pool)
        by_slot: dict[int, int] = {}
        for s, hand in enumerate(det.hands):
            if s == player:
                continue
            texts = list((Counter(TEXT_OF[c] for c in hand)
                          - Counter(TEXT_OF[c] for c in hands[s])).elements())
            mine = [c for c in self.cards if self.owner.get(c) == s]
            if len(texts) != len(mine):
                return None
            rng.shuffle(texts)
            by_slot.update((c, pools[t].pop()) for c, t in zip(mine, texts, strict=True))
        stock = [c for c in self.cards if c not in self.owner]  # in deck order: the stock's
        if len(stock) != len(det.stock):
            return None
        by_slot.update((c, pools[TEXT_OF[d]].pop()) for c, d in zip(stock, det.stock, strict=True))
        return [by_slot[c] for c in self.cards]

    def _settle(self, cards: list[int], rng: random.Random) -> bool:
        floors = self.floors
        broken = self.violations(cards)
        if not broken:
            return True  # a uniform deal that breaks nothing: uniform among the allowed ones
        n = len(cards)
        mix = 2 * n * max(1, math.ceil(math.log(n)))  # proposals once nothing is broken
        left = mix
        for _ in range(50 * mix):
            i, j = rng.randrange(n), rng.randrange(n)
            ci, cj = cards[i], cards[j]
            fi, fj = floors[i], floors[j]
            delta = ((cj < fi.get(KIND_OF[cj], 0)) + (ci < fj.get(KIND_OF[ci], 0))
                     - (ci < fi.get(KIND_OF[ci], 0)) - (cj < fj.get(KIND_OF[cj], 0)))
            if delta <= 0:
                cards[i], cards[j] = cj, ci
                broken += delta
            if not broken:
                left -= 1
                if not left:
                    return True
        return False


def resampler(seed: int | None = None) -> Callable[[CanastaState, int], CanastaState]:
    """A resampling function for ``ISMCTSBot.set_resampler``, drawing from its own seeded
    generator (the bot's default path seeds each draw from OpenSpiel's random device)."""
    rng = random.Random(seed)

    def resample(state: CanastaState, player: int) -> CanastaState:
        return state.resample(player, rng)

    return resample


class ResamplingMCTSBot(pyspiel.Bot):  # type: ignore[misc]
    """OpenSpiel's ``MCTSBot`` searching only worlds the player cannot tell from the real one
    (determinized MCTS, as in perfect-information Monte Carlo): at each decision ``worlds``
    states drawn by ``resample``, a search of ``mcts_bot`` on each, the visit counts of the
    root's moves summed; the most visited move is played.  ``mcts_bot.step`` on the state
    itself would search the true cards of every hand."""

    def __init__(self, mcts_bot: Any, worlds: int = 4, seed: int | None = None) -> None:
        pyspiel.Bot.__init__(self)
        if worlds < 1:
            raise ValueError("worlds must be at least 1")
        self.mcts = mcts_bot
        self.worlds = worlds
        self.rng = random.Random(seed)

    def restart_at(self, state: CanastaState) -> None:
        pass

    def inform_action(self, state: CanastaState, player: int, action: int) -> None:
        pass

    def step(self, state: CanastaState) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        player = state.current_player()
        visits: Counter[int] = Counter()
        for _ in range(self.worlds):
            root = self.mcts.mcts_search(state.resample(player, self.rng))
            for child in root.children:
                visits[int(child.action)] += int(child.explore_count)
        return int(max(legal, key=lambda a: (visits[a], -a)))


def _hand_text(run: _Run, seat: int) -> str:
    """The hand in play as ``seat`` saw it, an event a line (for the information state): the
    lines made for the earlier states of the hand are kept (the history only grows)."""
    assert run.engine is not None
    views = history_views(run.engine, seat)
    lines = run.lines.get(seat, ())
    if len(lines) < len(views):
        lines += tuple(json.dumps(v, sort_keys=True) for v in views[len(lines):])
        run.lines[seat] = lines
    return "\n".join(lines)


class CanastaObserver:
    """OpenSpiel's Python observer interface: ``tensor``, ``dict``, ``set_from``,
    ``string_from``.  The player's own view (``public`` and ``private="single"``: the default
    observation, and with ``perfect_recall`` the information state) has the environment's
    vector as its tensor, ``dict`` viewing it by field.  Without perfect recall the other
    observation types are strings only: ``public`` gives the table as everyone sees it
    (``core.observation.public_observation``), ``private`` adds the hand of the player
    (``"single"``) or of every seat (``"all"``), or nothing (``"none"``).  Perfect recall is
    offered for the player's own view only."""

    def __init__(self, context: _Context, perfect_recall: bool, public: bool = True,
                 private: str = "single") -> None:
        if private not in ("none", "single", "all"):
            raise ValueError(f"private must be none, single or all, not {private!r}")
        own = public and private == "single"
        if perfect_recall and not own:
            raise ValueError("perfect recall is offered for the player's own view only"
                             " (public_info, private_info=SINGLE_PLAYER)")
        self.context = context
        self.perfect_recall = perfect_recall
        self.public = public
        self.private = private
        self.tensor: Any = None
        self.dict: dict[str, Any] = {}
        if own:
            layout = context.encoder.layout
            self.tensor = np.zeros(layout.size, np.float32)
            self.dict = {f.name: self.tensor[layout.slice(f.name)] for f in layout.fields}

    def set_from(self, state: CanastaState, player: int) -> None:
        if self.tensor is None:
            return
        run = state.run
        if run.engine is None or run.tracker is None:
            self.tensor.fill(0)
            return
        self.tensor[:] = self.context.encoder.from_state(run.engine, player, run.tracker)

    def string_from(self, state: CanastaState, player: int) -> str:
        run = state.run
        if self.tensor is None:
            return self._part_string(run, player)
        if self.perfect_recall:
            parts = [f"player {player}", *run.past[player]]  # the finished hands
            if run.over:
                return "\n".join(parts)
            if run.engine is not None:
                parts.append(_hand_text(run, player))
            else:
                parts.append(f"dealing hand {run.hands_done + 1}: {len(run.deck)} cards placed")
            return "\n".join(parts)
        if run.engine is None:
            return (f"player {player}: dealing hand {run.hands_done + 1},"
                    f" {len(run.deck)} cards placed")
        return json.dumps(observation(run.engine, player, history=False), sort_keys=True)

    def _part_string(self, run: _Run, player: int) -> str:
        engine = run.engine
        if engine is None:  # nobody has a card of this hand yet
            return (f"dealing hand {run.hands_done + 1}, {len(run.deck)} cards placed"
                    if self.public else "")
        view: dict[str, Any] = public_observation(engine) if self.public else {}
        if self.private == "single":
            view.update(seat=player, hand=[TEXT_OF[c] for c in display_sorted(engine.hands[player])])
        elif self.private == "all":
            view["hands"] = [[TEXT_OF[c] for c in display_sorted(h)] for h in engine.hands]
        return json.dumps(view, sort_keys=True) if view else ""


_registered = False


def register() -> None:
    """Register ``python_canasta`` with OpenSpiel (done on import; safe to call again)."""
    global _registered
    if not _registered:
        pyspiel.register_game(_GAME_TYPE, CanastaGame)
        _registered = True


register()
