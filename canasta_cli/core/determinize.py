"""Dealing the cards a seat cannot see: a full state consistent with one seat's knowledge.

A player that searches under hidden information (``players/search.py``) plays many such deals;
each is a ``GameState`` made by its constructor from the seat's observation and the public
facts, with the randomness injected (``rng``), so the core stays pure.
"""

from __future__ import annotations

import random
from typing import Any

from .cards import full_deck, parse_card_sequence, parse_kind
from .rules import Ruleset
from .state import EMPTY_MELDS, GameState, MeldState, Phase


def determinize(obs: dict[str, Any], facts: dict[str, Any], rules: Ruleset,
                rng: random.Random) -> GameState:
    """A full game state consistent with what the seat knows; the cards it cannot see dealt at
    random among the other hands (after their known cards) and the stock."""
    seat = int(obs["seat"])
    players = int(obs["players"])
    # Every card the seat can name, each text given its own copy of the pack (as in a deck
    # file); what is left of the pack is what it cannot see.
    groups = [list(obs["hand"]), *[m["cards"] for row in obs["melds"] for m in row],
              *obs["red_threes"], list(facts["pile"]),
              *[facts["known"][s] if s != seat else [] for s in range(players)]]
    ids = iter(parse_card_sequence([c for g in groups for c in g], rules.decks))
    named = [[next(ids) for _ in g] for g in groups]
    hand, rest_named = named[0], named[1:]
    melds_rows: list[tuple[MeldState | None, ...]] = []
    for row in obs["melds"]:
        slots: list[MeldState | None] = list(EMPTY_MELDS)
        for m in row:
            cards = tuple(rest_named.pop(0))
            rank = parse_kind(m["rank"])
            owner = rules.seats_of(len(melds_rows))[0]  # a seat of the row's side
            slots[rank] = MeldState(rank, cards, int(m["wilds"]), owner, 0,
                                    bool(m.get("concealed")))
        melds_rows.append(tuple(slots))
    red3 = tuple(tuple(rest_named.pop(0)) for _ in obs["red_threes"])
    pile = tuple(rest_named.pop(0))
    hands = [list(g) for g in rest_named]  # the known cards of every other hand
    hands[seat] = hand
    seen = {c for g in named for c in g}
    rest = [c for c in full_deck(rules.decks) if c not in seen]
    rng.shuffle(rest)
    for s in range(players):
        if s != seat:
            need = int(obs["hand_counts"][s]) - len(hands[s])
            hands[s] += rest[:need]
            rest = rest[need:]
    stock = tuple(rest[:int(obs["stock_size"])])
    turn = obs["turn"]
    team = tuple(obs.get("meld_side", [rules.side_of(s) for s in range(players)]))
    turn_seat = int(obs["turn_seat"])
    phase = Phase(obs["phase"])
    melds = tuple(melds_rows)
    seat_melded = tuple(bool(obs["side_melded"][rules.side_of(s)]) for s in range(players))
    took_pile = bool(turn["took_pile"])
    return GameState(
        rules, rng.randrange(2**31), hand_no=int(obs["hand_no"]), first_hand=int(obs["hand_no"]),
        dealer=int(obs["dealer"]), phase=phase, actor=int(obs["to_act"]), turn_seat=turn_seat,
        hands=tuple(tuple(sorted(h)) for h in hands), stock=stock, pile=pile,
        pile_frozen=bool(obs["pile_frozen"]), melds=melds, red3=red3,
        scores=tuple(int(x) for x in obs["scores"]), turn_no=0, hand_turns=1,
        # Open at the start of the turn: the row holds melds, none of them made this turn.
        side_open_at_start=any(m is not None for m in melds[team[turn_seat]])
        and not int(turn["opening_total"]),
        seat_melded=seat_melded, seat_melded_at_start=seat_melded[turn_seat],
        opening_total=int(turn["opening_total"]), took_pile=took_pile,
        pile_pending=phase is Phase.PILE_OPENING,
        acted=bool(turn["opening_total"]) or took_pile, asked=bool(turn["asked"]),
        permission=turn["permission"], team=team, lone=obs.get("lone_hand"))
