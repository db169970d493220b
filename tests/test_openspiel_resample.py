"""``python_canasta`` as an imperfect-information game: ``resample_from_infostate`` gives states
the player cannot tell from the real one (and only those), so OpenSpiel's ``ISMCTSBot`` plays a
whole game; ``ResamplingMCTSBot`` searches resampled worlds only; the observation types other
than the player's own view show what they say and nothing more.  Skipped where open_spiel is
not installed."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pyspiel = pytest.importorskip("pyspiel")

import canasta_cli.env.openspiel as osp  # noqa: E402 - registers the game
from canasta_cli.core.cards import TEXT_OF  # noqa: E402


def _chance(state: Any, rng: Any) -> None:
    outcomes = state.chance_outcomes()
    state.apply_action(outcomes[rng.randint(len(outcomes))][0])


def _random_states(game: Any, seed: int, every: int) -> Any:
    """The decision states of a random game, every ``every``-th one (the same object, played on
    after each yield)."""
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    n = 0
    while not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
            continue
        n += 1
        if n % every == 0:
            yield state
        legal = state.legal_actions()
        state.apply_action(legal[rng.randint(len(legal))])


def _hidden(state: Any, player: int) -> list[list[int]]:
    engine = state.run.engine
    seen = osp._seen_by(engine.events(), player)
    return [sorted(c for c in hand if c not in seen) for hand in engine.hands]


def _check_alike(state: Any, new: Any, player: int) -> None:
    assert new.information_state_string(player) == state.information_state_string(player)
    assert new.observation_string(player) == state.observation_string(player)
    assert new.observation_tensor(player) == state.observation_tensor(player)
    assert new.information_state_tensor(player) == state.information_state_tensor(player)
    assert new.current_player() == state.current_player()
    if player == state.current_player():
        assert new.legal_actions() == state.legal_actions()
    assert new.run.engine.hands[player] == state.run.engine.hands[player]
    # The new state's own history replays to it: chance outcomes and all.
    again = new.get_game().new_initial_state()
    for action in new.history():
        again.apply_action(action)
    assert str(again) == str(new)
    for p in range(new.num_players()):
        assert again.information_state_string(p) == new.information_state_string(p)


@pytest.mark.parametrize("rules, options", [("classic", ""), ("two-player", ""),
                                            ("three-player-cutthroat", ""),
                                            ("classic", "initial_red3_timing=first_turn")])
def test_a_resampled_state_looks_the_same_to_the_player(rules: str, options: str) -> None:
    game = pyspiel.load_game("python_canasta", {"rules": rules, "options": options})
    rng = random.Random(5)
    changed = checked = 0
    for state in _random_states(game, seed=5, every=7):
        player = rng.randrange(game.num_players())
        # The engine's constraints hold of the true deal (else they would rule out the truth).
        run = state.run
        unseen = osp._Unseen(run.engine, run.deck, player)
        assert unseen.violations(unseen.cards) == 0
        new = state.resample(player, rng)
        _check_alike(state, new, player)
        changed += _hidden(new, player) != _hidden(state, player)
        checked += 1
    assert checked > 5 and changed >= checked - 2


def test_resampled_hands_owe_nothing_to_the_true_ones() -> None:
    """Right after the deal the other hand shares with the true one about what a random hand
    would (15 * 15 / 92 cards, two-player), not more: the deal is not the truth shuffled a
    little."""
    game = pyspiel.load_game("python_canasta", {"rules": "two-player"})
    rng = np.random.RandomState(2)
    prng = random.Random(2)
    overlaps = []
    for _ in range(4):
        state = game.new_initial_state()
        while state.is_chance_node():
            _chance(state, rng)
        truth = set(_hidden(state, 0)[1])
        for _ in range(10):
            new = state.resample(0, prng)
            overlaps.append(len(truth & set(_hidden(new, 0)[1])) / max(1, len(truth)))
    assert sum(overlaps) / len(overlaps) < 0.3


def test_resampling_during_the_deal_and_at_the_end() -> None:
    game = pyspiel.load_game("python_canasta", {"rules": "two-player", "max_hands": 2,
                                                "options": "max_turns=2"})
    rng = np.random.RandomState(0)
    prng = random.Random(0)
    state = game.new_initial_state()
    for _ in range(10):
        _chance(state, rng)
    new = state.resample(1, prng)
    assert len(new.history()) == 10
    assert new.information_state_string(1) == state.information_state_string(1)
    assert new.is_chance_node() and new.chance_outcomes() != state.chance_outcomes()
    second = 0
    while not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
        else:
            if state.run.hands_done == 1:  # the second hand: the first one is kept
                new = state.resample(state.current_player(), prng)
                assert new.run.past == state.run.past
                _check_alike(state, new, state.current_player())
                second += 1
            legal = state.legal_actions()
            state.apply_action(legal[rng.randint(len(legal))])
    assert second > 0
    assert state.resample(0, prng).history() == state.history()


def test_resample_from_infostate_takes_openspiels_sampler() -> None:
    game = pyspiel.load_game("python_canasta", {"rules": "classic"})
    for state in _random_states(game, seed=1, every=25):
        player = state.current_player()
        new = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        _check_alike(state, new, player)


def _ismcts_game(rules: str, seed: int, sims: int) -> tuple[Any, int]:
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_canasta", {"rules": rules})
    rng = np.random.RandomState(seed)
    bots = []
    for p in range(game.num_players()):
        bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0,
                               max_simulations=sims, random_state=rng)
        bot.set_resampler(osp.resampler(seed * 10 + p))
        bots.append(bot)
    state = game.new_initial_state()
    searched = 0
    while not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
            continue
        legal = state.legal_actions()
        action = bots[state.current_player()].step(state)
        searched += len(legal) > 1
        assert action in legal
        state.apply_action(action)
    return state, searched


@pytest.mark.parametrize("rules", ["two-player", "classic"])
def test_ismcts_bot_plays_a_whole_one_hand_game(rules: str) -> None:
    state, searched = _ismcts_game(rules, seed=3, sims=3)
    returns = state.returns()
    assert searched > 20
    assert sum(returns) == pytest.approx(0.0)
    assert len(set(returns[0::2])) == 1 and len(set(returns[1::2])) == 1


def test_ismcts_bot_asks_the_state_itself_by_default() -> None:
    """Without ``set_resampler`` the bot calls ``state.resample_from_infostate`` with OpenSpiel's
    sampler; the search asserts that every sample has the player's information state."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_canasta", {"rules": "classic"})
    rng = np.random.RandomState(4)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0,
                           max_simulations=4, random_state=rng)
    state = game.new_initial_state()
    moves = 0
    while moves < 12 and not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
            continue
        state.apply_action(bot.step(state))
        moves += 1
    assert moves == 12


