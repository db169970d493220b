"""The PettingZoo environment: PettingZoo's own checks, the mask against legal_moves, the
action table both ways, both observation encoders, no hidden information, rewards, seeds."""

from __future__ import annotations

import random
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from canasta_cli.core import (  # noqa: E402
    PRESETS,
    GameState,  # noqa: E402
    apply,
    format_move,
    legal_moves,
    new_game,
    observation,
    parse_move,
)
from canasta_cli.core.cards import KIND_OF, N_KINDS  # noqa: E402
from canasta_cli.core.facts import public_facts  # noqa: E402
from canasta_cli.core.observation import history_views  # noqa: E402
from canasta_cli.env import IllegalActionError, action_table, aec_env  # noqa: E402
from canasta_cli.env.aec import side_rewards  # noqa: E402
from canasta_cli.env.observe import Encoder  # noqa: E402
from canasta_cli.env.public import PublicTracker, face_of_text  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NAMES = list(PRESETS)
# One-hand games keep the random games short; the whole-game paths run in api_test.
SHORT = {"max_hands": 1}


def _quiet_api_test(env: object, cycles: int) -> None:
    with warnings.catch_warnings():
        # PettingZoo warns about every dict observation (it wants a bare Box): expected with
        # an action mask, as in its own classic games.
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=cycles)


@pytest.mark.parametrize("name", NAMES)
def test_pettingzoo_api_and_seed_tests(name: str) -> None:
    _quiet_api_test(aec_env(name), 1000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: aec_env(name), num_cycles=500)


def _play(env: object, seed: int, rng: random.Random, check: object = None) -> list[int]:
    """Masked random play to the end; ``check(env, obs)`` at every live step."""
    env.reset(seed=seed)  # type: ignore[attr-defined]
    actions = []
    for agent in env.agent_iter():  # type: ignore[attr-defined]
        obs, _, term, trunc, _ = env.last()  # type: ignore[attr-defined]
        if term or trunc:
            env.step(None)  # type: ignore[attr-defined]
            continue
        if check is not None:
            check(env, agent, obs)  # type: ignore[operator]
        legal = np.flatnonzero(obs["action_mask"])
        a = int(legal[rng.randrange(len(legal))])
        actions.append(a)
        env.step(a)  # type: ignore[attr-defined]
    return actions


@pytest.mark.parametrize("name", NAMES)
def test_mask_is_legal_moves_and_the_table_goes_both_ways(name: str) -> None:
    env = aec_env(name, **SHORT)
    table = env.table
    seen: set[int] = set()

    def check(env: object, agent: str, obs: dict[str, object]) -> None:
        state = env.game_state  # type: ignore[attr-defined]
        assert agent == f"seat_{state.actor}"
        moves = legal_moves(state)
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (table.size,)  # type: ignore[attr-defined]
        assert sorted(np.flatnonzero(mask).tolist()) == sorted(table.indices(moves))
        assert env.legal_actions() == table.indices(moves)  # type: ignore[attr-defined]
        top = KIND_OF[state.pile[-1]] if state.pile else None
        for m in moves:
            i = table.index(m)
            assert table.move(i) == m
            assert table.index(parse_move(format_move(m), top)) == i  # through the notation
            seen.add(i)
        for other in env.possible_agents:  # type: ignore[attr-defined]
            if other != agent:
                assert not env.observe(other)["action_mask"].any()  # type: ignore[attr-defined]

    for seed in range(2):
        _play(env, seed, random.Random(seed), check)
    assert len(seen) > 50


def test_action_table_is_fixed_and_documented() -> None:
    doc = (ROOT / "docs" / "ML.md").read_text(encoding="utf-8")
    for name, rules in PRESETS.items():
        table = action_table(rules)
        size = aec_env(name).encoder.size
        assert re.search(rf"\| {re.escape(name)} \| {table.size} \| {size} \|", doc), name
        assert len(set(table.moves)) == table.size
        assert [format_move(m) for m in table.moves[:5]] == ["draw", "end", "ask", "yes", "no"]
        assert action_table(rules.with_options(target=3000)) is table
    with pytest.raises(ValueError, match="outside"):
        action_table(PRESETS["classic"]).move(10**6)


