"""A player that searches under hidden information: determinized Monte Carlo over the engine.

For each decision it deals the cards it cannot see at random, consistently with everything its
seat knows (its hand, the melds, the red threes, the pile, the cards known to be in hands,
every hand's size and the stock's), plays each listed move in that deal, continues with a fast
policy for a few turns, and scores the result; it picks the move with the best mean over many
deals.  It reads only the protocol messages (the ``act`` and the events it was sent), like any
bot: re-dealing the cards it cannot see cannot change its answer (the test suite checks).
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core import Ruleset, apply, format_move, legal_moves
from ..core.cards import (
    BLACK3,
    DEUCE,
    JOKER,
    KIND_OF,
    KIND_VALUE,
    VALUE_OF,
)
from ..core.deal import game_over_reason
from ..core.determinize import Known, determinize
from ..core.facts import public_facts
from ..core.legality import frozen_against
from ..core.moves import Add, Answer, Discard, Draw, Meld, Move, TakePile
from ..core.reasons import GameEnd
from ..core.scoring import score_side
from ..core.state import GameState, Phase, kind_counts
from .evidence import NO_OUTCOME, Evidence, Outcome, clearly_better
from .evidence import count as _count
from .evidence import mean as _mean
from .inference import infer_factors

CANASTA_BONUS = {True: 500, False: 300}
# Playing by the score: a game won (or lost) at the target counts for more than any hand's
# points can, so the search prefers a move that wins the game to one that scores more.
GAME_WIN = 20_000.0


@dataclass(frozen=True)
class Ranked:
    """One listed move's estimate: the mean score difference it led to, over ``samples``."""

    index: int
    text: str
    value: float
    samples: int


# The fast policy (rollouts, and the 'normal' level) ------------------------------------------

def _pair_odds(unseen: int, hand: int, unknown: int) -> float:
    """Chance that a hand of ``hand`` cards, dealt from ``unknown`` unseen cards, holds two or
    more of the ``unseen`` copies of a rank (binomial approximation)."""
    if unseen < 2 or unknown <= 0:
        return 0.0
    q = min(1.0, hand / unknown)
    return 1.0 - (1 - q) ** unseen - unseen * q * (1 - q) ** (unseen - 1)


def _discard_cost(st: GameState, kind: int, seat: int,
                  pile: Sequence[int] | None = None) -> float:
    """What a discard gives up (points and pairs kept for melds) plus what it risks: the next
    player taking the pile with it (a meld of that rank, or a pair the cards seen allow).
    A wild card is worth a fixed 100: it is discarded, freezing the pile, only when every
    other discard risks more than that."""
    if kind in (DEUCE, JOKER):
        return 100.0
    if kind == BLACK3:
        return -50.0
    hc = st.hc[seat]
    cost = KIND_VALUE[kind] / 5 + 10 * (hc[kind] - 1)
    rules = st.rules
    nxt = (seat + 1) % rules.players
    row = st.team[nxt]
    if row == st.team[seat]:
        return cost  # a partner takes it: no risk
    frozen = frozen_against(st, row)
    stake = 60 + 30 * len(st.pile)  # the pile the next player would win with this card
    if not frozen and st.melds[row][kind] is not None:
        return cost + 40 + stake
    if pile is None:
        pile = kind_counts(st.pile)
    seen = hc[kind] + pile[kind]
    for info in st.minfo:  # plain loops: C loops compiled, no generator objects
        seen += info.nat[kind]
    unseen = 4 * rules.decks - seen
    others = len(st.stock)
    for s, h in enumerate(st.hands):
        if s != seat:
            others += len(h)
    odds = _pair_odds(unseen, len(st.hands[nxt]), others)
    return cost + odds * stake


