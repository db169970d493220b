"""Scenario helpers: stacked decks by seat, and moves in notation; how to start the canasta
this test process imports."""

from __future__ import annotations

import ast
from pathlib import Path

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
