"""The ladder's standings now and after each run, from ``rating.ratings`` (the one rating
computation): shared by ``ladder show``/``ladder history`` and ``canasta report --ladder``."""

from __future__ import annotations

from dataclasses import dataclass

from .rating import Rating, ratings
from .store import Ladder


@dataclass(frozen=True)
class RunPoint:
    run: int
    started: float
    table: dict[str, Rating]   # every bot's rating from the deals of runs up to this one


def standings(ladder: Ladder) -> list[Rating]:
    """Every bot's rating from every finished deal, best first."""
    return ratings(sorted(ladder.bots()), ladder.results())


def history(ladder: Ladder) -> list[RunPoint]:
    """The ratings after each run that finished a deal, oldest first."""
    names = sorted(ladder.bots())
    return [RunPoint(run, started, {t.name: t for t in ratings(names, ladder.results(run))})
            for run, started, _n in ladder.runs()]
