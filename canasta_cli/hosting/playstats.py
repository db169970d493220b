"""Statistics of play: what each seat of a game did, read from the game's record.

Pure functions over a record's lines (``records.load_record``): ``seat_stats`` gives one
``PlayStats`` per seat of a game, ``bot_stats`` sums them per bot over many games by their
seatings.  Every figure comes from what every seat may see: the record's events (the public
view, as a sealed record holds them) and its ``result`` line (each seat's decisions and the
time they took), never from the hidden cards.

The figures, per hand the seat played (a hand counts once it ended; the rest of a game cut
short is left out):

* the hands it went out (and went out concealed);
* its pile takes, and the cards of each pile it took (the top card with the rest);
* the canastas it completed (the move that brought a meld to seven cards; where two
  cut-throat partners' melds are merged into one, the older meld's owner), natural or mixed
  as the meld stood when the hand was scored;
* the red threes it laid (from the deal, the stock or the pile);
* the points left in its hand when another side went out (the cards shown at the hand's end,
  valued as the score counts them);
* the hands that ended with the stock exhausted (the last card drawn, or a red three);
* the mean time the referee measured for its decisions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from ..core import Ruleset
from ..core.cards import CARDS_PER_DECK, DEUCE, JOKER, KIND_OF, KIND_TEXT, TEXT_OF, VALUE_OF
from ..core.errors import CanastaError
from ..core.reasons import HandEnd
from .records import RecordError

CANASTA = 7  # cards in a canasta
STOCK_ENDS = frozenset({HandEnd.STOCK_EXHAUSTED.value, HandEnd.LAST_RED_THREE.value})

_VALUE = {TEXT_OF[c]: VALUE_OF[c] for c in range(CARDS_PER_DECK)}
_KIND = {TEXT_OF[c]: KIND_OF[c] for c in range(CARDS_PER_DECK)}


def _ratio(part: float, whole: float) -> float | None:
    return part / whole if whole else None


@dataclass
class PlayStats:
    """The counts of one seat in one game, or summed over many (``add``); the figures are
    the properties, None where there is nothing to divide by."""

    hands: int = 0              # hands played to their end
    went_out: int = 0
    went_out_concealed: int = 0
    pile_takes: int = 0
    pile_cards: int = 0         # cards of the piles taken, each top card included
    natural_canastas: int = 0   # completed by this seat, natural when the hand was scored
    mixed_canastas: int = 0
    red_threes: int = 0         # laid
    caught: int = 0             # hands another side went out in
    caught_points: int = 0      # the points left in its hand in those hands
    stock_hands: int = 0        # hands that ended with the stock exhausted
    decisions: int = 0          # the referee's count (the result line)
    decision_ms: float = 0.0    # the time those decisions took

    def add(self, other: PlayStats) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    @property
    def go_out_rate(self) -> float | None:
        return _ratio(self.went_out, self.hands)

    @property
    def concealed_rate(self) -> float | None:
        return _ratio(self.went_out_concealed, self.hands)

    @property
    def takes_per_hand(self) -> float | None:
        return _ratio(self.pile_takes, self.hands)

    @property
    def mean_pile(self) -> float | None:
        return _ratio(self.pile_cards, self.pile_takes)

    @property
    def natural_per_hand(self) -> float | None:
        return _ratio(self.natural_canastas, self.hands)

    @property
    def mixed_per_hand(self) -> float | None:
        return _ratio(self.mixed_canastas, self.hands)

    @property
    def red_threes_per_hand(self) -> float | None:
        return _ratio(self.red_threes, self.hands)

    @property
    def mean_left(self) -> float | None:
        return _ratio(self.caught_points, self.caught)

    @property
    def mean_decision_ms(self) -> float | None:
        return _ratio(self.decision_ms, self.decisions)


@dataclass
class _Meld:
    cards: list[str]
    owner: int                  # the seat that laid it
    made: int                   # when (the order of the hand's events)
    completer: int | None = None  # the seat that brought it to a canasta


@dataclass
class _Hand:
    """A hand being read: each seat's figures so far, the partnerships and the melds."""

    rules: Ruleset
    seats: list[PlayStats] = field(init=False)
    team: list[int] = field(init=False)       # each seat's row of melds
    melds: dict[tuple[int, str], _Meld] = field(default_factory=dict)
    out: int | None = None                    # the seat that went out
    events: int = 0
    last: Mapping[str, Any] | None = None     # the event before this one

    def __post_init__(self) -> None:
        n = self.rules.players
        self.seats = [PlayStats() for _ in range(n)]
        self.team = [self.rules.side_of(s) for s in range(n)]

    def grow(self, seat: int, rank: str, cards: list[str]) -> None:
        """Cards laid by ``seat`` on its row's meld of ``rank`` (a new one if none)."""
        key = (self.team[seat], rank)
        meld = self.melds.setdefault(key, _Meld([], seat, self.events))
        before = len(meld.cards)
        meld.cards += cards
        if before < CANASTA <= len(meld.cards):
            meld.completer = seat

    def merge(self, into: int, other: int) -> None:
        """Cut-throat: ``other`` now plays on ``into``'s row, their melds of a rank as one."""
        for (row, rank), meld in list(self.melds.items()):
            if row != other:
                continue
            del self.melds[(row, rank)]
            mine = self.melds.get((into, rank))
            if mine is None:
                self.melds[(into, rank)] = meld
                continue
            first, second = (mine, meld) if mine.made <= meld.made else (meld, mine)
            done = first.completer if first.completer is not None else second.completer
            both = first.cards + second.cards
            if done is None and len(both) >= CANASTA:
                done = first.owner
            self.melds[(into, rank)] = _Meld(both, first.owner, first.made, done)
        self.team = [into if t == other else t for t in self.team]