def fast_policy(st: GameState, rng: random.Random) -> Move:
    """A greedy choice on engine objects: go out or meld when it pays, keep wild cards for
    canastas, take piles of three or more, discard what is cheapest and safest."""
    moves = legal_moves(st)
    if len(moves) == 1:
        return moves[0]
    seat = st.actor
    if st.phase is Phase.ANSWER:
        return moves[0]  # yes
    if st.phase is Phase.DRAW:
        takes = [m for m in moves if isinstance(m, TakePile)]
        if takes and (len(st.pile) >= 3 or not any(isinstance(m, Draw) for m in moves)):
            best_take = takes[0]  # the first of the best, as max() picks
            top = best_take.naturals - 3 * (best_take.deuces + best_take.jokers)
            for t in takes:
                v = t.naturals - 3 * (t.deuces + t.jokers)
                if v > top:
                    best_take, top = t, v
            return best_take
        return moves[0]
    hand_n = len(st.hands[seat])
    best: Move | None = None
    best_score = 0.0
    row = st.melds[st.team[seat]]
    opening = not st.side_open_at_start
    for m in moves:
        score = 0.0
        if isinstance(m, Meld):
            wilds = m.deuces + m.jokers
            size = m.naturals + wilds
            if m.rank == BLACK3:
                score = 100.0
            elif opening:
                score = 1.0 + (m.naturals * KIND_VALUE[m.rank] + 20 * wilds) / 10
            elif wilds and size < 7 and hand_n > size + 1:
                score = -1.0
            else:
                score = 5.0 + size
        elif isinstance(m, Add):
            meld = row[m.rank]
            size = len(meld.cards) if meld is not None else 0
            score = 6.0 if m.kind == m.rank else 8.0 if size == 6 or hand_n <= 2 else -1.0
        if score > best_score:
            best, best_score = m, score
    if best is not None:
        return best
    discards = [m for m in moves if isinstance(m, Discard)]
    if discards:
        pile = kind_counts(st.pile)
        cheapest = discards[0]  # the first of the cheapest, as min() picks
        low = _discard_cost(st, cheapest.kind, seat, pile)
        for d in discards[1:]:
            cost = _discard_cost(st, d.kind, seat, pile)
            if cost < low:
                cheapest, low = d, cost
        return cheapest
    others = [m for m in moves if not isinstance(m, Answer)]
    return (others or moves)[0]


# Evaluation ---------------------------------------------------------------------------------

def _side_value(st: GameState, row: int, seats: list[int], side: int) -> float:
    melds = [m for m in st.melds[row] if m is not None]
    value = sum(m.value for m in melds)
    for m in melds:
        n = len(m.cards)
        if n >= 7:
            value += CANASTA_BONUS[m.wilds == 0]
        elif n >= 5:
            value += 40 * (n - 4)  # half-way to a canasta
    reds = len(st.red3[side]) if side < len(st.red3) else 0
    value += (100 if melds else -100) * reds
    value -= sum(KIND_VALUE[KIND_OF[c]] for s in seats for c in st.hands[s])
    return float(value)


def evaluate(st: GameState, start: GameState, me: int, by_score: bool = False) -> float:
    """My side's score minus the best other side's: the hand's real result if it ended,
    else a heuristic of the table and the hands.  ``by_score``: a game that ended at the
    target adds ``GAME_WIN`` for my side's win and takes it away for another side's."""
    rules = start.rules
    if st.hand_no != start.hand_no or st.is_over:
        mine = rules.side_of(me)
        totals = [a - b for a, b in zip(st.scores, start.scores, strict=True)]
        others = [t for s, t in enumerate(totals) if s != mine]
        value = float(totals[mine] - max(others))
        if by_score and st.is_over and st.game_end_reason in (GameEnd.TARGET, GameEnd.DRAW):
            if st.winner == mine:
                value += GAME_WIN
            elif st.winner is not None:
                value -= GAME_WIN
        return value
    players = rules.players
    values = []
    for side in range(rules.sides):
        if rules.cutthroat:
            row = st.team[side]
            seats = [s for s in range(players) if st.team[s] == row]
        else:
            row, seats = side, list(rules.seats_of(side))
        values.append(_side_value(st, row, seats, side))
    mine = rules.side_of(me)
    return values[mine] - max(v for s, v in enumerate(values) if s != mine)