def test_resampling_mcts_bot_searches_only_worlds_the_player_cannot_tell_apart() -> None:
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("python_canasta", {"rules": "two-player"})
    rng = np.random.RandomState(6)
    inner = mcts.MCTSBot(game, uct_c=2.0, max_simulations=3,
                         evaluator=mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    searched: list[Any] = []
    search = inner.mcts_search

    def spy(state: Any) -> Any:
        searched.append(state)
        return search(state)

    inner.mcts_search = spy
    bot = osp.ResamplingMCTSBot(inner, worlds=2, seed=6)
    state = game.new_initial_state()
    decisions = other = 0
    while not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
            continue
        player = state.current_player()
        if player == 0:
            before = len(searched)
            action = bot.step(state)
            for world in searched[before:]:
                assert world.information_state_string(0) == state.information_state_string(0)
                other += world.run.engine.hands[1] != state.run.engine.hands[1]
            decisions += len(searched) > before
        else:
            legal = state.legal_actions()
            action = legal[rng.randint(len(legal))]
        assert action in state.legal_actions()
        state.apply_action(action)
    assert decisions > 5
    assert other > len(searched) // 2  # not the true hand (unless all of it is known)
    with pytest.raises(ValueError, match="worlds"):
        osp.ResamplingMCTSBot(inner, worlds=0)


def test_other_observation_types_show_what_they_say() -> None:
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("python_canasta", {"rules": "classic"})
    state = next(_random_states(game, seed=2, every=9))
    kinds = pyspiel.PrivateInfoType
    public = make_observation(game, pyspiel.IIGObservationType(
        public_info=True, perfect_recall=False, private_info=kinds.NONE))
    private = make_observation(game, pyspiel.IIGObservationType(
        public_info=False, perfect_recall=False, private_info=kinds.SINGLE_PLAYER))
    everything = make_observation(game, pyspiel.IIGObservationType(
        public_info=True, perfect_recall=False, private_info=kinds.ALL_PLAYERS))
    hands = [[TEXT_OF[c] for c in h] for h in state.run.engine.hands]
    view = json.loads(public.string_from(state, 2))
    assert "hand" not in view and "hands" not in view and view["seat"] is None
    assert public.string_from(state, 0) == public.string_from(state, 3)
    assert public.tensor is None and private.tensor is None
    mine = json.loads(private.string_from(state, 2))
    assert set(mine) == {"seat", "hand"} and Counter(mine["hand"]) == Counter(hands[2])
    shown = json.loads(everything.string_from(state, 0))["hands"]
    assert [Counter(h) for h in shown] == [Counter(h) for h in hands]
    with pytest.raises(ValueError, match="perfect recall"):
        make_observation(game, pyspiel.IIGObservationType(
            public_info=True, perfect_recall=True, private_info=kinds.NONE))


def test_rule_options_fit_in_a_game_string() -> None:
    game = pyspiel.load_game("python_canasta(rules=two-player,options=max_turns:4;target:3000)")
    rules = game.context.rules
    assert (rules.max_turns, rules.target, rules.players) == (4, 3000, 2)
    assert osp.parse_options("target=3000, max_turns=500") == {"target": 3000, "max_turns": 500}
