"""Dealing the cards a seat cannot see: a full state consistent with one seat's knowledge.

A player that searches under hidden information (``players/search.py``) plays many such deals;
each is a ``GameState`` made by its constructor from the seat's observation and the public
facts, with the randomness injected (``rng``), so the core stays pure.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from .cards import KIND_OF, full_deck, parse_card_sequence, parse_kind
from .rules import Ruleset
from .state import EMPTY_MELDS, GameState, MeldState, Phase

Weights = Mapping[int, Sequence[Sequence[float]]]  # seat -> kind -> log weight by count held


def determinize(obs: dict[str, Any], facts: dict[str, Any], rules: Ruleset,
                rng: random.Random, weights: Weights | None = None) -> GameState:
    """A full game state consistent with what the seat knows; the cards it cannot see dealt at
    random among the other hands (after their known cards) and the stock: uniformly, or with
    ``weights`` from the probability proportional to the product over seats and kinds of
    exp(weights[seat][kind][count of that kind in the seat's hand])."""
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
    known = [len(h) for h in hands]
    for s in range(players):
        if s != seat:
            need = int(obs["hand_counts"][s]) - len(hands[s])
            hands[s] += rest[:need]
            rest = rest[need:]
    if weights:
        _reweigh(hands, known, rest, seat, weights, rng)
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


def _reweigh(hands: list[list[int]], known: list[int], rest: list[int], seat: int,
             weights: Weights, rng: random.Random) -> None:
    """A Metropolis chain over swaps of two hidden cards (a symmetric proposal, so the
    uniform deal it starts from moves towards the weighted one), in place."""
    where: list[tuple[int, int]] = []  # (seat or -1 for the stock, position) of hidden cards
    counts: dict[int, list[int]] = {}
    for s, h in enumerate(hands):
        if s == seat:
            continue
        cnt = [0] * 16
        for c in h:
            cnt[KIND_OF[c]] += 1
        counts[s] = cnt
        where += [(s, i) for i in range(known[s], len(h))]
    hidden_hands = len(where)
    if not hidden_hands:
        return
    where += [(-1, i) for i in range(len(rest))]
    n = len(where)

    def gain(s: int, take: int, give: int) -> float:
        """Log weight change of seat s's hand when a card of kind ``take`` leaves it and
        one of kind ``give`` comes in."""
        w = weights.get(s)
        if w is None or s < 0 or take == give:
            return 0.0
        cnt = counts[s]
        return (w[take][cnt[take] - 1] - w[take][cnt[take]]
                + w[give][cnt[give] + 1] - w[give][cnt[give]])

    for _ in range(12 * hidden_hands):
        a, b = int(rng.random() * n), int(rng.random() * n)
        (sa, ia), (sb, ib) = where[a], where[b]
        if sa == sb:
            continue
        ca = hands[sa][ia] if sa >= 0 else rest[ia]
        cb = hands[sb][ib] if sb >= 0 else rest[ib]
        ka, kb = KIND_OF[ca], KIND_OF[cb]
        if ka == kb:
            continue
        delta = gain(sa, ka, kb) + gain(sb, kb, ka)
        if delta < 0 and rng.random() >= math.exp(delta):
            continue
        if sa >= 0:
            hands[sa][ia] = cb
            counts[sa][ka] -= 1
            counts[sa][kb] += 1
        else:
            rest[ia] = cb
        if sb >= 0:
            hands[sb][ib] = ca
            counts[sb][kb] -= 1
            counts[sb][ka] += 1
        else:
            rest[ib] = ca
