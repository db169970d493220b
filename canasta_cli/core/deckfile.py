"""Stacked decks as text, so that any situation can be set up exactly.

Two forms, one deck per hand, hands separated by a line ``---``; ``#`` starts a comment.

1. Top to bottom: card tokens (``Ah 10s 2c Jo 3d``...) in dealing order.  The first card goes
   to the player on the dealer's left, the next one to the player after, and so on round
   the table; after the hands come the upcard(s), then the stock from its top.
2. By seat: lines ``seat0: ...``, ``seat1: ...`` (cards of that player's hand), then
   ``stock: ...`` (the upcard first, then the stock from its top).  Needs the dealer.
   A hand listed short, or not at all, is filled up with *plain* cards only: natural cards
   from 4 to A, never a wild card or a three, spread over the ranks so that the filler makes
   as few pairs as it can (a rank the hand already holds is used last).  So the filler never
   hands anyone a choice the writer did not list: no wild card, no black three, no red three
   (whose replacement would eat into the stock as listed).  Which plain cards is decided by the
   seed.  To control every card, list every hand in full.

Either form may stop early: unlisted cards follow in the seed's shuffled order.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import KIND_OF, parse_card_sequence
from .deal import shuffled_deck
from .errors import CanastaError
from .rules import Ruleset


class DeckFileError(CanastaError):
    """A deck listing that cannot be read; the message names the line."""


def deck_from_seats(rules: Ruleset, dealer: int, hands: Sequence[Sequence[int]],
                    stock: Sequence[int] = ()) -> list[int]:
    """The top-to-bottom order that deals ``hands[s]`` to seat s, then ``stock`` (upcard first)."""
    n = rules.players
    if len(hands) != n:
        raise DeckFileError(f"expected {n} hands, got {len(hands)}")
    for seat, h in enumerate(hands):
        if len(h) != rules.hand_size:
            raise DeckFileError(
                f"seat {seat} has {len(h)} cards; this game deals {rules.hand_size}")
    order: list[int] = []
    for i in range(rules.hand_size):
        for k in range(n):
            order.append(hands[(dealer + 1 + k) % n][i])
    order.extend(stock)
    return order


def parse_deck_text(text: str, rules: Ruleset, dealer: int | None = None,
                    seed: int = 0) -> list[list[int]]:
    decks: list[list[int]] = []
    for block_no, block in enumerate(_blocks(text), start=1):
        seats: dict[int, list[str]] = {}
        stock: list[str] = []
        plain: list[str] = []
        for line_no, line in block:
            head, sep, tail = line.partition(":")
            label = head.strip().lower()
            if sep and (label.startswith("seat") or label == "stock"):
                tokens = tail.split()
                if label == "stock":
                    stock.extend(tokens)
                    continue
                try:
                    seat = int(label[4:])
                except ValueError:
                    raise DeckFileError(f"line {line_no}: {head!r} should be seat0, seat1, ...")\
                        from None
                if not 0 <= seat < rules.players:
                    raise DeckFileError(f"line {line_no}: no {head.strip()} in a "
                                        f"{rules.players}-player game")
                seats.setdefault(seat, []).extend(tokens)
            else:
                plain.extend(line.split())
        try:
            if seats:
                if plain:
                    raise DeckFileError(f"deck {block_no}: mix of seat lines and plain cards")
                if dealer is None:
                    raise DeckFileError("a deck listed by seat needs the dealer to be given")
                cards = parse_card_sequence(
                    [t for s in range(rules.players) for t in seats.get(s, [])] + stock,
                    rules.decks)
                hands, pos = [], 0
                for s in range(rules.players):
                    k = len(seats.get(s, []))
                    if k > rules.hand_size:
                        raise DeckFileError(f"seat{s} lists {k} cards; this game deals"
                                            f" {rules.hand_size}")
                    hands.append(cards[pos:pos + k])
                    pos += k
                _fill(hands, rules, set(cards), seed, block_no)
                decks.append(deck_from_seats(rules, dealer, hands, cards[pos:]))
            else:
                decks.append(parse_card_sequence(plain, rules.decks))
        except ValueError as exc:
            raise DeckFileError(f"deck {block_no}: {exc}") from None
    if not decks:
        raise DeckFileError("the deck file lists no cards")
    return decks


def _fill(hands: list[list[int]], rules: Ruleset, listed: set[int], seed: int,
          block_no: int) -> None:
    """Fill short hands with plain natural cards, rank by rank: each filler card is of a rank
    the hand holds fewest of (the seed's shuffle breaks ties)."""
    plain = [c for c in shuffled_deck(rules, seed, block_no)
             if c not in listed and KIND_OF[c] <= 10]
    for hand in hands:
        counts = [0] * 11
        for c in hand:
            if KIND_OF[c] <= 10:
                counts[KIND_OF[c]] += 1
        while len(hand) < rules.hand_size:
            if not plain:
                raise DeckFileError("not enough plain cards (4 to A) left to fill the hands"
                                    " listed short: list them in full")
            low = min(counts[KIND_OF[c]] for c in plain)
            card = next(c for c in plain if counts[KIND_OF[c]] == low)
            plain.remove(card)
            counts[KIND_OF[card]] += 1
            hand.append(card)


def _blocks(text: str) -> list[list[tuple[int, str]]]:
    blocks: list[list[tuple[int, str]]] = [[]]
    for no, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if line == "---":
            blocks.append([])
        elif line:
            blocks[-1].append((no, line))
    return [b for b in blocks if b]
