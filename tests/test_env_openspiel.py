"""The OpenSpiel game ``python_canasta``: OpenSpiel's own checks, its bots, the deal as
chance, zero-sum returns.  Skipped where open_spiel is not installed."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")
pyspiel = pytest.importorskip("pyspiel")

import canasta_cli.env.openspiel  # noqa: E402, F401 - registers the game
from canasta_cli.core import PRESETS, legal_moves, new_game  # noqa: E402
from canasta_cli.env import Encoder, action_table  # noqa: E402


@pytest.mark.parametrize("name", list(PRESETS))
def test_openspiel_random_simulation_tests(name: str) -> None:
    game = pyspiel.load_game("python_canasta", {"rules": name})
    assert game.num_distinct_actions() == action_table(PRESETS[name]).size
    assert game.max_chance_outcomes() == PRESETS[name].deck_size
    assert game.observation_tensor_size() == Encoder(PRESETS[name]).size
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_openspiel_several_hands_carry_the_scores() -> None:
    game = pyspiel.load_game("python_canasta", {"rules": "two-player", "max_hands": 3,
                                                "options": "target=1500"})
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
    rng = np.random.RandomState(1)
    state = game.new_initial_state()
    deals = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            deals += len(outcomes) == 108
            state.apply_action(outcomes[rng.randint(len(outcomes))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randint(len(legal))])
    assert 1 <= deals <= 3
    assert sum(state.returns()) == pytest.approx(0.0)


def _deal(state: object, rng: object) -> list[int]:
    deck = []
    while state.is_chance_node():  # type: ignore[attr-defined]
        outcomes = state.chance_outcomes()  # type: ignore[attr-defined]
        card = outcomes[rng.randint(len(outcomes))][0]  # type: ignore[attr-defined]
        deck.append(card)
        state.apply_action(card)  # type: ignore[attr-defined]
    return deck


def test_the_deal_is_the_engine_game_of_that_deck() -> None:
    game = pyspiel.load_game("python_canasta", {"rules": "classic"})
    state = game.new_initial_state()
    deck = _deal(state, np.random.RandomState(3))
    rules = PRESETS["classic"].with_options(max_hands=1)
    engine = new_game(rules, decks=[deck], dealer=3)
    assert state.current_player() == engine.actor == 0
    assert state.legal_actions() == sorted(action_table(rules).indices(legal_moves(engine)))
    enc = Encoder(rules)
    tracker = enc.tracker()
    for event in engine.events():
        tracker.feed(event)
    for p in range(4):
        assert state.observation_tensor(p) == pytest.approx(
            enc.from_state(engine, p, tracker).tolist())
    strings = {state.information_state_string(p) for p in range(4)}
    assert len(strings) == 4  # each player's own cards
    assert '"type": "dealt"' in state.information_state_string(0)


def test_mcts_and_random_bots_play_it() -> None:
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.bots import uniform_random

    game = pyspiel.load_game("python_canasta", {"rules": "classic"})
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=4,
                       evaluator=mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    randoms = [uniform_random.UniformRandomBot(p, rng) for p in range(4)]
    state = game.new_initial_state()
    by_mcts = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randint(len(outcomes))][0])
            continue
        player = state.current_player()
        if player == 0 and by_mcts < 3:
            action = bot.step(state)
            by_mcts += 1
        else:
            action = randoms[player].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    returns = state.returns()
    assert by_mcts == 3
    assert returns[0] == returns[2] and returns[1] == returns[3] and returns[0] == -returns[1]
