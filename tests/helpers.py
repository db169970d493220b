"""Scenario helpers: stacked decks by seat, and moves in notation; how to start the canasta
this test process imports."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import canasta_cli
from canasta_cli.core import (
    CLASSIC,
    GameState,
    Move,
    Ruleset,
    apply,
    deck_from_seats,
    format_move,
    legal_moves,
    new_game,
    parse_card_sequence,
    parse_move,
    preset,
)
from canasta_cli.core.cards import KIND_OF, RED3, full_deck

# `python -m canasta_cli.cli` from the checkout imports the checkout's sources; where this
# process imports an installed canasta (the compiled run: pytest -P, and its xdist workers)
# the child must too: -P keeps the checkout off its path.
SAME_CANASTA = ([] if Path(canasta_cli.__file__).resolve().parent
                == Path(__file__).resolve().parent.parent / "canasta_cli" else ["-P"])


def setup(rules: Ruleset = CLASSIC, dealer: int | None = None, stock: str = "",
          seed: int = 0, **seats: str) -> GameState:
    """A game whose first hand deals ``seatN="K K ..."`` (padded with harmless filler) and whose
    stock starts with ``stock`` (upcard first).  The dealer defaults to the last seat, so seat 0
    plays first."""
    if dealer is None:
        dealer = rules.players - 1
    named = {int(k[4:]): v.split() for k, v in seats.items()}
    stock_tokens = stock.split()
    listed = parse_card_sequence(
        [t for s in sorted(named) for t in named[s]] + stock_tokens, rules.decks)
    pos = 0
    hands: list[list[int]] = []
    for s in range(rules.players):
        k = len(named.get(s, []))
        hands.append(listed[pos:pos + k] if s in named else [])
        pos += k
    stock_cards = listed[pos:]
    used = set(listed)
    # Filler: natural cards only (no threes, no wild cards), spread over ranks.
    filler = [c for c in full_deck(rules.decks)
              if c not in used and KIND_OF[c] <= 10]
    filler.sort(key=lambda c: (c // 54, (c % 54) % 4, c))
    for s in range(rules.players):
        while len(hands[s]) < rules.hand_size:
            hands[s].append(filler.pop(0))
    taken = {c for h in hands for c in h} | set(stock_cards)
    rest = [c for c in full_deck(rules.decks) if c not in taken]
    rest.sort(key=lambda c: (KIND_OF[c] == RED3, c))  # red threes last: no surprise replacements
    order = deck_from_seats(rules, dealer, hands, stock_cards + rest)
    return new_game(rules, seed=seed, decks=[order], dealer=dealer)


def mv(state: GameState, text: str) -> Move:
    top = KIND_OF[state.pile[-1]] if state.pile else None
    return parse_move(text, top_rank=top)


def play(state: GameState, *texts: str) -> GameState:
    for text in texts:
        state = apply(state, mv(state, text))
    return state


def legal_texts(state: GameState) -> list[str]:
    return [format_move(m) for m in legal_moves(state)]


def hand_text(state: GameState, seat: int) -> list[str]:
    from canasta_cli.core.cards import TEXT_OF
    return sorted(TEXT_OF[c] for c in state.hands[seat])


def import_source(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from ... import`` statement reads from, its dots resolved against
    ``package`` (the importing module's package)."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[:len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def random_against_normal(folder: Path, seed: int) -> Path:
    """The record of one one-hand two-player game, builtin:random (seat 0) against
    builtin:normal: the game the review's tests judge (seat 0 errs a lot)."""
    from canasta_cli.hosting.match import MatchPlan
    from canasta_cli.hosting.match import run as play_match
    play_match(MatchPlan(seats=("builtin:random", "builtin:normal"),
                         rules=preset("two-player").with_options(max_hands=1), seed=seed,
                         record_dir=folder))
    return folder / "game-0001.jsonl"


def recorded_deck(record: Path) -> tuple[list[str], Callable[[list[str]], Any], list[int]]:
    """A recorded game's deck as card texts (in dealing order), a function that replays the
    game dealt from another order of those texts, and the card id at each place of the deck
    (a deck dealt from texts numbers the copies of a card in their order).  For tests that
    re-deal the cards a seat never sees."""
    from canasta_cli.core.cards import TEXT_OF
    from canasta_cli.core.deal import shuffled_deck
    from canasta_cli.hosting.records import load_record, sealed_parts
    from canasta_cli.hosting.replay import replay
    lines = load_record(record)
    reveal = sealed_parts(lines)
    assert reveal is not None and not reveal.get("decks")
    rules = replay(lines).state.rules
    deck = [TEXT_OF[c] for c in shuffled_deck(rules, int(reveal["seed"]), 1)]

    def dealt(order: list[str]) -> Any:
        return replay(lines, {"seed": reveal["seed"], "dealer": reveal.get("dealer"),
                              "decks": [order]})

    return deck, dealt, parse_card_sequence(deck, rules.decks)
