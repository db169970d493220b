"""Inference over the cards a seat cannot see, from the others' visible play.

A model of how the built-in players play (the fast policy: take a pile of three or more when
the hand allows it, meld three naturals and add naturals once the side is open, discard
singles before pairs) makes some hands unlikely given what each other seat did this hand:

* it drew from the stock when a pile of three or more was topped by a natural rank it could
  take with two naturals of that rank: it probably did not hold two (less sure when its side
  had not opened, or after cards drawn since);
* it discarded a rank: it probably held no more of it (softer after each card drawn since);
* it ended its last turn, its side open, without melding: it probably holds no three naturals
  of a rank, nor a natural of a rank its side has melded (its hand has not changed since).

Each clue is a factor on the count of a rank in that seat's hand; ``core.determinize`` deals
the hidden cards from the product of these factors (a Metropolis chain from a uniform deal).
The model reads only the seat's event views and observation, like the search.
"""

from __future__ import annotations

import math
from typing import Any

from ..core.cards import BLACK3, DEUCE, JOKER, N_KINDS, RED3, parse_kind
from ..core.rules import Ruleset

# How strongly each clue speaks (the chance the model plays against it), checked with
# ``canasta bench inference`` on games of built-in players.
REFUSE_OPEN = 0.08  # drew from the stock though two naturals would take the pile
REFUSE_CLOSED = 0.5  # the same, its side not yet open (the minimum may have stopped it)
DISCARD_PAIR = 1.0  # log-factor per further copy held of a discarded rank
NO_MELD = 0.06  # three naturals of a rank kept unmelded at the end of a turn, side open
NO_ADD = 0.1  # a natural of a rank its side has melded kept at the end of a turn
DRAW_DECAY = 0.75  # a clue about an earlier hand keeps this much per card drawn since

Factors = dict[int, list[list[float]]]  # seat -> kind -> log factor by count held


def _kind(card: str) -> int:
    try:
        return parse_kind(card)
    except ValueError:
        return RED3  # never a clue


def infer_factors(history: list[dict[str, Any]], obs: dict[str, Any],
                  rules: Ruleset) -> Factors:
    """Log factors on each other seat's count of each kind, from this hand's events."""
    players = int(obs["players"])
    me = int(obs["seat"])
    team = list(obs.get("meld_side", [rules.side_of(s) for s in range(players)]))
    cap = 4 * rules.decks + 2
    start = 0
    for i in range(len(history) - 1, -1, -1):
        if history[i].get("type") == "hand_started":
            start = i
            break
    factors: Factors = {s: [[0.0] * (cap + 1) for _ in range(N_KINDS)]
                        for s in range(players) if s != me}
    pile: list[int] = []
    opened = [False] * max(team + [0]) + [False]
    melded: list[set[int]] = [set() for _ in opened]
    drawn = [0] * players  # cards drawn from the stock since each clue, per seat
    clues: list[tuple[int, int, str, int]] = []  # (seat, kind, what, drawn then)
    last_turn: dict[int, tuple[bool, frozenset[int]]] = {}  # at its last discard
    for e in history[start:]:
        kind = e.get("type")
        seat = e.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < players:
            seat = -1
        if kind in ("upcard", "discard"):
            card = _kind(str(e.get("card", "")))
            pile.append(card)
            if kind == "discard" and seat >= 0 and seat != me:
                if card not in (DEUCE, JOKER, BLACK3, RED3):
                    clues.append((seat, card, "discard", drawn[seat]))
                row = team[seat]
                last_turn[seat] = (opened[row], frozenset(melded[row]))
        elif kind == "drew" and seat >= 0:
            if not e.get("replacement") and seat != me and len(pile) >= 3:
                top = pile[-1]
                if top not in (DEUCE, JOKER, BLACK3, RED3) and top not in melded[team[seat]]:
                    what = "refuse" if opened[team[seat]] else "refuse-closed"
                    clues.append((seat, top, what, drawn[seat]))
            drawn[seat] += 1
        elif kind == "picked_up" and seat >= 0:
            pile = []
            clues = [c for c in clues if c[0] != seat]  # its hand changed wholesale
        elif kind == "meld" and seat >= 0:
            row = team[seat]
            opened[row] = True
            melded[row].add(_kind(str(e.get("rank", ""))))
    hand_counts = obs.get("hand_counts", [])
    for seat, kind, what, then in clues:
        decay = DRAW_DECAY ** (drawn[seat] - then)
        row = factors[seat][kind]
        if what == "discard":
            for c in range(cap + 1):
                row[c] -= DISCARD_PAIR * decay * c
        else:
            eps = REFUSE_OPEN if what == "refuse" else REFUSE_CLOSED
            penalty = math.log(1 - (1 - eps) * decay)
            for c in range(2, cap + 1):
                row[c] += penalty
    for seat, (was_open, ranks) in last_turn.items():
        size = int(hand_counts[seat]) if seat < len(hand_counts) else 0
        if not was_open or size < 4:
            continue  # going out rules may have kept cards back
        for kind in range(N_KINDS):
            if kind in (DEUCE, JOKER, BLACK3, RED3):
                continue
            row = factors[seat][kind]
            if kind in ranks:
                for c in range(1, cap + 1):
                    row[c] += math.log(NO_ADD)
            else:
                for c in range(3, cap + 1):
                    row[c] += math.log(NO_MELD)
    return factors