def _index(seat: object, n: int) -> int | None:
    """``seat`` if it is a seat of a game of ``n`` players."""
    return seat if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n \
        else None


def _texts(obj: object) -> list[str]:
    return [c for c in obj if isinstance(c, str)] if isinstance(obj, list) else []


def _value(cards: Iterable[str]) -> int:
    return sum(_VALUE.get(c, 0) for c in cards)


def _is_wild(card: str) -> bool:
    return _KIND.get(card) in (DEUCE, JOKER)


def _rank_of(card: object) -> str | None:
    kind = _KIND.get(card) if isinstance(card, str) else None
    return KIND_TEXT[kind] if kind is not None else None


def _took_pile(hand: _Hand, seat: int, ev: Mapping[str, Any]) -> None:
    stats = hand.seats[seat]
    stats.pile_takes += 1
    stats.pile_cards += 1  # the top card; the rest comes with ``picked_up``
    top, rank = ev.get("top"), _rank_of(ev.get("top"))
    cards = [top, *_texts(ev.get("with"))] if isinstance(top, str) else []
    last = hand.last or {}
    # A take that starts a meld is told twice: the new meld, then the take.
    told = last.get("type") == "meld" and last.get("seat") == seat \
        and last.get("rank") == rank and _texts(last.get("cards")) == cards
    if rank is not None and not told:
        hand.grow(seat, rank, cards)


def _partners(hand: _Hand, ev: Mapping[str, Any]) -> None:
    pair = ev.get("partners")
    n = hand.rules.players
    if isinstance(pair, list) and len(pair) == 2:
        a, b = _index(pair[0], n), _index(pair[1], n)
        if a is not None and b is not None and hand.team[a] != hand.team[b]:
            hand.merge(hand.team[a], hand.team[b])


