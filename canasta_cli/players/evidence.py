"""What the search saw on its deals, and the test it uses to leave the fast policy's move.

The search plays every candidate on the same deals, so two moves are compared deal by deal
(a paired comparison: the luck of the deal cancels).  Picking the best of k moves by noise
alone is likely when k is large, so the threshold is one-sided at ``alpha / (k - 1)``
(Bonferroni over the k - 1 comparisons with the fast policy's move).  The same deals give
the reasons ``hint`` prints: how often the side went out, or the next player took the pile.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist


@dataclass(frozen=True)
class Outcome:
    """One rollout's events: the turn (counted from the decision) on which the seat's side
    went out, or -1; whether the next player took the pile on its first turn; the canastas
    the seat's side completed in it."""

    out_turns: int
    next_took_pile: bool
    canastas: int = 0


NO_OUTCOME = Outcome(-1, False)


def mean(xs: list[float]) -> float:
    """The mean of the numbers (NaN: the move was not listed on that deal), -1e9 if none."""
    ok = [x for x in xs if x == x]
    return sum(ok) / len(ok) if ok else -1e9


def count(xs: list[float]) -> int:
    return sum(1 for x in xs if x == x)


def clearly_better(diffs: list[float], moves: int, alpha: float) -> bool:
    """Does the mean paired difference beat zero at one-sided level ``alpha / (moves - 1)``?
    (``alpha`` 1: no test, any mean above zero.)"""
    n = len(diffs)
    if alpha >= 1:
        return n > 0 and sum(diffs) > 0
    if n < 3:
        return False
    m = sum(diffs) / n
    var = sum((d - m) ** 2 for d in diffs) / (n - 1)
    if var == 0:
        return m > 0
    z = NormalDist().inv_cdf(1 - alpha / max(1, moves - 1))
    return m > z * math.sqrt(var / n)


@dataclass
class Evidence:
    """One decision's deals: each move's values and outcomes (paired by deal), the fast
    policy's move, the number of complete deals and the deciding seat."""

    texts: list[str]
    values: list[list[float]]
    outcomes: list[list[Outcome]]
    default: int
    deals: int
    seat: int

    def reason(self, index: int, players: int, labels: list[str]) -> str:
        """One short line: why this move is worth what the search says, from its deals."""
        outs = [o for o, v in zip(self.outcomes[index], self.values[index], strict=True)
                if v == v]
        if not outs:
            return "judged on no deal (dropped early)"
        n = len(outs)
        text = self.texts[index]
        nxt = labels[(self.seat + 1) % players] if players > 1 else "the next player"
        soon = sum(1 for o in outs if 0 <= o.out_turns <= players) / n
        took = sum(1 for o in outs if o.next_took_pile) / n
        parts = []
        if soon >= 0.2:
            parts.append(f"your side goes out by your next turn in {soon:.0%} of deals")
        if text.startswith("discard") and (text.endswith(" 2") or text.endswith(" Jo")):
            parts.append(f"freezes the pile against {nxt}")
        elif text.startswith("discard") and took <= 0.05 and text.endswith(" 3"):
            parts.append(f"stops {nxt} from taking the pile")
        elif text.startswith("discard") and took == 0:
            parts.append(f"{nxt} never takes the pile after it in these {n} deals")
        elif text.startswith("discard"):
            parts.append(f"{nxt} takes the pile after it in {took:.0%} of deals")
        if index == self.default:
            parts.append("the quick player's choice")
        if not parts:  # "best" only where it is: a hint lists other moves with this line too
            best = mean(self.values[index]) >= max(mean(v) for v in self.values)
            parts.append(f"{'best average' if best else 'average'} over {n} deals")
        return "; ".join(parts)
