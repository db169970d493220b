"""Events: the append-only log of everything that happened, and what each seat may see of it.

Each event knows its full content (for game records) and its projection for one seat, so the
single place that decides visibility is ``Event.view``.

Events are immutable by contract, like the state (nothing in the project assigns to one after
it is made, and the log only grows).  They are not ``frozen`` dataclasses because a frozen
dataclass's constructor costs several times more, and the engine makes one or two per move.
Each writes its ``__init__`` out (``init=False``): a compiled build then makes events natively
instead of through the dataclass's generated Python ``__init__``, four times slower.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .cards import KIND_TEXT, TEXT_OF
from .pickling import by_fields


def _t(cards: tuple[int, ...]) -> list[str]:
    return [TEXT_OF[c] for c in cards]


@dataclass(slots=True, unsafe_hash=True)
class Event:
    def full(self) -> dict[str, Any]:
        raise NotImplementedError

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see; default: the event is public."""
        return self.full()


@dataclass(init=False, slots=True, unsafe_hash=True)
class HandStarted(Event):
    """A chance event: the shuffled deck is recorded but shown to nobody."""

    hand_no: int
    dealer: int
    deck: tuple[int, ...] = field(repr=False)
    minimums: tuple[int, ...]

    def __init__(self, hand_no: int, dealer: int, deck: tuple[int, ...], minimums: tuple[int, ...]) -> None:
        self.hand_no = hand_no
        self.dealer = dealer
        self.deck = deck
        self.minimums = minimums

    def full(self) -> dict[str, Any]:
        return {"type": "hand_started", "hand": self.hand_no, "dealer": self.dealer,
                "minimums": list(self.minimums), "deck": _t(self.deck)}

    def view(self, seat: int) -> dict[str, Any]:
        return {"type": "hand_started", "hand": self.hand_no, "dealer": self.dealer,
                "minimums": list(self.minimums)}


@dataclass(init=False, slots=True, unsafe_hash=True)
class Dealt(Event):
    seat: int
    cards: tuple[int, ...]

    def __init__(self, seat: int, cards: tuple[int, ...]) -> None:
        self.seat = seat
        self.cards = cards

    def full(self) -> dict[str, Any]:
        return {"type": "dealt", "seat": self.seat, "cards": _t(self.cards)}

    def view(self, seat: int) -> dict[str, Any]:
        if seat == self.seat:
            return self.full()
        return {"type": "dealt", "seat": self.seat, "count": len(self.cards)}


@dataclass(init=False, slots=True, unsafe_hash=True)
class UpcardTurned(Event):
    card: int

    def __init__(self, card: int) -> None:
        self.card = card

    def full(self) -> dict[str, Any]:
        return {"type": "upcard", "card": TEXT_OF[self.card]}


@dataclass(init=False, slots=True, unsafe_hash=True)
class Drew(Event):
    seat: int
    card: int
    replacement: bool = False

    def __init__(self, seat: int, card: int, replacement: bool = False) -> None:
        self.seat = seat
        self.card = card
        self.replacement = replacement

    def full(self) -> dict[str, Any]:
        return {"type": "drew", "seat": self.seat, "card": TEXT_OF[self.card],
                "replacement": self.replacement}

    def view(self, seat: int) -> dict[str, Any]:
        if seat == self.seat:
            return self.full()
        return {"type": "drew", "seat": self.seat, "replacement": self.replacement}


@dataclass(init=False, slots=True, unsafe_hash=True)
class RedThreeLaid(Event):
    seat: int
    card: int
    source: str  # "deal", "stock" or "pile"

    def __init__(self, seat: int, card: int, source: str) -> None:
        self.seat = seat
        self.card = card
        self.source = source

    def full(self) -> dict[str, Any]:
        return {"type": "red_three", "seat": self.seat, "card": TEXT_OF[self.card],
                "source": self.source}


@dataclass(init=False, slots=True, unsafe_hash=True)
class PileTaken(Event):
    seat: int
    top: int
    with_cards: tuple[int, ...]

    def __init__(self, seat: int, top: int, with_cards: tuple[int, ...]) -> None:
        self.seat = seat
        self.top = top
        self.with_cards = with_cards

    def full(self) -> dict[str, Any]:
        return {"type": "took_pile", "seat": self.seat, "top": TEXT_OF[self.top],
                "with": _t(self.with_cards)}


@dataclass(init=False, slots=True, unsafe_hash=True)
class PilePickedUp(Event):
    """The rest of a pile joins the hand once an opening by the pile has met its minimum."""

    seat: int
    cards: tuple[int, ...]

    def __init__(self, seat: int, cards: tuple[int, ...]) -> None:
        self.seat = seat
        self.cards = cards

    def full(self) -> dict[str, Any]:
        return {"type": "picked_up", "seat": self.seat, "cards": _t(self.cards)}


