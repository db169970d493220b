"""``canasta review``: every decision of one seat set against the search, from that seat's
information only.

The game is replayed through the engine from its record (a ``play`` save, a ``match`` or
``tournament`` record, a served game's save).  At each decision of the reviewed seat, the
review builds what that seat was shown (``observation(state, seat)``, with the events as it
saw them, and the moves it was offered) and hands only that to the search player
(``players/search.py``), which deals the cards the seat could not see at random, consistently
with what it knew (``core/determinize.py``), from a seed made of the review's seed and that
view.  The hidden cards the record holds are never read: re-dealing them leaves the review
unchanged (``tests/test_review.py`` checks).

Each decision is judged in two passes over fixed numbers of deals (so a review is
reproducible, whatever the machine's load): the search ranks every offered move (as the
'hard' level does, rollouts to the end of the hand), and, when its choice is not the move
played, both are played again on fresh deals, side by side, for an unbiased estimate of
each move's value and of the loss (the mean difference, deal by deal), each with its 95%
interval.  A value is the hand's points for the seat's side less the best other side's, as
the rollouts ended the hand.
"""

from __future__ import annotations

import contextlib
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import Move, Ruleset, apply, format_move, legal_moves, observation, parse_move
from ..core.cards import KIND_OF, VALUE_OF
from ..core.determinize import determinize
from ..core.errors import CanastaError
from ..core.facts import public_facts
from ..core.reasons import GOES_ON
from ..core.state import GameState, Phase
from ..hosting.playstats import PlayStats, seat_stats
from ..hosting.records import RecordError, load_record, sealed_parts
from ..hosting.replay import Replay, replay
from ..players import HARD_DEALS, HARD_HORIZON, SearchPlayer
from ..players.evidence import Evidence, Outcome
from ..protocol.messages import move_json
from ..util.seat_names import split_name

DEFAULT_DEALS = HARD_DEALS  # deals per pass and decision: the 'hard' level's
DEFAULT_THRESHOLD = 50.0  # points: a loss above it is a mistake
BLUNDER_TIMES = 3  # a loss above this many times the threshold is a blunder
MAX_DEALS = 100_000
MAX_THRESHOLD = 100_000
Z95 = 1.959964  # the normal quantile of a two-sided 95% interval

MISTAKE, BLUNDER = "mistake", "blunder"


class ReviewError(CanastaError):
    """A review that cannot be made (a seat out of range, another person's unfinished game,
    a record that does not replay); the message is one line."""


@dataclass(frozen=True)
class ReviewPlan:
    """One ``canasta review``: the record, the seat reviewed, the deals per pass and
    decision, the loss (points) above which a decision is flagged, the seed of the deals,
    and whether to show progress on stderr."""

    record: Path
    seat: int
    deals: int = DEFAULT_DEALS
    threshold: float = DEFAULT_THRESHOLD
    seed: int = 0
    progress: bool = False


@dataclass(frozen=True)
class Estimate:
    """One move's value over the deals it was played on: the mean, the half-width of its
    95% interval, the number of deals, how often the next player took the pile on its first
    turn, how often the seat's side went out by the seat's next turn, and the canastas it
    completed by the end of the hand, on average."""

    move: str
    mean: float
    half: float
    deals: int
    next_took: float
    out_soon: float
    canastas: float = 0.0       # canastas the seat's side completed by the hand's end, a deal

    @property
    def low(self) -> float:
        return self.mean - self.half

    @property
    def high(self) -> float:
        return self.mean + self.half


@dataclass(frozen=True)
class Decision:
    """One judged decision of the reviewed seat."""

    number: int                 # the seat's judged decisions, counted from 1 in the game
    step: int                   # the game's move number (1: the first move)
    hand_no: int
    hand_turn: int              # turns begun in the hand when it was taken
    phase: str                  # draw, meld, pile_opening, meld_no_discard
    held: tuple[str, ...]       # the seat's hand, as it saw it
    pile_top: str | None
    pile_size: int
    choices: int                # moves offered
    played: Estimate
    best: Estimate              # the search's choice (the played move's own estimate if it agrees)
    loss: float                 # best less played, deal by deal (0 when they agree)
    loss_half: float            # half-width of the loss's 95% interval
    verdict: str                # "", MISTAKE or BLUNDER
    reason: str                 # why, from the search's figures ("" when not flagged)

    @property
    def agrees(self) -> bool:
        return self.played.move == self.best.move


@dataclass(frozen=True)
class Summary:
    """Decisions judged, agreeing with the search, points lost (the positive losses), and
    the flags, of one hand or of the whole game."""

    hand_no: int | None  # None: the whole game
    decisions: int
    agreeing: int
    lost: float
    mistakes: int
    blunders: int