def test_action_table_takes_a_preset_name_as_every_other_api_does() -> None:
    from canasta_cli.core import RulesError
    for name, rules in PRESETS.items():
        assert action_table(name) is action_table(rules)
    with pytest.raises(RulesError, match="unknown preset"):
        action_table("no-such-preset")


def test_every_field_is_documented() -> None:
    doc = (ROOT / "docs" / "ML.md").read_text(encoding="utf-8")
    for rules in PRESETS.values():
        for field in Encoder(rules).layout.fields:
            assert f"| `{field.name}` |" in doc, field.name


def _new_events(state: object, since: object) -> list[object]:
    out = []
    node = state.log  # type: ignore[attr-defined]
    while node is not None and node is not since:
        out.append(node[1])
        node = node[0]
    return out[::-1]


def _kinds(cards: list[str]) -> list[int]:
    counts = [0] * N_KINDS
    for c in cards:
        counts[KIND_OF[face_of_text(c)]] += 1
    return counts


@pytest.mark.parametrize("name", NAMES)
def test_encoders_agree_and_public_facts_match_the_core(name: str) -> None:
    """At every step, for every seat: the fast vector (from the state) equals the vector
    built from that seat's protocol observation and event views alone; the tracker's facts
    equal ``core.facts.public_facts``."""
    rules = PRESETS[name].with_options(**SHORT)
    enc = Encoder(rules)
    rng = random.Random(7)
    for seed in range(2):
        state = new_game(rules, seed=seed)
        fast = enc.tracker()
        views = [enc.tracker() for _ in range(rules.players)]
        last = None
        step = 0
        while True:
            for event in _new_events(state, last):
                fast.feed(event)  # type: ignore[arg-type]
                for s in range(rules.players):
                    views[s].feed_view(event.view(s))  # type: ignore[attr-defined]
            last = state.log
            if state.is_over:
                break
            for s in range(rules.players):
                a = enc.from_state(state, s, fast).tolist()
                b = enc.from_view(observation(state, s, history=False), views[s])
                assert a == b, (name, seed, step, s)
            if step % 25 == 0:
                s = state.actor
                obs = observation(state, s, history=False)
                facts = public_facts(history_views(state, s), obs, rules.decks)
                assert _kinds(facts["pile"]) == list(fast.pile_counts)
                for q in range(rules.players):
                    assert _kinds(facts["discards"][q]) == fast.discards_of(q)
                    assert _kinds(facts["known"][q]) == fast.known_of(q)
                unseen = [0] * N_KINDS
                for text, n in facts["unseen"].items():
                    unseen[KIND_OF[face_of_text(text)]] += n
                assert enc.from_state(state, s, fast)[enc.layout.slice("unseen")].tolist() \
                    == unseen
            moves = legal_moves(state)
            state = apply(state, moves[rng.randrange(len(moves))])
            step += 1


def _redeal_hidden(state: GameState, seat: int, rng: random.Random) -> GameState:
    """A copy of ``state`` with the cards ``seat`` cannot see (the other hands and the
    stock) shuffled among those places, each keeping its size."""
    others = [s for s in range(len(state.hands)) if s != seat]
    pool = [c for s in others for c in state.hands[s]] + list(state.stock)
    rng.shuffle(pool)
    hands = list(state.hands)
    at = 0
    for s in others:
        n = len(hands[s])
        hands[s] = tuple(sorted(pool[at:at + n]))
        at += n
    return state.replace(hands=tuple(hands), stock=tuple(pool[at:]))


@pytest.mark.parametrize("name", ["classic", "two-player", "three-player-cutthroat",
                                  "six-player"])