def rollout(st: GameState, me: int, rng: random.Random, turns: int) -> float:
    done = rollout_to(st, me, rng, turns, None)
    assert done is not None  # no deadline: it always finishes
    return done[0]


class Clock:
    """The decision's deadline, read before every move: it counts as passed one step early,
    a step being the longest gap seen between two reads (a move's work, or a pause when the
    machine is busy; at least ``pause``, the longest of the player's recent decisions), the
    player's learned ``reserve`` or 1% of the time allowed, whichever is longest, so that the
    answer goes out close to the deadline, not a step after.  A pause that comes late in a
    decision has usually been seen in the decisions before it: a machine busy now was busy
    a moment ago."""

    def __init__(self, deadline: float, reserve: float = 0.0, pause: float = 0.0) -> None:
        self.deadline = deadline
        self.start = self.last = time.monotonic()
        self.seen = 0.0  # the longest gap between two reads in this decision
        self.step = pause
        self.reserve = max(reserve, 0.01 * (deadline - self.start))
        self.stopped = False  # a read said the deadline had (nearly) passed

    def passed(self) -> bool:
        now = time.monotonic()
        gap = now - self.last
        if gap > self.seen:
            self.seen = gap
            if gap > self.step:
                self.step = gap
        self.last = now
        if now + max(self.step, self.reserve) >= self.deadline:
            self.stopped = True
        return self.stopped


def rollout_to(st: GameState, me: int, rng: random.Random, turns: int,
               deadline: Clock | None, by_score: bool = False) -> tuple[float, Outcome] | None:
    """Play ``turns`` turns (0: to the end of the hand) with the fast policy and score them
    (``evaluate``), with what happened (did my side go out, did the next player take the
    pile); ``None`` if the clock passed ``deadline`` first (read before every move)."""
    start_hand = st.hand_no
    start = st
    limit = st.turn_no + turns if turns else 1 << 30
    guard = 2000
    nxt = (me + 1) % st.rules.players
    first_turn = st.turn_no + (0 if st.turn_seat == nxt else 1)
    out_turns = -1
    took = False
    while not st.is_over and st.hand_no == start_hand and st.turn_no < limit and guard:
        if deadline is not None and deadline.passed():
            return None
        move = fast_policy(st, rng)
        actor, turn = st.actor, st.turn_no
        took |= isinstance(move, TakePile) and actor == nxt and turn == first_turn
        st = apply(st, move)
        guard -= 1
        if (st.is_over or st.hand_no != start_hand) and st.rules.side_of(actor) == \
                st.rules.side_of(me):
            out_turns = turn - start.turn_no
    made = _canastas_at_end(st, start, me) - _canastas(start, me)
    return evaluate(st, start, me, by_score), Outcome(out_turns, took, made)


def _canastas(st: GameState, me: int) -> int:
    """The canastas on the table of ``me``'s side."""
    n = 0
    for m in st.melds[st.team[me]]:
        if m is not None and len(m.cards) >= 7:
            n += 1
    return n


def _canastas_at_end(st: GameState, start: GameState, me: int) -> int:
    """``_canastas`` where the rollout stopped: from the hand's result when it ended (the
    next hand's deal has cleared the table)."""
    if (st.hand_no == start.hand_no and not st.is_over) or not st.results:
        return _canastas(st, me)
    side = st.results[-1].sides[start.rules.side_of(me)]
    return side.natural_canastas + side.mixed_canastas


# The player ---------------------------------------------------------------------------------

