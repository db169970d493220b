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


class Known:
    """What a seat's observation names, read once per decision (the search deals many times
    from one observation): the card ids of its hand, the melds, the red threes, the pile and
    the cards known in other hands, and the rest of the pack, unseen, in the pack's order."""

    def __init__(self, obs: dict[str, Any], facts: dict[str, Any], rules: Ruleset) -> None:
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
        self.red3: tuple[tuple[int, ...], ...] = tuple(
            tuple(rest_named.pop(0)) for _ in obs["red_threes"])
        self.pile: tuple[int, ...] = tuple(rest_named.pop(0))
        hands = [list(g) for g in rest_named]  # the known cards of every other hand
        hands[seat] = hand
        self.hands: list[list[int]] = hands
        seen = {c for g in named for c in g}
        self.rest: list[int] = [c for c in full_deck(rules.decks) if c not in seen]
        self.melds: tuple[tuple[MeldState | None, ...], ...] = tuple(melds_rows)
        self.seat = seat
        self.players = players
        self.need: list[int] = [int(obs["hand_counts"][s]) - len(hands[s]) if s != seat else 0
                                for s in range(players)]


def determinize(obs: dict[str, Any], facts: dict[str, Any], rules: Ruleset,
                rng: random.Random, weights: Weights | None = None,
                known: Known | None = None) -> GameState:
    """A full game state consistent with what the seat knows; the cards it cannot see dealt at
    random among the other hands (after their known cards) and the stock: uniformly, or with
    ``weights`` from the probability proportional to the product over seats and kinds of
    exp(weights[seat][kind][count of that kind in the seat's hand]).  ``known`` is
    ``Known(obs, facts, rules)``, given by a caller that deals many times from one
    observation (it is then read once)."""
    if known is None:
        known = Known(obs, facts, rules)
    seat = known.seat
    players = known.players
    hands = [list(h) for h in known.hands]
    rest = list(known.rest)
    _shuffle(rest, rng)
    known_n = [len(h) for h in hands]
    need = known.need
    for s in range(players):
        if s != seat:
            n = need[s]
            hands[s] += rest[:n]
            rest = rest[n:]
    if weights:
        _reweigh(hands, known_n, rest, seat, weights, rng)
    stock = tuple(rest[:int(obs["stock_size"])])
    turn = obs["turn"]
    team = tuple(obs.get("meld_side", [rules.side_of(s) for s in range(players)]))
    turn_seat = int(obs["turn_seat"])
    phase = Phase(obs["phase"])
    melds = known.melds
    seat_melded = tuple(bool(obs["side_melded"][rules.side_of(s)]) for s in range(players))
    took_pile = bool(turn["took_pile"])
    return GameState(
        rules, rng.randrange(2**31), hand_no=int(obs["hand_no"]), first_hand=int(obs["hand_no"]),
        dealer=int(obs["dealer"]), phase=phase, actor=int(obs["to_act"]), turn_seat=turn_seat,
        hands=tuple(tuple(sorted(h)) for h in hands), stock=stock, pile=known.pile,
        pile_frozen=bool(obs["pile_frozen"]), melds=melds, red3=known.red3,
        scores=tuple(int(x) for x in obs["scores"]), turn_no=0, hand_turns=1,
        # Open at the start of the turn: the row holds melds, none of them made this turn.
        side_open_at_start=any(m is not None for m in melds[team[turn_seat]])
        and not int(turn["opening_total"]),
        seat_melded=seat_melded, seat_melded_at_start=seat_melded[turn_seat],
        opening_total=int(turn["opening_total"]), took_pile=took_pile,
        pile_pending=phase is Phase.PILE_OPENING,
        acted=bool(turn["opening_total"]) or took_pile, asked=bool(turn["asked"]),
        permission=turn["permission"], team=team, lone=obs.get("lone_hand"))


def _shuffle(items: list[int], rng: random.Random) -> None:
    """``rng.shuffle(items)``, written out for ``random.Random`` itself (the same calls to
    ``getrandbits``, so the same order; compiled, it runs as C, not as the interpreted
    library code)."""
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


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
