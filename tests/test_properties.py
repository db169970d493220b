"""Invariants over random seeds and random legal play, for every preset."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st_

from canasta_cli.core import (
    PRESETS,
    Answer,
    Ask,
    Draw,
    EndHand,
    GameState,
    IllegalMoveError,
    Move,
    Ruleset,
    apply,
    legal_moves,
    new_game,
    observation,
)
from canasta_cli.core.events import Dealt, Drew, HandStarted
from canasta_cli.core.moves import Add, Discard, Meld, TakePile

PRESET_NAMES = list(PRESETS)
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _short(rules: Ruleset) -> Ruleset:
    return rules.with_options(max_hands=2)


def all_cards(st: GameState) -> list[int]:
    out = [c for h in st.hands for c in h] + list(st.stock) + list(st.pile)
    for row in st.melds:
        for m in row:
            if m is not None:
                out += list(m.cards)
    for r in st.red3:
        out += list(r)
    return out


def snapshot(st: GameState) -> tuple[object, ...]:
    return (st.hands, st.stock, st.pile, st.pile_frozen, st.melds, st.red3, st.scores, st.phase,
            st.actor, st.turn_seat, st.opening_total, st.permission, st.results, st.log,
            st.hand_no, st.dealer, st.from_pile, st.pile_pending, st.seat_melded)


def random_game(rules: Ruleset, seed: int,
                check: Callable[[GameState, list[Move], random.Random], object] | None = None,
                ) -> GameState:
    st = new_game(rules, seed=seed)
    rng = random.Random(seed)
    steps = 0
    while not st.is_over:
        moves = legal_moves(st)
        assert moves, f"no legal move in {st!r}"
        if check:
            check(st, moves, rng)
        st = apply(st, rng.choice(moves))
        steps += 1
        assert steps < 20_000, "game did not end"
    assert legal_moves(st) == []
    return st


@pytest.mark.parametrize("name", PRESET_NAMES)
@SETTINGS
@given(seed=st_.integers(0, 10**9))
def test_cards_conserved_and_moves_never_empty_until_the_end(name: str, seed: int) -> None:
    rules = _short(PRESETS[name])
    size = rules.deck_size

    def check(st: GameState, moves: list[Move], rng: random.Random) -> None:
        cards = all_cards(st)
        assert len(cards) == size and len(set(cards)) == size

    random_game(rules, seed, check)


@pytest.mark.parametrize("name", PRESET_NAMES)
@SETTINGS
@given(seed=st_.integers(0, 10**9))
def test_apply_never_changes_its_input_and_refuses_unlisted_moves(name: str, seed: int) -> None:
    rules = _short(PRESETS[name])

    def check(st: GameState, moves: list[Move], rng: random.Random) -> None:
        before = snapshot(st)
        apply(st, rng.choice(moves))
        assert snapshot(st) == before
        for bad in _unlisted(st, moves, rng):
            with pytest.raises(IllegalMoveError) as err:
                apply(st, bad)
            assert err.value.reason and snapshot(st) == before

    random_game(rules, seed, check)


def _unlisted(st: GameState, moves: list[Move], rng: random.Random) -> list[Move]:
    pool: list[Move] = [Draw(), Ask(), Answer(True), Answer(False), EndHand()]
    r = rng.randrange(11)
    pool += [Discard(rng.choice([*range(11), 11, 12, 13])), Add(r, rng.choice([r, 11, 12])),
             Meld(r, rng.randrange(0, 5), rng.randrange(0, 3), rng.randrange(0, 2)),
             Meld(13, rng.randrange(1, 5)), TakePile(r, rng.randrange(0, 4), rng.randrange(0, 2))]
    return [m for m in pool if m not in moves]


@pytest.mark.parametrize("name", PRESET_NAMES)
@settings(max_examples=5, deadline=None)
@given(seed=st_.integers(0, 10**9))
def test_same_seed_same_game(name: str, seed: int) -> None:
    rules = _short(PRESETS[name])
    a = random_game(rules, seed)
    b = random_game(rules, seed)
    assert [e.full() for e in a.events()] == [e.full() for e in b.events()]
    assert a.scores == b.scores


@pytest.mark.parametrize("name", PRESET_NAMES)
@SETTINGS
@given(seed=st_.integers(0, 10**9), stop=st_.integers(0, 400))
def test_redealing_unseen_cards_leaves_the_observation_unchanged(name: str, seed: int,
                                                                 stop: int) -> None:
    rules = _short(PRESETS[name])
    st = new_game(rules, seed=seed)
    rng = random.Random(seed)
    for _ in range(stop):
        if st.is_over:
            break
        st = apply(st, rng.choice(legal_moves(st)))
    for seat in range(rules.players):
        before = json.dumps(observation(st, seat), sort_keys=True)
        after = json.dumps(observation(_redeal(st, seat, rng), seat), sort_keys=True)
        assert before == after


def _redeal(st: GameState, seat: int, rng: random.Random) -> GameState:
    """The same state with every card ``seat`` cannot see shuffled among the places it cannot
    see, and the hidden parts of the log (deck, others' deals and draws) scrambled too."""
    hidden = [c for s, h in enumerate(st.hands) if s != seat for c in h] + list(st.stock)
    rng.shuffle(hidden)
    hands = list(st.hands)
    pos = 0
    for s, h in enumerate(st.hands):
        if s != seat:
            hands[s] = tuple(sorted(hidden[pos:pos + len(h)]))
            pos += len(h)
    everything = list(range(st.rules.deck_size))
    node, events = st.log, []
    while node is not None:
        events.append(node[1])
        node = node[0]
    log: tuple[Any, ...] | None = None
    for e in reversed(events):
        if isinstance(e, HandStarted):
            deck = list(e.deck)
            rng.shuffle(deck)
            e = HandStarted(e.hand_no, e.dealer, tuple(deck), e.minimums)
        elif isinstance(e, Dealt) and e.seat != seat:
            e = Dealt(e.seat, tuple(rng.sample(everything, len(e.cards))))
        elif isinstance(e, Drew) and e.seat != seat and not _public_draw(events, e):
            e = Drew(e.seat, rng.choice(everything), e.replacement)
        log = (log, e)
    return st.replace(hands=tuple(hands), stock=tuple(hidden[pos:]), log=log)


def _public_draw(events: list[object], e: Drew) -> bool:
    """A drawn red three is laid face up at once, so that draw is public anyway."""
    from canasta_cli.core.cards import KIND_OF, RED3
    return KIND_OF[e.card] == RED3


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_game_ends_within_the_hand_cap(name: str) -> None:
    rules = PRESETS[name].with_options(target=10**6, max_hands=3)
    st = random_game(rules, 99)
    assert st.game_end_reason == "hand_limit" and len(st.results) == 3


def test_move_lists_stay_small() -> None:
    biggest: Counter[str] = Counter()
    for name in PRESET_NAMES:
        rules = _short(PRESETS[name])
        for seed in range(4):
            def check(st: GameState, moves: list[Move], rng: random.Random,
                      name: str = name) -> None:
                biggest[name] = max(biggest[name], len(moves))
            random_game(rules, seed, check)
    assert max(biggest.values()) < 500, biggest


def test_every_game_ends_within_the_turn_cap() -> None:
    rules = PRESETS["classic"].with_options(max_turns=30)
    st = random_game(rules, 5)
    assert st.game_end_reason == "turn_limit" and st.turn_no == 30
    assert st.results[-1].reason == "turn_limit"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st_.data(), seed=st_.integers(0, 10**9))