class SearchPlayer:
    """Either ``deals`` determinizations per decision (a fixed-deal budget: the decision is
    then reproducible given the seed, whatever the machine's load) or ``budget_ms`` of wall
    clock, read before every rollout and inside it, so that it is never overrun by more than a
    few moves.  ``horizon`` turns are played out after each candidate move (0: to the end of
    the hand); ``infer`` weights the deals by the others' visible play (``inference.py``).
    A move other than the fast policy's own is chosen only on paired evidence over the same
    deals, at a threshold corrected for the number of moves compared (``alpha``).
    ``by_score``: it plays to win the game (``evaluate``), and answers a partner's "may I go
    out?" by searching both answers instead of always saying yes."""

    hears_events = True  # it needs the events to know the pile and the cards picked up

    def __init__(self, seed: int = 0, budget_ms: float = 1000.0, simulations: int | None = None,
                 horizon: int = 8, *, deals: int | None = None, infer: bool = False,
                 alpha: float = 0.2, by_score: bool = False) -> None:
        self.seed = seed
        self.budget_ms = budget_ms
        self.simulations = deals if deals is not None else simulations
        self.horizon = horizon
        self.infer = infer
        self.alpha = alpha
        self.by_score = by_score
        self.rules: Ruleset | None = None
        self.history: list[dict[str, Any]] = []
        self.last: list[Ranked] = []
        self.evidence: Evidence | None = None  # the last decision's deals, for 'hint'
        self.cut_short = 0  # fixed-deal decisions stopped by the referee's time limit
        self.reserve = 0.0  # seconds kept back at the deadline, learned from late answers
        self.pause = 0.0  # the longest gap between clock reads lately (decays by a fifth)

    def __call__(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        kind = msg.get("type")
        if kind in ("hello", "game_start") and isinstance(msg.get("rules"), dict):
            self.rules = Ruleset.from_dict(msg["rules"])
            if kind == "game_start":
                self.history = []
        elif kind == "event":
            self.history.append(msg["event"])
        elif kind == "act":
            return {"type": "move", "id": msg["id"], "index": self.choose(msg)}
        return None

    def choose(self, msg: dict[str, Any]) -> int:
        return self.rank(msg)[0].index

    def _deadline(self, msg: dict[str, Any]) -> Clock:
        """When to stop: the time budget, and never past 80% of the referee's time for the
        decision, so that the answer arrives in time on a busy machine too.  A fixed-deal
        budget reads the clock only for that guard (counted in ``cut_short``): give it time
        enough (``tournament --decision-ms``) and its decisions never depend on the load."""
        limit = 0.8 * float(msg.get("deadline_ms", 1e9))
        if self.simulations is None:
            limit = min(self.budget_ms, limit)
        return Clock(time.monotonic() + limit / 1000.0, self.reserve, self.pause)

    def _learn(self, clock: Clock) -> None:
        """After a decision the clock stopped: keep back more time when the answer came after
        the deadline (a pause after the last read, on a busy machine: by how late it was and
        a millisecond), and slowly less when it came early, never more than a quarter of the
        time allowed; and the longest pause between reads, kept for the next decisions,
        fading by a fifth a decision (at most a quarter of the time allowed too)."""
        cap = max(0.0, 0.25 * (clock.deadline - clock.start))
        self.pause = min(cap, max(clock.seen, 0.8 * self.pause))
        if not clock.stopped:
            return
        late = time.monotonic() - clock.deadline
        if late > 0:
            self.reserve = min(cap, self.reserve + late + 0.001)
        else:
            self.reserve = max(0.0, self.reserve + 0.05 * late)

    def rank(self, msg: dict[str, Any]) -> list[Ranked]:
        """Every listed move with its estimate, best first."""
        moves = msg["moves"]
        obs = msg["observation"]
        self.evidence = None
        if (self.by_score and obs["phase"] == "answer" and self.rules is not None
                and len(moves) > 1):
            self.last = self._answer(msg)
            return self.last
        if len(moves) == 1 or self.rules is None or obs["phase"] == "answer":
            texts = [m["text"] for m in moves]
            best = 0 if obs["phase"] != "answer" else texts.index("yes") if "yes" in texts else 0
            self.last = [Ranked(best, texts[best], 0.0, 0)]
            return self.last
        deadline = self._deadline(msg)
        rules = self.rules
        history, facts, rng, known = self._dealing(obs, rules)
        model = infer_factors(history, obs, rules) if self.infer else None
        texts = [m["text"] for m in moves]
        values: list[list[float]] = [[] for _ in moves]  # per complete deal, paired
        outcomes: list[list[Outcome]] = [[] for _ in moves]
        default: int | None = None  # the fast policy's own choice
        me = int(obs["seat"])
        fixed = self.simulations is not None
        rounds = 0
        # Successive halving: every move is tried on the first deals, then the worse half of
        # those still in the running is dropped at rounds 4, 8, 16... (never the fast policy's
        # own move), so that the contenders get the deals.
        active = list(range(len(moves)))
        cut = 4
        timed_out = False
        while not timed_out:
            if fixed and rounds >= (self.simulations or 0):
                break
            if deadline.passed() and (rounds or fixed):
                self.cut_short += fixed
                break
            if rounds == cut and len(active) > 2:
                order = sorted(active, key=lambda i: (-_mean(values[i]), i))
                keep = order[:max(2, (len(active) + 1) // 2)]
                if default is not None and default not in keep:
                    keep.append(default)
                active = sorted(keep)
                cut *= 2
            det = determinize(obs, facts, rules, rng, model, known)
            listed = {format_move(m): m for m in legal_moves(det)}
            base = _canastas(det, me)
            if default is None:
                choice = format_move(fast_policy(det, rng))
                default = texts.index(choice) if choice in texts else 0
            row: list[tuple[int, float, Outcome]] = []
            for i in active:
                move = listed.get(texts[i])
                if move is None:
                    row.append((i, float("nan"), NO_OUTCOME))
                    continue  # this deal's state disagrees on a detail; skip the move here
                after = apply(det, move)
                done = rollout_to(after, me, rng, self.horizon, deadline, self.by_score)
                if done is None:
                    timed_out = True  # an unfinished deal is dropped for every move
                    self.cut_short += fixed
                    break
                outcome = done[1]
                gained = _canastas(after, me) - base  # made by the move itself
                if gained:
                    outcome = Outcome(outcome.out_turns, outcome.next_took_pile,
                                      outcome.canastas + gained)
                row.append((i, done[0], outcome))
            if timed_out:
                break
            rounds += 1
            for i, v, o in row:
                values[i].append(v)
                outcomes[i].append(o)
        ranked = [Ranked(i, texts[i], _mean(values[i]), _count(values[i]))
                  for i in range(len(moves))]
        # The moves still in the running first (they were tried on every deal), then the rest.
        ranked.sort(key=lambda r: (r.index not in active, -r.value, r.index))
        if default is None:
            default = 0
        if ranked[0].index != default:
            best = ranked[0].index
            diffs = [a - b for a, b in zip(values[best], values[default], strict=True)
                     if a == a and b == b]
            if not clearly_better(diffs, len(moves), self.alpha):
                ranked.sort(key=lambda r: (r.index != default, r.index not in active, -r.value,
                                           r.index))
        self.evidence = Evidence(texts, values, outcomes, default, rounds, me)
        self.last = ranked
        self._learn(deadline)
        return ranked


    def _dealing(self, obs: dict[str, Any], rules: Ruleset
                 ) -> tuple[list[dict[str, Any]], dict[str, Any], random.Random, Known]:
        """What the deals of a decision are drawn from: the events, the public facts, a
        generator seeded by the player's seed and the observation (so the same view gives
        the same deals), and what the seat knows."""
        history = obs.get("history") or self.history
        facts = obs.get("public") or public_facts(history, obs, rules.decks)
        digest = hashlib.sha256(json.dumps([self.seed, obs], sort_keys=True).encode()).digest()
        rng = random.Random(int.from_bytes(digest[:8], "big"))
        return history, facts, rng, Known(obs, facts, rules)

    def _answer(self, msg: dict[str, Any]) -> list[Ranked]:
        """By the score, a partner's "may I go out?": no when the hand ending now, with the
        partner out, would end the game with another side ahead; else yes.  The hidden
        hands are dealt ``ANSWER_DEALS`` times (the rollouts cannot play the partner's going
        out: its dealt hand would rarely allow it), and the hand is scored as the engine
        would, the partner's cards counted as melded.  Each answer's value is the mean of
        ``hand_end_value`` over the deals, for "yes", and 0 for "no" (play on)."""
        obs = msg["observation"]
        rules = self.rules
        assert rules is not None
        texts = [m["text"] for m in msg["moves"]]
        _, facts, rng, known = self._dealing(obs, rules)
        me, asker = int(obs["seat"]), int(obs["turn_seat"])
        total = 0.0
        losses = 0
        for _ in range(ANSWER_DEALS):
            det = determinize(obs, facts, rules, rng, None, known)
            value = hand_end_value(det, me, asker)
            total += value
            if value < -GAME_WIN / 2:
                losses += 1
        yes = texts.index("yes") if "yes" in texts else 0
        no = texts.index("no") if "no" in texts else 1 - yes
        said = no if 2 * losses > ANSWER_DEALS else yes
        other = yes + no - said
        values = {yes: total / ANSWER_DEALS, no: 0.0}
        return [Ranked(said, texts[said], values[said], ANSWER_DEALS),
                Ranked(other, texts[other], values[other], ANSWER_DEALS)]


ANSWER_DEALS = 32  # deals of the hidden hands to answer "may I go out?" by the score


def hand_end_value(st: GameState, me: int, out: int) -> float:
    """``evaluate`` by the score of the hand ending now with ``out`` going out, scored as
    the engine scores a hand: the going-out bonus to its side, its cards counted as melded,
    and the least bonus of the canastas its side still needs to go out."""
    rules = st.rules
    out_row = st.team[out]
    hand: list[int] = []
    for side in range(rules.sides):
        row = st.team[side] if rules.cutthroat else side
        hands = [st.hands[s] for s in range(rules.players) if st.team[s] == row and s != out]
        bonus = rules.going_out_bonus if row == out_row else 0
        score = score_side(rules, side, st.melds[row], len(st.red3[side]), hands, bonus).total
        if row == out_row:  # the partner melds its cards, and the canastas going out needs
            made = sum(1 for m in st.melds[row] if m is not None and len(m.cards) >= 7)
            score += sum(VALUE_OF[c] for c in st.hands[out])
            score += CANASTA_BONUS[False] * max(0, rules.canastas_to_go_out - made)
        hand.append(score)
    mine = rules.side_of(me)
    value = float(hand[mine] - max(h for s, h in enumerate(hand) if s != mine))
    totals = [a + b for a, b in zip(st.scores, hand, strict=True)]
    if game_over_reason(rules, totals) is GameEnd.TARGET:
        best_other = max(t for s, t in enumerate(totals) if s != mine)
        value += GAME_WIN if totals[mine] > best_other else -GAME_WIN
    return value


class FastPlayer:
    """The rollout policy as a player (level 'normal'): greedy on the engine's own moves,
    rebuilt from the observation the same way as the search player's deals."""

    hears_events = True

    def __init__(self, seed: int = 0, careless: bool = False) -> None:
        self.rng = random.Random(seed)
        self.careless = careless
        self.inner = SearchPlayer(seed, simulations=0)

    def __call__(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        if msg.get("type") != "act":
            return self.inner(msg)
        obs, moves = msg["observation"], msg["moves"]
        if len(moves) == 1 or self.inner.rules is None:
            return {"type": "move", "id": msg["id"], "index": 0}
        rules = self.inner.rules
        facts = obs.get("public") or public_facts(self.inner.history, obs, rules.decks)
        det = determinize(obs, facts, rules, self.rng)
        move = fast_policy(det, self.rng)
        texts = [m["text"] for m in moves]
        text = format_move(move)
        if self.careless and self.rng.random() < 0.3:
            # 'easy': now and then the worst-looking discard or a plain draw instead of a take
            discards = [i for i, t in enumerate(texts) if t.startswith("discard")]
            if discards and text.startswith("discard"):
                return {"type": "move", "id": msg["id"], "index": self.rng.choice(discards)}
            if "draw" in texts and text.startswith("pile"):
                return {"type": "move", "id": msg["id"], "index": texts.index("draw")}
        index = texts.index(text) if text in texts else 0
        return {"type": "move", "id": msg["id"], "index": index}


__all__ = ["FastPlayer", "Ranked", "SearchPlayer", "determinize", "fast_policy"]