@dataclass(init=False, slots=True, unsafe_hash=True)
class PartnersFormed(Event):
    """Cut-throat: ``lone`` plays alone for the rest of the hand; ``partners`` share melds.

    ``merged`` lists the ranks on which both partners had a meld, now one meld."""

    lone: int
    partners: tuple[int, int]
    merged: tuple[int, ...] = ()

    def __init__(self, lone: int, partners: tuple[int, int], merged: tuple[int, ...] = ()) -> None:
        self.lone = lone
        self.partners = partners
        self.merged = merged

    def full(self) -> dict[str, Any]:
        return {"type": "partners", "lone": self.lone, "partners": list(self.partners),
                "merged": [KIND_TEXT[r] for r in self.merged]}


@dataclass(init=False, slots=True, unsafe_hash=True)
class Melded(Event):
    seat: int
    rank: int
    cards: tuple[int, ...]
    concealed: bool

    def __init__(self, seat: int, rank: int, cards: tuple[int, ...], concealed: bool) -> None:
        self.seat = seat
        self.rank = rank
        self.cards = cards
        self.concealed = concealed

    def full(self) -> dict[str, Any]:
        return {"type": "meld", "seat": self.seat, "rank": KIND_TEXT[self.rank],
                "cards": _t(self.cards), "concealed_canasta": self.concealed}


@dataclass(init=False, slots=True, unsafe_hash=True)
class Added(Event):
    seat: int
    rank: int
    card: int

    def __init__(self, seat: int, rank: int, card: int) -> None:
        self.seat = seat
        self.rank = rank
        self.card = card

    def full(self) -> dict[str, Any]:
        return {"type": "add", "seat": self.seat, "rank": KIND_TEXT[self.rank],
                "card": TEXT_OF[self.card]}


@dataclass(init=False, slots=True, unsafe_hash=True)
class Discarded(Event):
    seat: int
    card: int

    def __init__(self, seat: int, card: int) -> None:
        self.seat = seat
        self.card = card

    def full(self) -> dict[str, Any]:
        return {"type": "discard", "seat": self.seat, "card": TEXT_OF[self.card]}


@dataclass(init=False, slots=True, unsafe_hash=True)
class Asked(Event):
    seat: int
    partner: int

    def __init__(self, seat: int, partner: int) -> None:
        self.seat = seat
        self.partner = partner

    def full(self) -> dict[str, Any]:
        return {"type": "asked", "seat": self.seat, "partner": self.partner}


@dataclass(init=False, slots=True, unsafe_hash=True)
class Answered(Event):
    seat: int
    yes: bool

    def __init__(self, seat: int, yes: bool) -> None:
        self.seat = seat
        self.yes = yes

    def full(self) -> dict[str, Any]:
        return {"type": "answered", "seat": self.seat, "yes": self.yes}


@dataclass(init=False, slots=True, unsafe_hash=True)
class WentOut(Event):
    seat: int
    concealed: bool

    def __init__(self, seat: int, concealed: bool) -> None:
        self.seat = seat
        self.concealed = concealed

    def full(self) -> dict[str, Any]:
        return {"type": "went_out", "seat": self.seat, "concealed": self.concealed}


@dataclass(init=False, slots=True, unsafe_hash=True)
class HandEnded(Event):
    hand_no: int
    reason: str
    hands: tuple[tuple[int, ...], ...]
    result: Any  # scoring.HandResult
    totals: tuple[int, ...]

    def __init__(self, hand_no: int, reason: str, hands: tuple[tuple[int, ...], ...], result: Any,
                 totals: tuple[int, ...]) -> None:
        self.hand_no = hand_no
        self.reason = reason
        self.hands = hands
        self.result = result
        self.totals = totals

    def full(self) -> dict[str, Any]:
        return {"type": "hand_ended", "hand": self.hand_no, "reason": self.reason,
                "hands": [_t(h) for h in self.hands], "scores": self.result.to_json(),
                "totals": list(self.totals)}


@dataclass(init=False, slots=True, unsafe_hash=True)
class GameEnded(Event):
    winner: int | None
    reason: str
    totals: tuple[int, ...]

    def __init__(self, winner: int | None, reason: str, totals: tuple[int, ...]) -> None:
        self.winner = winner
        self.reason = reason
        self.totals = totals

    def full(self) -> dict[str, Any]:
        return {"type": "game_ended", "winner": self.winner, "reason": self.reason,
                "totals": list(self.totals)}