@dataclass
class Review:
    record: Path
    seat: int
    names: list[str]
    rules: str
    deals: int
    threshold: float
    seed: int
    finished: bool
    decisions: list[Decision] = field(default_factory=list)
    unjudged: int = 0   # decisions not judged: answers to "may I go out?"
    forced: int = 0     # moves the seat had no choice in
    seconds: float = 0.0
    play: PlayStats | None = None  # the seat's statistics of play (hosting/playstats.py)

    def hands(self) -> list[Summary]:
        numbers = sorted({d.hand_no for d in self.decisions})
        return [summarize([d for d in self.decisions if d.hand_no == h], h) for h in numbers]

    def total(self) -> Summary:
        return summarize(self.decisions, None)

    def worst(self, n: int = 3) -> list[Decision]:
        """The flagged decisions that lost most, worst first (at most ``n``)."""
        flagged = [d for d in self.decisions if d.verdict]
        return sorted(flagged, key=lambda d: (-d.loss, d.number))[:n]


def summarize(decisions: Sequence[Decision], hand_no: int | None) -> Summary:
    return Summary(hand_no, len(decisions), sum(d.agrees for d in decisions),
                   sum(max(0.0, d.loss) for d in decisions),
                   sum(d.verdict == MISTAKE for d in decisions),
                   sum(d.verdict == BLUNDER for d in decisions))


def verdict(loss: float, half: float, threshold: float) -> str:
    """The bands: a loss above ``threshold`` points is a mistake, above ``BLUNDER_TIMES``
    times it a blunder; either only when the loss's 95% interval lies above zero (the search
    is sure the other move is better, not merely lucky on these deals)."""
    if loss - half <= 0 or loss <= threshold:
        return ""
    return BLUNDER if loss > BLUNDER_TIMES * threshold else MISTAKE


# The judgement of one decision, from the seat's view alone ---------------------------------

@dataclass(frozen=True)
class SeatView:
    """What the seat was shown when asked: its observation (with the events as it saw them)
    and the moves it was offered, as the protocol words them; all the review reads."""

    observation: dict[str, Any]
    moves: list[dict[str, Any]]


def seat_view(state: GameState, seat: int) -> SeatView:
    moves = legal_moves(state)
    return SeatView(observation(state, seat, history=True),
                    [move_json(m, i) for i, m in enumerate(moves)])


@dataclass(frozen=True)
class Judged:
    played: Estimate
    best: Estimate
    loss: float
    loss_half: float
    left: tuple[int, int] | None  # points left in hand after the played move and the best


def _interval(xs: Sequence[float]) -> tuple[float, float]:
    """Mean and half-width of the 95% interval (normal approximation)."""
    ok = [x for x in xs if x == x]
    n = len(ok)
    if not n:
        return 0.0, math.inf
    m = sum(ok) / n
    if n < 2:
        return m, math.inf
    var = sum((x - m) ** 2 for x in ok) / (n - 1)
    return m, Z95 * math.sqrt(var / n)


def _estimate(ev: Evidence, index: int, text: str, players: int) -> Estimate:
    """A move's estimate from the search's deals; "going out soon": within ``players``
    turns of the decision (by the seat's next turn)."""
    values, outs = ev.values[index], ev.outcomes[index]
    kept: list[Outcome] = [o for o, v in zip(outs, values, strict=True) if v == v]
    n = len(kept)
    mean, half = _interval(values)
    took = sum(o.next_took_pile for o in kept) / n if n else 0.0
    soon = sum(1 for o in kept if 0 <= o.out_turns <= players) / n if n else 0.0
    made = sum(o.canastas for o in kept) / n if n else 0.0
    return Estimate(text, mean, half, n, took, soon, made)


def _search(seed: int, deals: int, rules: Ruleset) -> SearchPlayer:
    player = SearchPlayer(seed, deals=deals, horizon=HARD_HORIZON)
    player.rules = rules
    return player


def judge(view: SeatView, played: int, rules: Ruleset, deals: int, seed: int) -> Judged:
    """The played move (``view.moves[played]``) against the search's choice, from ``view``
    alone (and ``rules``, ``deals``, ``seed``): the same view gives the same judgement."""
    msg = {"type": "act", "observation": view.observation, "moves": view.moves}
    first = _search(seed, deals, rules)
    best = first.rank(msg)[0].index
    texts = [m["text"] for m in view.moves]
    ev = first.evidence
    if ev is None:  # nothing to compare (the search judges no answer)
        raise ReviewError("the search gave no estimate for this decision")
    if best == played:
        mine = _estimate(ev, played, texts[played], rules.players)
        return Judged(mine, mine, 0.0, 0.0, None)
    # Both moves again, on fresh deals: the choice's value is not inflated by its having
    # been chosen as the best of many on the same deals.
    pair = {"type": "act", "observation": view.observation,
            "moves": [{**view.moves[played], "index": 0}, {**view.moves[best], "index": 1}]}
    second = _search(seed + 1, deals, rules)
    second.alpha = 1.0
    second.rank(pair)
    ev2 = second.evidence
    if ev2 is None:
        raise ReviewError("the search gave no estimate for this decision")
    diffs = [b - a for a, b in zip(ev2.values[0], ev2.values[1], strict=True)
             if a == a and b == b]
    loss, half = _interval(diffs)
    players = rules.players
    return Judged(_estimate(ev2, 0, texts[played], players),
                  _estimate(ev2, 1, texts[best], players), loss, half,
                  _left(view, rules, texts[played], texts[best], seed))


