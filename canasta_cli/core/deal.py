"""The deal and the start of a game: each hand's deck from (seed, hand number), stacked decks
completed, and starting scores checked.  All chance in a game is drawn here."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from .cards import CARDS_PER_DECK, MAX_DECKS, full_deck
from .errors import CanastaError
from .reasons import GameEnd
from .rules import Ruleset


class DeckError(CanastaError):
    """A stacked deck that is not a (partial) ordering of the pack."""


def shuffled_deck(rules: Ruleset, seed: int, hand_no: int) -> tuple[int, ...]:
    """The deck for one hand: a function of (seed, hand number) only.

    ``random.Random(...).shuffle(deck)``, written out (the same calls to ``getrandbits``, so
    the same deck) because its per-card method calls were a tenth of a random hand's time."""
    deck = list(full_deck(rules.decks))
    getrandbits = random.Random(f"canasta/{seed}/{hand_no}").getrandbits
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        k = _BITS[n]
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


_BITS: Final = tuple(n.bit_length() for n in range(CARDS_PER_DECK * MAX_DECKS + 1))


def complete_deck(rules: Ruleset, top: Sequence[int], seed: int, hand_no: int) -> tuple[int, ...]:
    """A stacked deck's listed cards first, then every unlisted card in seeded shuffled order."""
    pack = set(full_deck(rules.decks))
    seen: set[int] = set()
    for c in top:
        if c not in pack:
            raise DeckError(f"card id {c} is not in a pack of {rules.deck_size} cards")
        if c in seen:
            raise DeckError("a stacked deck lists the same physical card twice")
        seen.add(c)
    rest = [c for c in shuffled_deck(rules, seed, hand_no) if c not in seen]
    deck = tuple(top) + tuple(rest)
    if len(deck) != rules.deck_size:
        raise DeckError(f"a deck must hold {rules.deck_size} cards, not {len(deck)}")
    return deck


MAX_START_SCORE: Final = 1_000_000


def check_scores(rules: Ruleset, scores: Sequence[int] | None) -> tuple[int, ...]:
    """Checked starting totals: one whole multiple of 5 per side, and not a finished game."""
    if scores is None:
        return (0,) * rules.sides
    raw: list[object] = list(scores)  # object: a compiled int would read True as 1
    who = "side" if rules.partnerships else "player"
    if len(raw) != rules.sides:
        raise ValueError(f"{rules.name} keeps {rules.sides} scores (one per {who}), got"
                         f" {len(raw)}")
    values: list[int] = []
    for v in raw:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"a score must be a whole number, not {v!r}")
        if abs(v) > MAX_START_SCORE:
            raise ValueError(f"a score must lie between -{MAX_START_SCORE} and"
                             f" {MAX_START_SCORE}")
        if v % 5:
            raise ValueError(f"a Canasta score is a multiple of 5, not {v}")
        values.append(v)
    over = game_over_reason(rules, values)
    if over is not None:
        raise ValueError(f"at {', '.join(map(str, values))} the game is already over: "
                         + (f"a {who} has reached the target of {rules.target}" if over == "target"
                            else f"the leaders are tied at or above {rules.target}, a draw"))
    return tuple(values)


def game_over_reason(rules: Ruleset, scores: Sequence[int]) -> GameEnd | None:
    """Whether totals end the game after a hand: "target", "draw", or None to play on."""
    best = max(scores)
    if best < rules.target:
        return None
    if sum(1 for s in scores if s == best) == 1:
        return GameEnd.TARGET
    return GameEnd.DRAW if rules.tie_policy == "draw" else None
