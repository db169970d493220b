"""Statistics of a tournament: score differences with confidence intervals, Elo with error
bars, the variance duplicate deals save, and a sequential probability ratio test.

Pure functions over per-game results, so each can be checked against a direct computation.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

# The 97.5% quantile of the standard normal, correctly rounded.  Not
# ``statistics.NormalDist().inv_cdf(0.975)``: that is 1.9599639845400536, one unit in the last
# place lower, and every interval in results.json (written as full floats) would change in its
# last digit.
Z95 = 1.959963984540054


@dataclass(frozen=True)
class GameOutcome:
    """One finished game seen from a pairing (a, b): ``diff`` is a's mean score per seat minus
    b's, ``result`` 1 / 0.5 / 0 for an a win / draw / b win.  ``table``: at a table of three
    (tournament/threes.py), its three bots; a deal is then one deal of that table."""

    pair: tuple[str, str]
    deal: int
    diff: float
    result: float
    table: tuple[str, ...] = ()


# ``mean`` and ``sample_var`` are written out, not ``statistics.fmean`` and
# ``statistics.variance``: those sum exactly (math.fsum, fractions) and round once, these round
# as they go, as every results.json so far was computed.  The two differ in the last digit:
# the variance on about half of the samples (whole and half points, 2 to 60 deals), the mean
# where its running sum rounds (a deal's mean over the six seatings of a table of three), and
# results.json writes full floats, so with ``statistics`` the same games would write other
# bytes (a classic tournament's ci95 299.991360137432 would be 299.99136013743197).
def mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def sample_var(xs: Sequence[float]) -> float:
    if len(xs) < 2:
        return 0.0
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def mean_ci(xs: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    if not xs:
        return 0.0, math.inf
    return mean(xs), Z95 * math.sqrt(sample_var(xs) / len(xs)) if len(xs) > 1 else math.inf


def elo_from_score(s: float) -> float:
    s = min(max(s, 1e-6), 1 - 1e-6)
    return -400.0 * math.log10(1.0 / s - 1.0)


def elo_with_error(points: float, games: int) -> tuple[float, float, float]:
    """Elo difference implied by a score fraction, with a 95% interval (low, high)."""
    if games == 0:
        return 0.0, -math.inf, math.inf
    s = points / games
    half = Z95 * math.sqrt(max(s * (1 - s), 0.25 / games) / games)
    return elo_from_score(s), elo_from_score(s - half), elo_from_score(s + half)


def paired_diffs(outcomes: Iterable[GameOutcome]) -> dict[tuple[str, str], list[float]]:
    """Per pairing, the mean difference of each duplicate deal (all its seatings averaged)."""
    out: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (pair, _table, _deal), m in deal_means(outcomes).items():
        out[pair].append(m)
    return dict(out)


def deal_means(outcomes: Iterable[GameOutcome]) -> dict[tuple[tuple[str, str], tuple[str, ...],
                                                              int], float]:
    """Per (pairing, table, deal), in that order: the mean difference over the deal's
    seatings."""
    by_deal: dict[tuple[tuple[str, str], tuple[str, ...], int], list[float]] = defaultdict(list)
    for o in outcomes:
        by_deal[(o.pair, o.table, o.deal)].append(o.diff)
    return {k: mean(v) for k, v in sorted(by_deal.items())}


def variance_saving(outcomes: Sequence[GameOutcome]) -> dict[str, float]:
    """How much duplicate deals cut the variance of the mean difference.

    ``unpaired``: variance of the mean if the same games had been independent deals
    (var(game diffs) / games); ``paired``: variance of the mean over duplicate deals
    (var(deal means) / deals).  ``factor`` = unpaired / paired: how many times more games
    unpaired play would need for the same precision."""
    games = [o.diff for o in outcomes]
    deals = [d for ds in paired_diffs(outcomes).values() for d in ds]
    unpaired = sample_var(games) / len(games) if len(games) > 1 else 0.0
    paired = sample_var(deals) / len(deals) if len(deals) > 1 else 0.0
    return {"unpaired_var": unpaired, "paired_var": paired,
            "factor": unpaired / paired if paired > 0 else math.inf}


def standings(outcomes: Sequence[GameOutcome], bots: Sequence[str]) -> list[dict[str, Any]]:
    """Per bot: games, wins, draws, points, mean score difference per deal with a 95% CI
    (over its duplicate deals, from its own side), and a performance Elo with error bars."""
    rows = []
    # One value per bot and duplicate deal: its mean difference against the other bot (at a
    # table of three, against each of the other two, averaged).
    per_deal: dict[tuple[str, tuple[str, ...], int], list[float]] = defaultdict(list)
    for (pair, table, deal), m in deal_means(outcomes).items():
        per_deal[(pair[0], table or pair, deal)].append(m)
        per_deal[(pair[1], table or pair, deal)].append(-m)
    for bot in bots:
        games = wins = draws = 0
        points = 0.0
        diffs: list[float] = []
        for o in outcomes:
            if bot not in o.pair:
                continue
            sign = 1 if o.pair[0] == bot else -1
            games += 1
            result = o.result if sign == 1 else 1 - o.result
            points += result
            wins += result == 1
            draws += result == 0.5
        diffs.extend(mean(ds) for (b, _t, _d), ds in per_deal.items() if b == bot)
        m, half = mean_ci(diffs)
        elo, lo, hi = elo_with_error(points, games)
        rows.append({"bot": bot, "games": games, "wins": wins, "draws": draws,
                     "losses": games - wins - draws, "points": points,
                     "mean_diff": m, "ci95": half, "deals": len(diffs),
                     "elo": elo, "elo_low": lo, "elo_high": hi})
    return rows


def cross_table(outcomes: Sequence[GameOutcome], bots: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Row bot's points against the column bot, out of the games they played."""
    table: dict[str, dict[str, Any]] = {a: {} for a in bots}
    for a in bots:
        for b in bots:
            if a == b:
                continue
            pts = n = 0.0
            for o in outcomes:
                if o.pair == (a, b):
                    pts += o.result
                    n += 1
                elif o.pair == (b, a):
                    pts += 1 - o.result
                    n += 1
            if n:
                table[a][b] = {"points": pts, "games": int(n)}
    return table