def _left(view: SeatView, rules: Ruleset, played: str, best: str,
          seed: int) -> tuple[int, int] | None:
    """The points left in the seat's hand after each move, when both are its own melds,
    adds and discards (then the hand after them is known to the seat)."""
    if view.observation["phase"] == Phase.DRAW.value or any(
            m.startswith(("draw", "pile")) for m in (played, best)):
        return None
    obs = view.observation
    state = determinize(obs, public_facts(obs.get("history") or [], obs, rules.decks), rules,
                        random.Random(seed))
    seat = int(obs["seat"])
    out = []
    for text in (played, best):
        try:
            after = apply(state, _parse(state, text))
        except (CanastaError, ValueError):
            return None  # this deal disagrees on a detail (as the search skips such moves)
        out.append(sum(VALUE_OF[c] for c in after.hands[seat]) if after.hand_no == state.hand_no
                   else 0)
    return out[0], out[1]


def _parse(state: GameState, text: str) -> Move:
    top = state.pile[-1] if state.pile else None
    return parse_move(text, top_rank=KIND_OF[top] if top is not None else None)


def reason(j: Judged) -> str:
    """Why the played move lost, in the search's own figures."""
    p, b = j.played, j.best
    parts = []
    if p.move.startswith("discard") and p.next_took - b.next_took >= 0.1:
        after = f"{b.next_took:.0%} after {b.move}" if b.move.startswith("discard") else \
            f"{b.move}: {b.next_took:.0%}"
        parts.append(f"the next player took the pile after it in {p.next_took:.0%} of the"
                     f" deals ({after})")
    if b.out_soon - p.out_soon >= 0.1:
        parts.append(f"your side went out by your next turn in {b.out_soon:.0%} of the deals"
                     f" after {b.move}, {p.out_soon:.0%} after it")
    if b.canastas - p.canastas >= 0.2:
        parts.append(f"your side completed {b.canastas:.1f} canastas a deal by the hand's end"
                     f" after {b.move}, {p.canastas:.1f} after it")
    if j.left is not None and j.left[0] - j.left[1] >= 20:
        parts.append(f"it leaves {j.left[0]} points in hand ({b.move}: {j.left[1]})")
    if p.move == "draw" and b.move.startswith("pile"):
        parts.append("the pile was there to take")
    if not parts:
        parts.append(f"{b.move} made {j.loss:.0f} points more a hand over {p.deals} deals")
    return "; ".join(parts)


# The game: its record, replayed, and each of the seat's decisions ---------------------------