def test_redealing_hidden_cards_leaves_the_observation_unchanged(name: str) -> None:
    env = aec_env(name, **SHORT)
    rng = random.Random(3)
    checked = 0

    def check(env: Any, agent: str, obs: dict[str, object]) -> None:
        nonlocal checked
        state: GameState = env.game_state
        for seat in range(len(state.hands)):
            before = env.encoder.from_state(state, seat, env.tracker)
            other = _redeal_hidden(state, seat, rng)
            after = env.encoder.from_state(other, seat, env.tracker)
            assert before.tolist() == after.tolist()
            if seat == state.actor:
                assert env.table.indices(legal_moves(state)) == \
                    env.table.indices(legal_moves(other))
        checked += 1

    _play(env, 11, random.Random(11), check)
    assert checked > 20


@pytest.mark.parametrize("name", ["classic", "three-player", "three-player-cutthroat"])
def test_same_games_as_the_engine_and_zero_sum_hand_rewards(name: str) -> None:
    env = aec_env(name, max_hands=3)
    actions = _play(env, 42, random.Random(5))
    state = new_game(env.rules, seed=42)
    for a in actions:
        state = apply(state, env.table.moves[a])
    final = env.game_state
    assert state.is_over and final.is_over
    assert state.scores == final.scores and state.hands == final.hands
    assert [e.full() for e in state.events()] == [e.full() for e in final.events()]
    # Rewards: replay and sum each agent's rewards; they add up to its side's share.
    env.reset(seed=42)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    it = iter(actions)
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        env.step(None if term or trunc else next(it))
    per_side = [0.0] * env.rules.sides
    for result in final.results:
        for s, r in enumerate(side_rewards(result.totals)):
            per_side[s] += r
    for i, agent in enumerate(env.possible_agents):
        assert totals[agent] == pytest.approx(per_side[env.rules.side_of(i)])
    assert sum(per_side) == pytest.approx(0.0)


def test_game_reward_and_move_cap() -> None:
    actions = _play(aec_env("two-player", reward="game", max_hands=1), 3, random.Random(3))
    env = aec_env("two-player", reward="game", max_hands=1)
    env.reset(seed=3)
    got = {}
    it = iter(actions)
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        if term or trunc:
            got[agent] = reward
            env.step(None)
        else:
            assert reward == 0.0
            env.step(next(it))
    winner = env.game_state.winner
    assert winner is not None
    assert got == {f"seat_{winner}": 1.0, f"seat_{1 - winner}": -1.0}

    capped = aec_env("classic", max_moves=7)
    capped.reset(seed=1)
    steps = 0
    dead = []
    for agent in capped.agent_iter():
        _, _, term, trunc, _ = capped.last()
        if term or trunc:
            assert trunc and not term
            dead.append(agent)
            capped.step(None)
            continue
        capped.step(capped.legal_actions()[0])
        steps += 1
    assert steps == 7 and sorted(dead) == sorted(capped.possible_agents)
    assert capped.agents == []


def test_illegal_actions_are_refused_with_the_reason() -> None:
    env = aec_env("classic")
    env.reset(seed=7)
    legal = set(env.legal_actions())
    illegal = next(i for i in range(env.table.size) if i not in legal)
    with pytest.raises(IllegalActionError, match="not legal for seat_"):
        env.step(illegal)
    for bad in (-1, env.table.size, 2.5, "draw", True, None):
        with pytest.raises(IllegalActionError):
            env.step(bad)
    env.step(np.int64(sorted(legal)[0]))  # numpy integers are actions too


