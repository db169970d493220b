"""Built-in players.  They read protocol messages only, exactly like an outside bot."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from .greedy import GreedyPlayer
from .random_player import RandomPlayer
from .search import FastPlayer, SearchPlayer

Player = Callable[[dict[str, Any]], dict[str, Any] | None]

HARD_MS = 400  # the time budget of 'hard' before it counted deals (builtin:hard:400)
HARD_DEALS = 192  # 'hard': a fixed-deal budget, the same strength on a busy machine
HARD_HORIZON = 0  # ... each rollout played to the end of the hand (measured in docs/benchmarks.md)
SEARCH_HELP = ("MS (milliseconds per decision) or comma-separated deals=N (a fixed number of"
               " deals: reproducible, whatever the load), ms=MS, horizon=TURNS (0: to the end"
               " of the hand), infer=0|1 (weigh the deals by the others' play), alpha=PCT (the one-sided"
               " level, in percent, of the test to leave the quick policy's move; 100: no test),"
               " score=0|1 (play to win the game: near the target, winning it counts before"
               " the hand's points)")


def _int(key: str, text: str, low: int, high: int) -> int:
    if not text.isdigit() or not low <= int(text) <= high:
        raise ValueError(f"builtin:search: {key} takes a whole number from {low} to {high},"
                         f" not {text[:20]!r} ({SEARCH_HELP})")
    return int(text)


def search_player(seed: int, arg: str, default_ms: float | None = None,
                  default_deals: int | None = None, deals_horizon: int = 8) -> SearchPlayer:
    """The search player from the text after ``builtin:search:`` (see ``SEARCH_HELP``);
    without a budget in it, ``default_deals`` deals or else ``default_ms``.  Without a
    horizon, ``deals_horizon`` turns with a budget in deals, 8 with a time budget (so that
    ``hard:400`` stays the old 'hard')."""
    options: dict[str, int] = {}
    for item in arg.split(",") if arg else []:
        key, eq, value = item.strip().partition("=")
        if not eq:
            key, value = "ms", key
        limits = {"ms": (1, 600_000), "deals": (1, 100_000), "horizon": (0, 1000),
                  "infer": (0, 1), "alpha": (1, 100), "score": (0, 1)}
        if key not in limits or key in options:
            raise ValueError(f"builtin:search takes {SEARCH_HELP}, not {item[:30]!r}")
        options[key] = _int(key, value, *limits[key])
    deals = options.get("deals")
    ms = options.get("ms")
    if deals is None and ms is None:
        deals = default_deals
    budget = float(ms if ms is not None else default_ms or 900.0)
    horizon = options.get("horizon", deals_horizon if deals is not None else 8)
    return SearchPlayer(seed, budget_ms=budget, deals=deals, horizon=horizon,
                        infer=bool(options.get("infer", 0)),
                        alpha=options.get("alpha", 20) / 100,
                        by_score=bool(options.get("score", 0)))


# name -> factory taking the player's own seed and the text after a second colon (or "")
PLAYERS: dict[str, Callable[[int, str], Player]] = {
    "random": lambda seed, arg: RandomPlayer(random.Random(seed)),
    "greedy": lambda seed, arg: GreedyPlayer(),
    "search": lambda seed, arg: search_player(seed, arg, 900.0),
    "easy": lambda seed, arg: FastPlayer(seed, careless=True),
    "normal": lambda seed, arg: FastPlayer(seed),
    "hard": lambda seed, arg: search_player(seed, arg, float(HARD_MS), HARD_DEALS,
                                            HARD_HORIZON),
}
LEVELS = ("easy", "normal", "hard")

__all__ = ["HARD_DEALS", "HARD_HORIZON", "LEVELS", "PLAYERS", "SEARCH_HELP", "FastPlayer",
           "GreedyPlayer", "RandomPlayer", "SearchPlayer", "search_player"]
