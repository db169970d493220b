"""Public facts: what a seat knows from watching the table, without bookkeeping of its own.

Computed only from the events as that seat saw them (``Event.view``) and its own observation,
so it can hold nothing the seat may not know.  The bot kit (bots/canasta_kit.py) tracks the
same facts from the events it receives; the test suite checks that both agree.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .cards import TEXT_OF, full_deck


def _take(counter: Counter[str], cards: list[str]) -> None:
    for c in cards:
        if counter[c] > 0:
            counter[c] -= 1
            if not counter[c]:
                del counter[c]


def public_facts(history: list[dict[str, Any]], obs: dict[str, Any],
                 decks: int) -> dict[str, Any]:
    """``history``: the seat's event views of the game so far; ``obs`` its observation.

    * ``discards[s]``: the cards seat s discarded this hand, in order;
    * ``known[s]``: cards certainly in seat s's hand because it picked them up with the pile
      and none of that kind has left its hand since (a card of the same kind played since
      might have been that one);
    * ``pile``: the discard pile, bottom to top (every card in it was seen face up);
    * ``unseen``: for each card, how many copies this seat has not seen: the pack less its own
      hand, the melds, the red threes, the pile and the cards known in other hands.
    """
    players = int(obs["players"])
    start = 0
    for i in range(len(history) - 1, -1, -1):
        if history[i].get("type") == "hand_started":
            start = i
            break
    events = history[start:]
    pile: list[str] = []
    discards: list[list[str]] = [[] for _ in range(players)]
    known: list[Counter[str]] = [Counter() for _ in range(players)]
    for i, e in enumerate(events):
        kind = e.get("type")
        seat: int = e["seat"] if isinstance(e.get("seat"), int) else 0
        if kind == "upcard":
            pile.append(e["card"])
        elif kind == "discard":
            pile.append(e["card"])
            discards[seat].append(e["card"])
            _take(known[seat], [e["card"]])
        elif kind == "took_pile":
            if pile:
                pile.pop()  # the top card went onto a meld
            _take(known[seat], list(e["with"]))
        elif kind == "picked_up":
            known[seat].update(e["cards"])
            pile = []
        elif kind == "red_three" and e.get("source") == "pile":
            _take(known[seat], [e["card"]])
        elif kind == "meld":
            after = events[i + 1] if i + 1 < len(events) else {}
            if not (after.get("type") == "took_pile" and after.get("seat") == seat):
                _take(known[seat], list(e["cards"]))
        elif kind == "add":
            _take(known[seat], [e["card"]])
    unseen: Counter[str] = Counter(TEXT_OF[c] for c in full_deck(decks))
    seen = list(obs["hand"]) + list(pile)
    seen += [c for row in obs["melds"] for m in row for c in m["cards"]]
    seen += [c for row in obs["red_threes"] for c in row]
    seen += [c for s in range(players) if s != obs["seat"] for c in known[s].elements()]
    _take(unseen, seen)
    return {"discards": discards, "known": [sorted(k.elements()) for k in known],
            "pile": pile, "unseen": dict(sorted(unseen.items()))}


def move_facts(state: Any, moves: list[Any]) -> list[dict[str, Any]]:
    """Per listed move (canasta/1.1 ``annotations``): ``points`` put on the table (for a pile
    take, the top card with the cards melded with it), whether it completes a ``canasta``,
    ``goes_out``, ``freezes_pile`` (a discard that freezes it), and ``cards_left`` in the
    hand after it (after the pick-up, when the pile joins the hand at once).  Exact: each
    move is played on a copy of the state."""
    from . import events as ev
    from .cards import BLACK3, DEUCE, JOKER, KIND_OF, KIND_VALUE
    from .engine import apply
    from .moves import Add, Discard, Meld, TakePile
    seat = state.turn_seat
    row = state.melds[state.meld_side(seat)]
    out = []
    for move in moves:
        points = 0
        grows = 0
        rank = None
        if isinstance(move, (Meld, TakePile)):
            rank = move.rank
            points = (KIND_VALUE[move.rank] * move.naturals + 20 * move.deuces
                      + 50 * move.jokers)
            grows = move.naturals + move.deuces + move.jokers
            if isinstance(move, TakePile):
                points += KIND_VALUE[KIND_OF[state.pile[-1]]]
                grows += 1
        elif isinstance(move, Add):
            rank = move.rank
            points = KIND_VALUE[move.kind]
            grows = 1
        before = len(row[rank].cards) if rank is not None and row[rank] is not None else 0
        canasta = rank is not None and rank != BLACK3 and before < 7 <= before + grows
        freezes = isinstance(move, Discard) and (
            move.kind in (DEUCE, JOKER)
            or (move.kind == BLACK3 and state.rules.black3_discard_freezes))
        after = apply(state, move)
        went_out = False
        node = after.log
        while node is not None and node is not state.log:
            if isinstance(node[1], ev.WentOut):
                went_out = True
            node = node[0]
        same_hand = after.hand_no == state.hand_no and not after.is_over
        left = 0 if went_out else (len(after.hands[seat]) if same_hand
                                   else _left_at_end(after, state, seat))
        out.append({"points": points, "canasta": canasta, "goes_out": went_out,
                    "freezes_pile": bool(freezes) and not went_out, "cards_left": left})
    return out


def _left_at_end(after: Any, before: Any, seat: int) -> int:
    """Cards ``seat`` held when the hand ended (the move ended it without going out)."""
    from . import events as ev
    node = after.log
    while node is not None and node is not before.log:
        if isinstance(node[1], ev.HandEnded):
            return len(node[1].hands[seat])
        node = node[0]
    return len(before.hands[seat])