def _seat_event(hand: _Hand, seat: int, ev: Mapping[str, Any]) -> None:
    """An event of one seat's doing."""
    kind, stats = ev.get("type"), hand.seats[seat]
    if kind == "red_three":
        stats.red_threes += 1
    elif kind == "took_pile":
        _took_pile(hand, seat, ev)
    elif kind == "picked_up":
        stats.pile_cards += len(_texts(ev.get("cards")))
    elif kind == "meld" and isinstance(ev.get("rank"), str):
        hand.grow(seat, ev["rank"], _texts(ev.get("cards")))
    elif kind == "add" and isinstance(ev.get("rank"), str) and isinstance(ev.get("card"), str):
        hand.grow(seat, ev["rank"], [ev["card"]])
    elif kind == "went_out":
        hand.out = seat
        stats.went_out += 1
        stats.went_out_concealed += ev.get("concealed") is True


def _end_hand(hand: _Hand, ev: Mapping[str, Any]) -> None:
    """The hand's end: its canastas, the points left in hand, how it ended."""
    for meld in hand.melds.values():
        if meld.completer is not None and len(meld.cards) >= CANASTA:
            stats = hand.seats[meld.completer]
            if any(_is_wild(c) for c in meld.cards):
                stats.mixed_canastas += 1
            else:
                stats.natural_canastas += 1
    reason = ev.get("reason")
    shown = ev.get("hands")
    left: list[Any] = shown if isinstance(shown, list) else []
    for seat, stats in enumerate(hand.seats):
        stats.hands += 1
        stats.stock_hands += reason in STOCK_ENDS
        if reason == HandEnd.WENT_OUT.value and hand.out is not None \
                and hand.team[seat] != hand.team[hand.out]:
            stats.caught += 1
            stats.caught_points += _value(_texts(left[seat]) if seat < len(left) else [])


def _result(totals: list[PlayStats], line: Mapping[str, Any]) -> None:
    """Each seat's decisions and their time, from the record's result line."""
    seats = line.get("seats")
    for stats, seat in zip(totals, seats if isinstance(seats, list) else [], strict=False):
        if not isinstance(seat, dict):
            continue
        decisions, ms = seat.get("decisions"), seat.get("time_ms")
        if isinstance(decisions, int) and isinstance(ms, int | float) and decisions > 0 \
                and ms >= 0:
            stats.decisions += decisions
            stats.decision_ms += float(ms)


def record_rules(lines: Sequence[Mapping[str, Any]]) -> Ruleset:
    """The rules of a record (its header's); a RecordError when they cannot be read."""
    rules = lines[0].get("rules") if lines else None
    try:
        if not isinstance(rules, dict):
            raise ValueError("none")
        return Ruleset.from_dict(rules)
    except (CanastaError, TypeError, ValueError) as exc:
        raise RecordError(f"the record's rules cannot be read ({exc})") from None


def seat_stats(lines: Sequence[Mapping[str, Any]]) -> list[PlayStats]:
    """Each seat's statistics of play in the game of ``lines`` (a record's, header first)."""
    rules = record_rules(lines)
    totals = [PlayStats() for _ in range(rules.players)]
    hand = _Hand(rules)
    for line in lines:
        if line.get("type") == "result":
            _result(totals, line)
        ev = line.get("event")
        if line.get("type") != "event" or not isinstance(ev, dict):
            continue
        kind = ev.get("type")
        hand.events += 1
        if kind == "hand_started":
            hand = _Hand(rules)
        elif kind == "hand_ended":
            _end_hand(hand, ev)
            for total, stats in zip(totals, hand.seats, strict=True):
                total.add(stats)
            hand = _Hand(rules)
        elif kind == "partners":
            _partners(hand, ev)
        elif (seat := _index(ev.get("seat"), rules.players)) is not None:
            _seat_event(hand, seat, ev)
        hand.last = ev
    return totals


def bot_stats(games: Iterable[tuple[Sequence[str], Sequence[PlayStats]]]) -> dict[str, PlayStats]:
    """Per bot, its seats' statistics summed over ``games``: each a seating (the bot in each
    seat) and the seats' statistics in that game."""
    out: dict[str, PlayStats] = {}
    for seating, seats in games:
        for bot, stats in zip(seating, seats, strict=False):
            out.setdefault(bot, PlayStats()).add(stats)
    return out