def test_render_and_reproducible_resets() -> None:
    env = aec_env("classic", render_mode="ansi")
    env.reset(seed=5)
    text = env.render()
    assert "Your hand" in text and "seat_" in text
    first = env.observe(env.agent_selection)["observation"].tolist()
    env.reset()
    env.reset(seed=5)
    assert env.observe(env.agent_selection)["observation"].tolist() == first
    a, b = aec_env("classic"), aec_env("classic")
    a.reset(seed=9)
    b.reset(seed=9)
    a.reset()
    b.reset()
    assert a.game_state.seed == b.game_state.seed
    with pytest.raises(ValueError, match="render_mode"):
        aec_env("classic", render_mode="rgb")
    with pytest.raises(ValueError, match="reward"):
        aec_env("classic", reward="points")


def test_tracker_copy_is_independent() -> None:
    t = PublicTracker(4, 2)
    t.upcard(face_of_text("Kh"))
    c = t.copy()
    c.discard(1, face_of_text("9s"))
    assert t.discards_of(1) == [0] * N_KINDS and sum(c.discards_of(1)) == 1


@pytest.mark.parametrize("players, decks", [(4, 2), (6, 3)])
def test_tracker_copy_keeps_the_pack_across_a_new_hand(players: int, decks: int) -> None:
    """A copy resets to its own pack (three decks for six players), not to a default one."""
    t = PublicTracker(players, decks)
    c = t.copy()
    c.reset()
    assert c.decks == decks and bytes(c.hidden) == bytes(PublicTracker(players, decks).hidden)
    assert sum(c.hidden) == 54 * decks


@pytest.mark.parametrize("players", [2, 4, 6])
def test_tracker_facts_are_each_seats_rotation_and_a_copy_owns_them(players: int) -> None:
    """Each seat's facts (the vector's known and discards fields) follow the tracker's counts
    as that seat sees them; a copy's facts follow the copy's counts only."""
    t = PublicTracker(players, 2)
    t.picked_up(1, (0, 0, 13))  # seat 1 holds three known cards: two of face 0, one of 13
    t.discard(players - 1, 5)
    c = t.copy()
    c.discard(0, 7)
    k = 15

    def want(tr: PublicTracker, seat: int) -> bytes:
        known = b"".join(bytes(tr.known_of((seat + i) % players)) for i in range(1, players))
        discards = b"".join(bytes(tr.discards_of((seat + i) % players)) for i in range(players))
        return known + discards

    for seat in range(players):
        assert t.facts(seat) == want(t, seat) and c.facts(seat) == want(c, seat)
        assert len(t.facts(seat)) == (2 * players - 1) * k
    assert sum(t.discards) == 1 and sum(c.discards) == 2  # the copy's discard is its own
    assert t.facts(0) != c.facts(0)
    c.reset()
    assert sum(t.discards) == 1 and t.facts(0) == want(t, 0)


def test_a_deep_copy_of_the_environment_plays_on_alike_and_apart() -> None:
    """``copy.deepcopy(env)`` mid-game (a lookahead's usual tool) gives an environment that
    observes and plays exactly as the original would, without touching it; the tracker also
    survives pickling with the same facts."""
    import copy
    import pickle
    env = aec_env("six-player-pairs")
    env.reset(seed=8)
    rng = random.Random(8)

    def play(e: Any, steps: int, r: random.Random) -> list[list[float]]:
        seen = []
        for _ in range(steps):
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                break
            seen.append(obs["observation"].tolist())
            e.step(int(r.choice(np.flatnonzero(obs["action_mask"]).tolist())))
        return seen

    play(env, 150, rng)
    twin = copy.deepcopy(env)
    before = env.last()[0]["observation"].tolist()
    assert twin.last()[0]["observation"].tolist() == before
    ours = play(twin, 150, random.Random(1))
    assert env.last()[0]["observation"].tolist() == before  # the original did not move
    assert play(env, 150, random.Random(1)) == ours
    back = pickle.loads(pickle.dumps(env.tracker))
    assert all(back.facts(s) == env.tracker.facts(s) for s in range(6))
    assert back.hidden == env.tracker.hidden and back.known_ints == env.tracker.known_ints
