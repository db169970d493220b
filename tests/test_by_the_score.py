"""Playing by the score (``builtin:search:...,score=1``): near the end of a game the search
plays to win the game, not to maximise the hand's points.

Every position is set up as ``canasta position`` sets one up: a stacked deck, the game's
scores (``--scores``) and the moves played so far.  Seat 1 has laid a natural canasta of
aces; seat 2, partner of seat 0, holds seven queens, two jokers and three kings.  With
side 0 at 4200 and side 1 at 4600, seat 2 going out now ends the game with side 1 ahead
(checked below on the engine), so a player by the score holds back; at 4700 to 4000 going
out wins the game, and it goes out.
"""

from __future__ import annotations

from typing import Any, cast

import pytest

from canasta_cli.core import apply, format_move, legal_moves, new_game
from canasta_cli.core.deckfile import parse_deck_text
from canasta_cli.core.reasons import GameEnd
from canasta_cli.core.rules import preset
from canasta_cli.core.state import GameState
from canasta_cli.players import PLAYERS
from canasta_cli.players.search import GAME_WIN, SearchPlayer
from canasta_cli.protocol.messages import act_message, game_start_message

DECK = """
seat0: 4c 5c 6c 7d 8d 9d 10s Js 4h 6s 9h
seat1: As Ac Ad Ah As Ac Ad 5s 7s 9c Jc
seat2: Qh Qd Qc Qs Qh Qd Qc Jo Jo Kh Kd
stock: 10h 8h 8c Kc 4d 6d 7c 9s
"""
OPENING = "draw; discard 4; draw; meld A A A A A A A; discard 5; draw"
# Seat 2 has laid its queens and K K Jo: it holds a king and a joker.  "add K Jo" then
# "discard K" goes out; "discard K" keeps the joker and plays on.
HOLDING = OPENING + "; meld Q Q Q Q Q Q Q; meld K K Jo"
LOSES, WINS = (4200, 4600), (4700, 4000)


def position(scores: tuple[int, int], moves: str, **options: int) -> GameState:
    rules = preset("classic").with_options(**options) if options else preset("classic")
    decks = parse_deck_text(DECK, rules, dealer=3, seed=0)
    st = new_game(rules, seed=0, decks=decks, dealer=3, scores=list(scores))
    for text in moves.split(";"):
        st = apply(st, text.strip())
    return st


def choice(st: GameState, player: SearchPlayer) -> str:
    """The move ``player`` makes at ``st``, told the game as a referee tells its seat."""
    seat = st.actor
    player(game_start_message(1, seat, st.rules, ["x"] * st.rules.players))
    for e in st.events():
        player({"type": "event", "game": 1, "event": e.view(seat)})
    msg = cast(dict[str, Any], act_message(1, 9, st, legal_moves(st), 10**7, 0).message())
    return player.rank(msg)[0].text


def by_score(deals: int = 64) -> SearchPlayer:
    return SearchPlayer(seed=3, deals=deals, horizon=0, by_score=True)


def by_points(deals: int = 64) -> SearchPlayer:
    return SearchPlayer(seed=3, deals=deals, horizon=0)


def test_the_premise_going_out_now_loses_at_4200_to_4600_and_wins_at_4700_to_4000() -> None:
    for scores, winner in ((LOSES, 1), (WINS, 0)):
        end = position(scores, HOLDING + "; add K Jo; discard K")
        assert end.game_end_reason is GameEnd.TARGET and end.winner == winner, end.scores


def test_it_goes_out_at_once_when_that_wins_the_game() -> None:
    st = position(WINS, HOLDING)
    assert choice(st, by_score()) == "add K Jo"


def test_it_holds_back_when_going_out_would_hand_the_game_to_the_other_side() -> None:
    st = position(LOSES, HOLDING)
    assert choice(st, by_points()) == "add K Jo"  # the hand's points say: go out
    assert choice(st, by_score()) == "discard K"  # the score says: keep the joker, play on


@pytest.mark.parametrize(("scores", "answer"), [(LOSES, "no"), (WINS, "yes"), ((1000, 1200), "yes")])
def test_it_answers_may_i_go_out_by_the_game_state(scores: tuple[int, int], answer: str) -> None:
    st = position(scores, OPENING + "; ask")
    assert [format_move(m) for m in legal_moves(st)] == ["yes", "no"] and st.actor == 0
    assert choice(st, by_score()) == answer
    assert choice(st, by_points()) == "yes"  # by the points it always says yes


def test_the_answer_is_given_its_value_from_the_hand_scored_now() -> None:
    player = by_score()
    choice(position(LOSES, OPENING + "; ask"), player)
    said, other = player.last
    assert said.text == "no" and other.text == "yes" and other.value < -GAME_WIN / 2
    choice(position(WINS, OPENING + "; ask"), player)
    assert player.last[0].text == "yes" and player.last[0].value > GAME_WIN / 2


def test_a_hand_that_ends_the_game_by_its_limit_is_played_for_points() -> None:
    """One-hand games (``max_hands=1``, how tournaments compare bots) end at the hand
    limit, not at the target: by the score plays them exactly as by the points."""
    st = position((0, 0), HOLDING, max_hands=1)
    a, b = by_score(24), by_points(24)
    assert choice(st, a) == choice(st, b)
    assert [(r.text, r.value) for r in a.last] == [(r.text, r.value) for r in b.last]


def test_score_is_a_search_option() -> None:
    player = PLAYERS["search"](1, "deals=8,horizon=0,score=1")
    assert isinstance(player, SearchPlayer) and player.by_score
    assert not cast(SearchPlayer, PLAYERS["hard"](1, "")).by_score  # 'hard' keeps its games
    with pytest.raises(ValueError, match="score"):
        PLAYERS["search"](1, "score=2")
