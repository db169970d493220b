"""Moves: atomic, canonical actions named by card kind, never by physical card.

Each move is a small frozen value with a pasteable repr.  Which physical card a kind refers
to is chosen by the engine (see ``engine._pick_one``), because suits never matter to play.

A move keeps what it is given, even a field that is not an int (``Discard(True)``,
``Meld(9, 3.0)``): the engine refuses such a move with a reason (``explain.malformed``),
never a TypeError, and never plays it as the move it equals.  The compiled build (mypyc)
holds a move's fields as C ints, which cannot keep those values; there such a move keeps
them in ``_given`` instead (see ``_keep_as_given``), and reads, compares, hashes, prints and
pickles as in the pure build.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from dataclasses import dataclass, field
from types import GetSetDescriptorType
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
    _given: tuple[object, ...] | None = field(default=None, init=False, repr=False, compare=False)

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)


@dataclass(frozen=True, slots=True)
class Meld:
    """Lay down a new meld of ``rank`` from the hand (``rank`` may be BLACK3 when going out)."""

    rank: int
    naturals: int
    deuces: int = 0
    jokers: int = 0
    _given: tuple[object, ...] | None = field(default=None, init=False, repr=False, compare=False)

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)


@dataclass(frozen=True, slots=True)
class Add:
    """Add one card of ``kind`` from the hand to the side's meld of ``rank``."""

    rank: int
    kind: int
    _given: tuple[object, ...] | None = field(default=None, init=False, repr=False, compare=False)

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)


@dataclass(frozen=True, slots=True)
class Discard:
    kind: int
    _given: tuple[object, ...] | None = field(default=None, init=False, repr=False, compare=False)

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
    _given: tuple[object, ...] | None = field(default=None, init=False, repr=False, compare=False)

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)


@dataclass(frozen=True, slots=True)
class EndHand:
    """End the hand: decline an optional pile with no stock left, or finish melding after a
    last-card red three when the ruleset forbids the discard."""

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)


Move = Draw | TakePile | Meld | Add | Discard | Ask | Answer | EndHand


def _as_given(native: Any, i: int) -> Any:
    """A field's value as Python reads it in the compiled build: its C field (``native``'s),
    or the ``i``-th value given, for a move whose fields were not all of its type."""
    get = native.__get__

    def read(move: TakePile | Meld | Add | Discard | Answer) -> object:
        given = move._given  # compiled: read from the C struct, as the union's every type has it
        return get(move) if given is None else given[i]
    return read


def _keep_as_given(kind: type[Any], exact: type) -> None:
    """The compiled build's ``kind``: made with a field that is not of type ``exact`` (an int,
    for ``Answer`` a bool), it keeps the values as given in ``_given`` and leaves its C fields
    unset, rather than refusing a float with a TypeError and storing a bool as an int.  Its
    fields, as Python reads them (``explain.malformed``, the dataclass's ``__eq__``,
    ``__hash__`` and ``__repr__``, ``by_fields``), read those values.  The compiled code reads
    the C fields directly, at no cost: the engine lists and plays only moves whose fields are
    ints, and refuses any other one (``explain.malformed``, kept pure Python for this) before
    it reads a field."""
    made = kind.__init__  # the dataclass's own, which stores each field in its C field
    signature = inspect.signature(made)
    names = tuple(f.name for f in dataclasses.fields(kind) if f.init)

    @functools.wraps(made)  # its signature, for ``inspect.signature``
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        if not kwargs:
            for value in args:
                if type(value) is not exact:
                    break
            else:
                made(self, *args)
                return
        bound = signature.bind(self, *args, **kwargs)  # too many or too few: a TypeError
        bound.apply_defaults()
        given = tuple(bound.arguments.values())[1:]
        for value in given:
            if type(value) is not exact:
                object.__setattr__(self, "_given", given)
                return
        made(self, *args, **kwargs)

    for i, name in enumerate(names):
        native = vars(kind)[name]  # the C field's descriptor: the dataclass's __init__ sets it
        setattr(kind, name, property(_as_given(native, i), native.__set__, native.__delete__))
    kind.__init__ = init


if isinstance(vars(Meld)["rank"], GetSetDescriptorType):  # C fields: the compiled build
    for _kind in (TakePile, Meld, Add, Discard):
        _keep_as_given(_kind, int)
    _keep_as_given(Answer, bool)


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
