"""Ratings from duplicate deals: a maximum-likelihood Bradley-Terry model, on the Elo scale.

Each duplicate deal between bots i and j (every seating of one deal of cards) is one
comparison: i wins it when its score differences over the seatings add up to more than zero,
and a tie counts half a win to each.  The model says i beats j with probability
``g_i / (g_i + g_j)``; the strengths ``g`` that make the deals played most likely are found by
the minorization-maximization iteration of Hunter (2004), with one virtual tied deal of each
bot against a fixed bot of strength 1 (a weak prior, so that a bot that won every deal gets a
finite rating).  Ratings are ``400 * log10(g)``, shifted so that they average 0, so a
difference of 100 means the higher one wins 64% of deals.  The error bar is 1.96 standard
errors from the model's Fisher information (each bot's alone, the others held fixed).

The ratings depend only on the set of deals, never on the order they were played in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

ELO = 400.0 / math.log(10.0)
PRIOR = 1.0  # virtual tied deals of each bot against the anchor


@dataclass(frozen=True)
class Rating:
    name: str
    elo: float
    error: float     # 95% half-width, in Elo
    deals: int


def ratings(names: list[str], deals: list[tuple[str, str, float]],
            iterations: int = 2000) -> list[Rating]:
    """``deals``: (a, b, score of a: 1, 0.5 or 0).  Sorted best first."""
    idx = {n: i for i, n in enumerate(names)}
    k = len(names)
    wins = [PRIOR * 0.5] * k                 # i's score (plus half the virtual deal)
    games: list[dict[int, float]] = [{} for _ in range(k)]
    played = [0] * k
    for a, b, s in deals:
        i, j = idx[a], idx[b]
        wins[i] += s
        wins[j] += 1.0 - s
        games[i][j] = games[i].get(j, 0.0) + 1.0
        games[j][i] = games[j].get(i, 0.0) + 1.0
        played[i] += 1
        played[j] += 1
    g = [1.0] * k
    for _ in range(iterations):
        new = []
        for i in range(k):
            denom = PRIOR / (g[i] + 1.0) + sum(n / (g[i] + g[j]) for j, n in games[i].items())
            new.append(wins[i] / denom)
        change = max((abs(math.log(x / y)) for x, y in zip(new, g, strict=True)), default=0.0)
        g = new
        if change < 1e-10:
            break
    logs = [math.log(x) for x in g]
    mean = sum(logs) / k if k else 0.0
    out = []
    for i, n in enumerate(names):
        info = PRIOR * g[i] / (g[i] + 1.0) ** 2 + sum(
            c * g[i] * g[j] / (g[i] + g[j]) ** 2 for j, c in games[i].items())
        out.append(Rating(n, ELO * (logs[i] - mean), 1.96 * ELO / math.sqrt(info), played[i]))
    return sorted(out, key=lambda r: (-r.elo, r.name))