def test_any_combination_of_rule_options_keeps_every_invariant(data: st_.DataObject,
                                                               seed: int) -> None:
    """Options interact (six-player black threes, draw 2 with a last red three...): every
    combination keeps the cards, the move lists and the move oracle right."""
    from oracle import _check
    base = data.draw(st_.sampled_from(list(PRESETS.values())), label="preset")
    flags = ("buried_red3_freezes", "buried_black3_freezes", "black3_discard_freezes",
             "wild_le_natural", "concealed_forbids_pile", "concealed_waives_minimum",
             "one_card_pile_rule", "permission_enabled")
    opts: dict[str, object] = {f: data.draw(st_.booleans(), label=f) for f in flags}
    opts.update(
        upcard_cover=data.draw(st_.sampled_from(["any_three_or_wild", "red_three_or_wild"])),
        initial_red3_timing=data.draw(st_.sampled_from(["after_deal", "first_turn"])),
        last_card_red3=data.draw(st_.sampled_from(["end_now", "meld_no_discard"])),
        exhausted_forced_take=data.draw(st_.sampled_from(["matches_meld", "any_legal"])),
        tie_policy=data.draw(st_.sampled_from(["play_on", "draw"])),
        canastas_to_go_out=data.draw(st_.integers(1, 2)),
        draw_count=data.draw(st_.integers(1, 2)),
        max_wilds_per_meld=data.draw(st_.integers(2, 3)),
        max_hands=1)
    rules = base.with_options(**opts)

    def check(st: GameState, moves: list[Move], rng: random.Random) -> None:
        cards = all_cards(st)
        assert len(cards) == rules.deck_size == len(set(cards))
        if rng.random() < 0.2:
            _check(st)

    random_game(rules, seed, check)
