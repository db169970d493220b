"""A table of three bots (six players in three partnerships, each bot one partnership): each
game seen as the three pairwise encounters it holds, and each bot's places.

Why pairwise: the standings, the cross table, Elo and the SPRT are all statistics of two-bot
comparisons, and a three-way game decomposes into three of them with nothing made up.  In
each game bot x meets bot y once: x wins the encounter if its partnership won the game, loses
it if y's did, and otherwise (the third partnership won) the one who scored more wins it (a
tie is a draw); a partnership that forfeited loses both its encounters; a game with no winner
is a draw for every pair.  The score difference of the encounter is x's score minus y's.  So
a bot's standings count two encounters per game (one against each other bot), its Elo is its
performance against the field, and its score difference per deal is its score minus the mean
of the other two, over the deal's six seatings.
"""

from __future__ import annotations

import itertools
from typing import Any

from ..core import Ruleset
from .stats import GameOutcome


def _side_of_bot(row: dict[str, Any], rules: Ruleset, bot: str) -> int:
    return next(rules.side_of(s) for s, name in enumerate(row["seating"]) if name == bot)


def encounter(row: dict[str, Any], rules: Ruleset, x: str, y: str) -> GameOutcome:
    """The game as bot x against bot y (both at the table)."""
    sx, sy = _side_of_bot(row, rules, x), _side_of_bot(row, rules, y)
    scores = row["scores"]
    diff = float(scores[sx] - scores[sy])
    winner, forfeit = row["winner"], row.get("forfeit")
    loser = rules.side_of(forfeit) if forfeit is not None else None
    if winner is None:
        result = 0.5
    elif loser == sx or winner == sy:
        result = 0.0
    elif loser == sy or winner == sx:
        result = 1.0
    else:
        result = 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5
    return GameOutcome((x, y), row["deal"], diff, result, tuple(row["pair"]))


def encounters(row: dict[str, Any], rules: Ruleset) -> list[GameOutcome]:
    """The three encounters of a game at a table of three, in the table's order: (a, b),
    (a, c), (b, c)."""
    return [encounter(row, rules, x, y) for x, y in itertools.combinations(row["pair"], 2)]


def places(rows: list[dict[str, Any]], rules: Ruleset, bots: list[str]) -> list[dict[str, Any]]:
    """Per bot, over its games at tables of three: games, how often it finished first, second
    and third (one place more for each bot that won its encounter with it: bots level share a
    place), and its mean score per game."""
    out = []
    for bot in bots:
        counts = [0, 0, 0]
        total = 0.0
        games = 0
        for row in rows:
            if len(row["pair"]) != 3 or bot not in row["pair"]:
                continue
            games += 1
            place = sum(1 for other in row["pair"] if other != bot
                        and encounter(row, rules, other, bot).result == 1.0)
            counts[place] += 1
            total += row["scores"][_side_of_bot(row, rules, bot)]
        if games:
            out.append({"bot": bot, "games": games, "first": counts[0], "second": counts[1],
                        "third": counts[2], "mean_score": total / games})
    return out


MEANING = ("three bots at a table: each game counts as two encounters per bot, one against"
           " each other bot, won by the partnership that won the game or else by the higher"
           " score; W-D-L, Elo and the cross table count encounters, diff/deal is a bot's"
           " score minus the mean of the other two")
