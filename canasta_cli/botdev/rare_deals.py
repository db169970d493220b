"""Stacked deals that reach the rare decisions of each preset, for ``bot check`` (classic)
and ``bot check --games`` (each preset that has them).

Dealt games reach the common decisions of a hand; these reach the ones a few hundred dealt
games may never show: on ``two-player`` the draw of two with a red three among the cards
drawn, the stock holding one card when two are due (RULES-REFERENCE §11.4) and going out
with the two canastas it needs; on ``three-player-cutthroat`` (§14.2) taking the pile and so
becoming the lone hand, playing on as a partner once an opponent took the pile (with both
partners' kings merged into one meld), and going out before the pile was ever taken.  The
classic deals are those of ``canasta bot check``'s scripted checks (``CLASSIC_DEALS``: each
names its check), which between them reach every kind of request the protocol makes
(``botcheck.KINDS``) at their first decision.

Each deal is a deck listing and the moves that lead to the decision (seat 0 plays first; in
``--games`` the bot sits in seat 0, in bot check's checks in the seat that decides); a deal
whose decision needs the stock walked down instead names a test of the state to walk to, and
the first seed (from 1) whose walk gets there is used, so the deal is the same on every run.
The bot is then asked that decision and plays the hand out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core import (
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
from ..core.cards import KIND_OF
from ..core.moves import Discard, Draw, Move, TakePile


@dataclass(frozen=True)
class RareDeal:
    rules: str                 # the preset
    name: str                  # the decision it reaches
    deck: str                  # deckfile text, by seat
    moves: tuple[str, ...] = ()
    until: Callable[[GameState], bool] | None = None  # walk the stock until this holds
    check: str = ""            # classic: the name of bot check's check that plays it


def _one_card_for_two(st: GameState) -> bool:
    return (st.actor == 0 and st.phase is Phase.DRAW and len(st.stock) == 1
            and st.rules.draw_count == 2)


def _stock_gone(st: GameState) -> bool:
    return not st.stock and st.phase is Phase.DRAW


def _forced_take(st: GameState) -> bool:
    """The stock gone, and the player to draw must take the pile (RULES.md §11)."""
    if not _stock_gone(st):
        return False
    moves = legal_moves(st)
    return bool(moves) and all(isinstance(m, TakePile) for m in moves)


CLASSIC = "classic"
OPENING = "seat0: 9h 9c Kh Kd Kc 5d 6h 7s 8c 10h Js\nstock: Jo 9d 4s"
GOING_OUT = "seat0: Kh Kd Kc Ks Kh Kd Kc Ah Ad Ac 9h\nstock: Qh Ks 4d"
PLAIN = "seat0: Ah Ad 4c 5d 6h 7s 8c 9d 10h Js Qc\nstock: Kh 3h 3d 3h 3d"
# The deals of bot check's scripted checks, which bot check --games also plays on as real
# games.  The decision is that of the seat to act once the moves are made (or the stock walked
# down): seat 0's, except the partner's answer (seat 2) and the empty stock (seat 3).
CLASSIC_DEALS: list[RareDeal] = [
    RareDeal(CLASSIC, "a frozen pile offered (taken or refused)", OPENING,
             check="draw or take a frozen pile with a natural pair"),
    RareDeal(CLASSIC, "the opening meld", "seat0: Kh Kd Kc 5h 5d 2c 4c 6h 7s 8c 9d\nstock: Jh 4s",
             ("draw",), check="initial meld: reach the minimum before discarding"),
    RareDeal(CLASSIC, "opening by the pile", OPENING, ("pile 9 9",),
             check="opening by the pile: meld from the hand before the pick-up"),
    RareDeal(CLASSIC, "going out or asking the partner", GOING_OUT, ("draw",),
             check="going out is possible"),
    RareDeal(CLASSIC, "the partner's question answered", GOING_OUT, ("draw", "ask"),
             check="answer the partner's question"),
    RareDeal(CLASSIC, "red threes at the deal",
             "seat0: 3h 3d Kh Kd 7h 7d 9h 9d 5c 6c 8c\nstock: 8h Qc Qd 4s",
             check="red threes laid and replaced at the deal"),
    RareDeal(CLASSIC, "the stock runs out", PLAIN, until=_stock_gone,
             check="stock exhausted: take the pile or end the hand"),
    RareDeal(CLASSIC, "an addition to the side's meld",
             "seat0: Kh Kd Kc Ks Ah Ad Ac 5d 6h 7s 9h\nstock: Qh Ks 4d",
             ("draw", "meld K K K", "meld A A A"), check="add to a meld the side has"),
    RareDeal(CLASSIC, "a discard and nothing else", PLAIN, ("draw",),
             check="discard: every listed move a discard"),
    # Seat 1 opens, and the walk leaves seat 3 to draw from no stock with a queen on the pile.
    RareDeal(CLASSIC, "a forced take of the pile, the stock gone",
             "seat1: Kh Kd Kc Ah Ad Ac Qd Qc Qs 8c 9h\nstock: 10d Qh 5h",
             ("draw", "discard 4", "draw", "meld K K K", "meld A A A", "meld Q Q Q",
              "discard 8"), until=_forced_take,
             check="forced take: the stock gone, the pile must be taken"),
]


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
    return [CLASSIC, *dict.fromkeys(d.rules for d in RARE)]


def _line(st: GameState, move: Move) -> dict[str, Any]:
    return {"type": "move", "seat": st.actor, "move": format_move(move), "by": "bot"}


def _walk_step(st: GameState) -> Move:
    """Draw, else discard the first card that may be discarded (as the exhausted-stock check
    walks)."""
    legal = legal_moves(st)
    return Draw() if Draw() in legal else next(m for m in legal if isinstance(m, Discard))


@dataclass
class Stacked:
    """A stacked deal ready to play: ``Referee.play(1, seed, GameStart(decks, dealer, prefix))``."""

    name: str
    rules: Ruleset             # one hand (max_hands=1)
    seed: int
    decks: list[list[int]]
    dealer: int
    prefix: list[dict[str, Any]]   # the recorded moves that lead to the decision
    state: GameState               # where the moves lead (the bot's decision, or soon after)


def stacked_deals(name: str) -> list[Stacked]:
    """The preset's stacked deals (none for a preset that has none)."""
    rules = preset(name).with_options(max_hands=1)
    return [_build(deal.name, rules, deal.deck, deal.moves, deal.until, rules.players - 1)
            for deal in (CLASSIC_DEALS if name == CLASSIC else RARE) if deal.rules == name]


def check_deals() -> list[tuple[str, Stacked]]:
    """bot check's scripted checks: each check's name and its classic deal."""
    return list(zip([d.check for d in CLASSIC_DEALS], stacked_deals(CLASSIC), strict=True))


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
