"""Stacked deals that reach the rare decisions of each preset, for ``bot check --games``.

Dealt games reach the common decisions of a hand; these reach the ones a few hundred dealt
games may never show: on ``two-player`` the draw of two with a red three among the cards
drawn, the stock holding one card when two are due (RULES-REFERENCE §11.4) and going out
with the two canastas it needs; on ``three-player-cutthroat`` (§14.2) taking the pile and so
becoming the lone hand, playing on as a partner once an opponent took the pile (with both
partners' kings merged into one meld), and going out before the pile was ever taken.  The
classic deals are the scripted checks' own (``botcheck.STACKED``).

Each deal is a deck listing and the moves that lead to the decision (the bot sits in seat 0
and plays first); a deal whose decision needs the stock walked down instead names a test of
the state to walk to, and the first seed (from 1) whose walk gets there is used, so the deal
is the same on every run.  The bot is then asked that decision and plays the hand out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .botcheck import STACKED
from .core import (
    CLASSIC,
    GameState,
    Phase,
    Ruleset,
    apply,
    format_move,
    legal_moves,
    new_game,
    parse_deck_text,
    parse_move,
    preset,
)
from .core.cards import KIND_OF
from .core.moves import Discard, Draw, Move


@dataclass(frozen=True)
class RareDeal:
    rules: str                 # the preset
    name: str                  # the decision it reaches
    deck: str                  # deckfile text, by seat
    moves: tuple[str, ...] = ()
    until: Callable[[GameState], bool] | None = None  # walk the stock until this holds


def _one_card_for_two(st: GameState) -> bool:
    return (st.actor == 0 and st.phase is Phase.DRAW and len(st.stock) == 1
            and st.rules.draw_count == 2)


# Seat 0 plays first: the dealer is the last seat.
TWO_PLAYER = "two-player"
CUTTHROAT = "three-player-cutthroat"
RARE: list[RareDeal] = [
    RareDeal(TWO_PLAYER, "a frozen pile offered, or the draw of two",
             "seat0: 9h 9c Kh Kd Kc 5d 6h 7s 8c 10h Js 4c 5c 6d 7c\nstock: Jo 9d 4s Qh"),
    RareDeal(TWO_PLAYER, "a red three among the two cards drawn, replaced",
             "seat0: Kh Kd Kc 5h 5d 6c 4c 6h 7s 8c 9d 10c Jd Qs Ac\nstock: 4s 3h Jh Js 5s",
             ("draw",)),
    RareDeal(TWO_PLAYER, "one card left in the stock when two are due",
             "seat0: Ah Ad 4c 5d 6h 7s 8c 9d 10h Js Qc 4h 5c 6d 7c\nstock: Kh",
             until=_one_card_for_two),
    RareDeal(TWO_PLAYER, "going out with the two canastas it needs",
             "seat0: Kh Kd Kc Ks Kh Kd Kc Qh Qd Qc Qs Qh Qd Qc 4s\nstock: 5h 2c 2d",
             ("draw",)),
    RareDeal(CUTTHROAT, "taking the pile, so playing alone (the lone hand)",
             "seat0: 9h 9c Kh Kd Kc 5d 6h 7s 8c 10h Js 4c 5c\nstock: Jo 9d 4s Qh"),
    RareDeal(CUTTHROAT, "a partner once an opponent took the pile, the kings merged",
             "seat0: Kh Kd Kc Ah Ad Ac 5d 6h 7s 8c 10h Js As\n"
             "seat1: Ac Ad 4h 5h 6d 7c 8h 9s 10s Jh Qs 4d 7h\n"
             "seat2: Ks Kh Kd Qh Qd Qc 5s 6s 8s 9h 10c Jd 4c\n"
             "stock: 4s 9d 10d Jc Qd 5c 6c 7d 8d Qh 9c",
             ("draw", "meld K K K", "meld A A A", "discard 5", "draw", "discard J",
              "draw", "meld K K K", "meld Q Q Q", "discard 5", "draw", "discard A",
              "pile A A")),
    RareDeal(CUTTHROAT, "going out before the pile was taken (so alone)",
             "seat0: Kh Kd Kc Ks Kh Kd Kc Qh Qd Qc Qs Qh Qd\nstock: 5h Qc 4s", ("draw",)),
]


def rare_presets() -> list[str]:
    """The presets with stacked deals, classic first."""
    return ["classic", *dict.fromkeys(d.rules for d in RARE)]


def _line(st: GameState, move: Move) -> dict[str, Any]:
    return {"type": "move", "seat": st.actor, "move": format_move(move), "by": "bot"}


def _walk_step(st: GameState) -> Move:
    """Draw, else discard the first card that may be discarded (as the exhausted-stock check
    walks)."""
    legal = legal_moves(st)
    return Draw() if Draw() in legal else next(m for m in legal if isinstance(m, Discard))


@dataclass
class Stacked:
    """A stacked deal ready to play: ``Referee.play(seed=, decks=, dealer=, prefix=)``."""

    name: str
    rules: Ruleset             # one hand (max_hands=1)
    seed: int
    decks: list[list[int]]
    dealer: int
    prefix: list[dict[str, Any]]   # the recorded moves that lead to the decision
    state: GameState               # where the moves lead (the bot's decision, or soon after)


def stacked_deals(name: str) -> list[Stacked]:
    """The preset's stacked deals (none for a preset that has none)."""
    out = []
    if name == "classic":
        rules = CLASSIC.with_options(max_hands=1)
        for label, deck, moves in STACKED:
            until = None if moves is not None else _stock_gone
            out.append(_build(label, rules, deck, tuple(moves or ()), until, 3))
        return out
    rules = preset(name).with_options(max_hands=1)
    for deal in RARE:
        if deal.rules == name:
            out.append(_build(deal.name, rules, deal.deck, deal.moves, deal.until,
                              rules.players - 1))
    return out


def _stock_gone(st: GameState) -> bool:
    return not st.stock and st.phase is Phase.DRAW


def _build(label: str, rules: Ruleset, deck: str, moves: tuple[str, ...],
           until: Callable[[GameState], bool] | None, dealer: int) -> Stacked:
    for seed in range(1, 1000 if until is not None else 2):
        decks = parse_deck_text(deck, rules, dealer=dealer, seed=seed)
        st = new_game(rules, seed=seed, decks=decks, dealer=dealer)
        prefix = []
        for text in moves:
            top = KIND_OF[st.pile[-1]] if st.pile else None
            move = parse_move(text, top_rank=top)
            prefix.append(_line(st, move))
            st = apply(st, move)
        while until is not None and not until(st) and not st.is_over and (
                st.stock or st.phase is not Phase.DRAW):
            move = _walk_step(st)
            prefix.append(_line(st, move))
            st = apply(st, move)
        if until is None or until(st):
            return Stacked(label, rules, seed, decks, dealer, prefix, st)
    raise ValueError(f"no seed reaches the stacked deal {label!r}")  # a broken listing
