"""Cards, kinds and point values.

A physical card is an ``int`` id so that hands, piles and decks are cheap tuples.  Moves never
name physical cards: they name *kinds* (a natural rank, a deuce, a joker, a black three),
because suits never change what a card can do.  Suits exist for the deal and for display.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from .errors import CanastaError

SUITS: Final = "cdhs"
SUIT_SYMBOLS = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}
RED_SUITS: Final = frozenset("dh")

# Kinds.  0..10 are the natural ranks 4..A, in that order, so a natural kind *is* its rank.
DEUCE: Final = 11
JOKER: Final = 12
BLACK3: Final = 13
RED3: Final = 14
N_KINDS: Final = 15

# Final (a static, not a module lookup, when compiled) and typed ``tuple[X, ...]``: a literal
# tuple would be a fixed-size C struct, boxed again on every lookup by a variable index.
KIND_TEXT: Final[tuple[str, ...]] = ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "Jo",
                                     "3", "3")
KIND_VALUE: Final[tuple[int, ...]] = (5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 20, 20, 50, 5, 0)

# Physical ranks inside one 54-card deck: index = prank * 4 + suit, jokers at 52 and 53.
_PRANK_TEXT: Final[tuple[str, ...]] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
CARDS_PER_DECK: Final = 54
MAX_DECKS: Final = 3


def _kind_of_index(idx: int) -> int:
    if idx >= 52:
        return JOKER
    prank, suit = divmod(idx, 4)
    if prank == 0:
        return DEUCE
    if prank == 1:
        return RED3 if SUITS[suit] in RED_SUITS else BLACK3
    return prank - 2


def _text_of_index(idx: int) -> str:
    if idx >= 52:
        return "Jo"
    prank, suit = divmod(idx, 4)
    return _PRANK_TEXT[prank] + SUITS[suit]


KIND_OF: Final[tuple[int, ...]] = tuple(
    _kind_of_index(i % CARDS_PER_DECK) for i in range(CARDS_PER_DECK * MAX_DECKS)
)
VALUE_OF: Final[tuple[int, ...]] = tuple(KIND_VALUE[k] for k in KIND_OF)
TEXT_OF: Final[tuple[str, ...]] = tuple(
    _text_of_index(i % CARDS_PER_DECK) for i in range(CARDS_PER_DECK * MAX_DECKS)
)
# Sorting key for display: rank high to low, wild cards first, suit last.
_DISPLAY_ORDER: Final[tuple[int, ...]] = (JOKER, DEUCE, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, BLACK3, RED3)
_DISPLAY_RANK: Final = {k: i for i, k in enumerate(_DISPLAY_ORDER)}


def is_natural_kind(kind: int) -> bool:
    return kind <= 10


def full_deck(decks: int) -> tuple[int, ...]:
    """Every card id of a pack of ``decks`` 54-card decks, in canonical order."""
    return tuple(range(CARDS_PER_DECK * decks))


def card_text(card: int) -> str:
    """A card id as its text, rank then suit; each deck of a pack has its own ids.

    >>> card_text(0), card_text(50), card_text(53), card_text(54 + 50)
    ('2c', 'Ah', 'Jo', 'Ah')
    """
    return TEXT_OF[card]


_DISPLAY_KEY: Final[tuple[tuple[int, str, int], ...]] = tuple(
    (_DISPLAY_RANK[KIND_OF[c]], TEXT_OF[c], c) for c in range(CARDS_PER_DECK * MAX_DECKS))


def display_sorted(cards: Iterable[int]) -> list[int]:
    """Wild cards first, then ranks high to low, suits in order."""
    return sorted(cards, key=_DISPLAY_KEY.__getitem__)


def cards_value(cards: Iterable[int]) -> int:
    return sum(VALUE_OF[c] for c in cards)


class CardParseError(CanastaError):
    """A card or rank token that cannot be read."""


_RANK_ALIASES: Final = {
    "A": 10, "K": 9, "Q": 8, "J": 7, "10": 6, "T": 6,
    "9": 5, "8": 4, "7": 3, "6": 2, "5": 1, "4": 0,
    "2": DEUCE, "3": BLACK3, "JO": JOKER, "JK": JOKER, "*": JOKER, "JOKER": JOKER,
}
_SUIT_ALIASES: Final = {"c": "c", "d": "d", "h": "h", "s": "s",
                 "\u2663": "c", "\u2666": "d", "\u2665": "h", "\u2660": "s"}
RANK_HELP: Final = "a rank (A K Q J 10 9 8 7 6 5 4), 2 (wild), Jo (joker) or 3 (black three)"


def parse_kind(token: str) -> int:
    """Read a move token such as ``K``, ``10``, ``2``, ``Jo`` or ``9h`` (the suit is ignored,
    except that ``3h`` and ``3d`` are red threes).

    A red three reads as RED3: no legal move names one, and ``apply`` says why, so a move that
    names one is refused as a rule, not as unreadable text.

    >>> parse_kind("K"), parse_kind("9h"), parse_kind("10"), parse_kind("4")
    (9, 5, 6, 0)
    >>> parse_kind("2") == DEUCE, parse_kind("Jo") == JOKER, parse_kind("3h") == RED3
    (True, True, True)
    """
    raw = token.strip()
    if not raw:
        raise CardParseError(f"empty card: expected {RANK_HELP}")
    upper = raw.upper()
    if upper in _RANK_ALIASES:
        return _RANK_ALIASES[upper]
    suit = _SUIT_ALIASES.get(raw[-1].lower() if raw[-1].isascii() else raw[-1])
    head = raw[:-1].upper()
    if suit is not None and head in _RANK_ALIASES and _RANK_ALIASES[head] not in (JOKER,):
        kind = _RANK_ALIASES[head]
        if kind == BLACK3 and suit in RED_SUITS:
            return RED3
        return kind
    raise CardParseError(f"unknown card {raw!r}: expected {RANK_HELP}")


def parse_card_sequence(tokens: Sequence[str], decks: int) -> list[int]:
    """Read physical cards (``Ah``, ``10s``, ``Jo``...) and give each its own copy id.

    The n-th occurrence of the same card text becomes the n-th deck's copy of it, so a
    listing can never name more copies of a card than the pack holds.

    >>> cards = parse_card_sequence(["Ah", "10s", "Jo", "ah"], decks=2)
    >>> cards, [card_text(c) for c in cards]
    ([50, 35, 52, 104], ['Ah', '10s', 'Jo', 'Ah'])
    >>> parse_card_sequence(["Ah", "Ah", "Ah"], decks=2)
    Traceback (most recent call last):
        ...
    canasta_cli.core.cards.CardParseError: too many copies of Ah: a pack of 2 decks holds only 2
    """
    by_text: dict[str, list[int]] = {}
    for cid in full_deck(decks):
        by_text.setdefault(TEXT_OF[cid].lower(), []).append(cid)
    used: dict[str, int] = {}
    out: list[int] = []
    for tok in tokens:
        key = _normalise_card_text(tok)
        pool = by_text.get(key.lower())
        if pool is None:
            raise CardParseError(
                f"unknown card {tok!r}: expected a rank (A K Q J 10 9 8 7 6 5 4 3 2) followed by "
                "a suit (c d h s), or Jo for a joker"
            )
        n = used.get(key.lower(), 0)
        if n >= len(pool):
            raise CardParseError(
                f"too many copies of {key}: a pack of {decks} decks holds only {len(pool)}"
            )
        used[key.lower()] = n + 1
        out.append(pool[n])
    return out


def _normalise_card_text(tok: str) -> str:
    raw = tok.strip()
    if raw.upper() in ("JO", "JK", "JOKER", "*"):
        return "Jo"
    if len(raw) < 2:
        return raw
    suit = _SUIT_ALIASES.get(raw[-1].lower() if raw[-1].isascii() else raw[-1], raw[-1])
    head = raw[:-1].upper()
    if head == "T":
        head = "10"
    return head + suit