def load_game(path: Path, seat: int) -> tuple[Replay, list[dict[str, Any]], bool]:
    """The game replayed from its record, the record's move lines, and whether the game is
    over.  An unfinished save is reviewed only from its one person's own seat."""
    lines = load_record(path, torn_ok=True)
    header = lines[0]
    try:
        rules = Ruleset.from_dict(header["rules"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RecordError(f"{path}: bad header: {str(exc)[:120]}") from None
    if not 0 <= seat < rules.players:
        raise ReviewError(f"--seat must be from 0 to {rules.players - 1}")
    secret = sealed_parts(lines)
    if secret is None:
        if not header.get("secret"):
            raise ReviewError(f"{path}: the record is sealed and its game is not over: no"
                              " 'reveal' line holds the seed yet")
        from .session import load_secret, own_seat
        own_seat([str(x) for x in header.get("seats", [])], seat, "reviewed")
        secret = load_secret(path, lines)
    rep = replay(lines, secret)
    moves = [ln for ln in lines if ln["type"] == "move"]
    if len(rep.steps) - 1 < len(moves):
        raise ReviewError(f"{path}: the record does not replay: {rep.mismatches[0]}")
    results = [ln for ln in lines if ln["type"] == "result"]
    finished = bool(results) and results[-1].get("reason") not in GOES_ON
    return rep, moves, finished


Progress = Callable[[int, int, int], None]  # (decisions judged, to judge, hand number)


def review_game(rep: Replay, moves: list[dict[str, Any]], plan: ReviewPlan,
                progress: Progress | None = None) -> Review:
    """Judge every decision of ``plan.seat`` in the replayed game: each from the seat's
    view (``seat_view``) only."""
    header = rep.header
    rules = rep.state.rules
    specs = [str(x) for x in header.get("seats", [])]
    names = [split_name(s)[0] or s for s in specs] if len(specs) == rules.players else \
        [f"seat {i}" for i in range(rules.players)]
    review = Review(plan.record, plan.seat, names, rules.name, plan.deals, plan.threshold,
                    plan.seed, False)
    todo = []
    for i, line in enumerate(moves):
        state = rep.states[i]
        if state.actor != plan.seat or line.get("seat") != plan.seat:
            continue
        if line.get("by") == "auto" or len(legal_moves(state)) < 2:
            review.forced += 1
        elif state.phase is Phase.ANSWER:
            review.unjudged += 1
        else:
            todo.append((i, state, str(line["move"])))
    start = time.monotonic()
    for n, (i, state, text) in enumerate(todo, start=1):
        if progress is not None:
            progress(n - 1, len(todo), state.hand_no)
        review.decisions.append(_decision(state, plan, text, n, i + 1))
    if progress is not None and todo:
        progress(len(todo), len(todo), todo[-1][1].hand_no)
    review.seconds = time.monotonic() - start
    return review


def _decision(state: GameState, plan: ReviewPlan, text: str, number: int,
              step: int) -> Decision:
    view = seat_view(state, plan.seat)
    texts = [m["text"] for m in view.moves]
    if text not in texts:  # the record's spelling: the engine's own is the listed one
        with contextlib.suppress(ValueError):  # NotationError too
            text = format_move(_parse(state, text))
    if text not in texts:
        raise ReviewError(f"move {step} of the record ({text[:60]!r}) is not among the moves"
                          f" seat {plan.seat} was offered")
    j = judge(view, texts.index(text), state.rules, plan.deals, plan.seed)
    flag = verdict(j.loss, j.loss_half, plan.threshold)
    obs = view.observation
    return Decision(number, step, state.hand_no, state.hand_turns, obs["phase"],
                    tuple(obs["hand"]), obs["pile_top"], int(obs["pile_size"]), len(texts),
                    j.played, j.best, j.loss, j.loss_half, flag, reason(j) if flag else "")


class StderrProgress:
    """Progress of a long review on stderr: one line redrawn on a terminal, a line per hand
    on a pipe."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.start = time.monotonic()
        self.hand = -1
        self.shown = 0.0

    def __call__(self, done: int, total: int, hand: int) -> None:
        now = time.monotonic()
        spent = now - self.start
        left = spent / done * (total - done) if done else 0.0
        line = (f"review: {done} of {total} decisions judged (hand {hand}),"
                f" {spent:.0f} s" + (f", about {left:.0f} s left" if done and done < total
                                     else ""))
        if self.tty:
            if now - self.shown >= 0.2 or done == total:
                end = "\n" if done == total else ""
                print(f"\r{line}\x1b[K", end=end, file=sys.stderr, flush=True)
                self.shown = now
        elif hand != self.hand or done == total:
            print(line, file=sys.stderr, flush=True)
        self.hand = hand


def check(plan: ReviewPlan) -> None:
    """The plan's numbers in their bounds, or a ReviewError naming the option."""
    if not 1 <= plan.deals <= MAX_DEALS:
        raise ReviewError(f"--deals must be from 1 to {MAX_DEALS:,}")
    if not (math.isfinite(plan.threshold) and 0 <= plan.threshold <= MAX_THRESHOLD):
        raise ReviewError(f"--threshold must be from 0 to {MAX_THRESHOLD:,} points")
    if not 0 <= plan.seed < 2**63:
        raise ReviewError("--seed must be from 0 to 2**63 - 1")


def run(plan: ReviewPlan) -> Review:
    """Review the plan's game; a ReviewError or RecordError says why it cannot be."""
    check(plan)
    rep, moves, finished = load_game(plan.record, plan.seat)
    review = review_game(rep, moves, plan, StderrProgress() if plan.progress else None)
    review.finished = finished
    review.play = _play_stats(plan)
    return review


def _play_stats(plan: ReviewPlan) -> PlayStats | None:
    """The seat's statistics of play from the record's public events (None for a record
    they cannot be read from)."""
    try:
        return seat_stats(load_record(plan.record, torn_ok=True))[plan.seat]
    except (RecordError, IndexError):
        return None


__all__ = ["BLUNDER", "DEFAULT_DEALS", "DEFAULT_THRESHOLD", "MISTAKE", "Decision", "Estimate",
           "Review", "ReviewError", "ReviewPlan", "SeatView", "Summary", "check", "judge", "load_game",
           "review_game", "run", "seat_view", "verdict"]