@dataclass
class SprtTally:
    """Wins and losses in the test's unit, counted game by game in schedule order: each
    decisive game (unit "game"), or each duplicate deal whose seatings' score differences add
    up to a win or a loss (unit "deal", counted at the deal's last game).  The one count the
    tournament decides on, the report shows and the viewer plots."""

    unit: str
    wins: float = 0.0
    losses: float = 0.0
    _deal: float = 0.0

    def add(self, diff: float, result: float, last_of_deal: bool) -> bool:
        """Count one game; whether the count moved on (the test may decide only then)."""
        if self.unit == "deal":
            self._deal += diff
            if not last_of_deal:
                return False
            self.wins += self._deal > 0
            self.losses += self._deal < 0
            self._deal = 0.0
            return True
        self.wins += result == 1.0
        self.losses += result == 0.0
        return True


@dataclass(frozen=True)
class Sprt:
    """Sequential test of H0: Elo difference elo0 against H1: elo1 on decisive games."""

    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    # "game": each game won or lost; "deal": each duplicate deal won or lost on its seatings
    # together (the unit that removes the luck of the cards, and the independent one: the
    # games of one deal are not independent of each other).
    unit: str = "game"

    def __post_init__(self) -> None:
        if self.unit not in ("game", "deal"):
            raise ValueError(f"SPRT unit {self.unit!r}: expected game or deal")

    @property
    def bounds(self) -> tuple[float, float]:
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def llr(self, wins: float, losses: float) -> float:
        p0 = 1 / (1 + 10 ** (-self.elo0 / 400))
        p1 = 1 / (1 + 10 ** (-self.elo1 / 400))
        return wins * math.log(p1 / p0) + losses * math.log((1 - p1) / (1 - p0))

    def decide(self, wins: float, losses: float) -> str | None:
        """'H1' (the first bot is stronger by elo1), 'H0' (not), or None (keep playing)."""
        llr = self.llr(wins, losses)
        lower, upper = self.bounds
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None
