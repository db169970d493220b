"""Which games a tournament plays: pairings, duplicate seatings, per-deal seeds.

Every task is a pure function of (bots, format, games, rules, master seed), so the results
cannot depend on concurrency or on the order in which games finish.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Literal

from ..core import Ruleset
from ..util.seeds import derive, derived_bits

Format = Literal["round-robin", "gauntlet"]
Table = Literal["pairs", "threes"]


@dataclass(frozen=True)
class Task:
    index: int                  # position in the schedule: results are reported in this order
    pair: tuple[str, ...]       # the bots of this pairing: two, or three at a table of three
    deal: int                   # deal number within the pairing
    seating: tuple[str, ...]    # the bot in each seat
    seed: int                   # the deal's seed: the same for every seating of the deal

    @property
    def key(self) -> str:
        return f"{'|'.join(self.pair)}|{self.deal}|{'/'.join(self.seating)}"


def deal_seed(master: int, pair: tuple[str, ...], deal: int) -> int:
    """A seed per deal, derived from the master seed (stable across runs and machines): 128
    bits from a drawn master, 63 as always from a given one below 2**64 (``seeds.derive``)."""
    text = f"canasta-tournament/{master}/{'/'.join(pair)}/{deal}"
    return derive(text, derived_bits(master))


def seatings(rules: Ruleset, a: str, b: str) -> list[tuple[str, ...]]:
    """Every seating of a duplicate deal, so that each bot plays every hand of cards.

    Partnerships: each bot takes one whole side, then the sides swap (three partnerships:
    every assignment of the bots to the sides in which both play).  Two or three players:
    every assignment of the two bots to the seats in which both play."""
    n = rules.players
    if rules.partnerships and rules.sides > 2:  # three partnerships: both bots on some side
        sides = [x for x in itertools.product((a, b), repeat=rules.sides) if a in x and b in x]
        return sorted(tuple(x[rules.side_of(s)] for s in range(n)) for x in sides)
    if rules.partnerships:
        first = tuple(a if rules.side_of(s) == 0 else b for s in range(n))
        second = tuple(b if rules.side_of(s) == 0 else a for s in range(n))
        return [first, second]
    out = [s for s in itertools.product((a, b), repeat=n) if a in s and b in s]
    return sorted(out)


def table_seatings(rules: Ruleset, bots: tuple[str, ...]) -> list[tuple[str, ...]]:
    """A table of three bots on three sides (three partnerships of two, or three players):
    every assignment of the bots to the sides, 3! = 6.  Each bot then holds each side's cards
    twice, once with each of the others on its left, so nothing more needs rotating: the
    deal's hands are the same in all six, only who holds them changes."""
    if rules.sides != 3 or len(bots) != 3:
        raise ValueError("a table of three needs three bots and rules with three sides")
    return [tuple(perm[rules.side_of(s)] for s in range(rules.players))
            for perm in itertools.permutations(bots)]


def default_table(rules: Ruleset, bots: int) -> Table:
    """Three partnerships and three bots or more: three at a table; otherwise two."""
    return "threes" if rules.three_partnerships and bots >= 3 else "pairs"


def pairings(bots: list[str], fmt: Format, table: Table = "pairs") -> list[tuple[str, ...]]:
    """The groups of bots that play each other: pairs, or tables of three (round-robin:
    every three bots; gauntlet: the first bot with every two of the others)."""
    if len(bots) < (3 if table == "threes" else 2):
        raise ValueError("a tournament needs at least two bots"
                         + (", three at a table of three" if table == "threes" else ""))
    if table == "threes":
        if fmt == "gauntlet":
            return [(bots[0], *other) for other in itertools.combinations(bots[1:], 2)]
        return list(itertools.combinations(bots, 3))
    if fmt == "gauntlet":
        return [(bots[0], other) for other in bots[1:]]
    return list(itertools.combinations(bots, 2))


def size(bots: int, fmt: Format, rules: Ruleset, table: Table = "pairs") -> tuple[int, int]:
    """The groups (``len(pairings(...))``) and the seatings of each group that a schedule of
    ``bots`` bots holds, counted without building it (the bounds check a schedule's size before
    it is made).

    >>> from canasta_cli.core import preset
    >>> size(4, "round-robin", preset("classic")), size(5, "gauntlet", preset("two-player"))
    ((6, 2), (4, 2))
    >>> size(4, "round-robin", preset("six-player-pairs"), "threes")
    (4, 6)
    """
    if table == "threes":
        return (math.comb(bots - 1, 2) if fmt == "gauntlet" else math.comb(bots, 3)), 6
    return (bots - 1 if fmt == "gauntlet" else math.comb(bots, 2)), len(seatings(rules, "a", "b"))


def schedule(bots: list[str], fmt: Format, deals: int, rules: Ruleset, master: int,
             table: Table = "pairs") -> list[Task]:
    """``deals`` duplicate deals per pairing (or table of three), each played in every
    seating."""
    tasks: list[Task] = []
    for pair in pairings(bots, fmt, table):
        for deal in range(deals):
            seed = deal_seed(master, pair, deal)
            seats = table_seatings(rules, pair) if table == "threes" else seatings(rules, *pair)
            for seating in seats:
                tasks.append(Task(len(tasks), pair, deal, seating, seed))
    return tasks
