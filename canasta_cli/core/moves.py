"""Moves: atomic, canonical actions named by card kind, never by physical card.

Each move is a small frozen value with a pasteable repr.  Which physical card a kind refers
to is chosen by the engine (see ``engine._pick_one``), because suits never matter to play.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .pickling import by_fields


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw from the stock (the ruleset says how many cards)."""

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)


@dataclass(frozen=True, slots=True)
class TakePile:
    """Take the discard pile, melding its top card (rank ``rank``) with these hand cards.

    With no hand cards the top card is laid off on the side's existing meld of that rank.
    """

    rank: int
    naturals: int = 0
    deuces: int = 0
    jokers: int = 0

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)


@dataclass(frozen=True, slots=True)
class Meld:
    """Lay down a new meld of ``rank`` from the hand (``rank`` may be BLACK3 when going out)."""

    rank: int
    naturals: int
    deuces: int = 0
    jokers: int = 0

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)


@dataclass(frozen=True, slots=True)
class Add:
    """Add one card of ``kind`` from the hand to the side's meld of ``rank``."""

    rank: int
    kind: int

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)


@dataclass(frozen=True, slots=True)
class Discard:
    kind: int

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)


@dataclass(frozen=True, slots=True)
class Ask:
    """Ask the partner "may I go out?"."""

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)


@dataclass(frozen=True, slots=True)
class Answer:
    """The partner's binding answer to the permission question."""

    yes: bool

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)


@dataclass(frozen=True, slots=True)
class EndHand:
    """End the hand: decline an optional pile with no stock left, or finish melding after a
    last-card red three when the ruleset forbids the discard."""

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)


Move = Draw | TakePile | Meld | Add | Discard | Ask | Answer | EndHand

DRAW: Final = Draw()
ASK: Final = Ask()
YES: Final = Answer(True)
NO: Final = Answer(False)
END: Final = EndHand()


# Interned moves: ``legal_moves`` hands out one shared object per distinct move, because a
# frozen dataclass costs a slow ``__init__`` and ``apply``'s membership test is fastest on
# identity.  Keys are move shapes, and counts are bounded by the pack, so the tables are too.
DISCARDS: Final[tuple[Discard, ...]] = tuple(Discard(k) for k in range(15))
ADDS: Final[tuple[tuple[Add, ...], ...]] = tuple(tuple(Add(r, k) for k in range(15)) for r in range(15))
_MELDS: Final[dict[tuple[int, int, int, int], Meld]] = {}
_TAKES: Final[dict[tuple[int, int, int, int], TakePile]] = {}


def meld(rank: int, naturals: int, deuces: int = 0, jokers: int = 0) -> Meld:
    key = (rank, naturals, deuces, jokers)
    move = _MELDS.get(key)
    if move is None:
        move = _MELDS[key] = Meld(rank, naturals, deuces, jokers)
    return move


def take(rank: int, naturals: int = 0, deuces: int = 0, jokers: int = 0) -> TakePile:
    key = (rank, naturals, deuces, jokers)
    move = _TAKES.get(key)
    if move is None:
        move = _TAKES[key] = TakePile(rank, naturals, deuces, jokers)
    return move
