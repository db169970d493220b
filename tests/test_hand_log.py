"""A long game's memory: with ``hand_log`` the state keeps one hand's events, and everything
read from it (the events since a move, records, messages, replays) stays exactly the same."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from canasta_cli.core import PRESETS, apply, legal_moves, new_game, preset
from canasta_cli.core.state import GameState
from canasta_cli.hosting.referee import Referee
from canasta_cli.hosting.replay import load_record, replay
from canasta_cli.players import PLAYERS
from canasta_cli.seats.policy import PolicySeat


def _since(state: GameState, before: Any) -> list[Any]:
    out = []
    node = state.log
    while node is not None and node is not before:
        out.append(node[1])
        node = node[0]
    return out[::-1]


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_events_of_each_move_are_the_same_and_the_log_holds_one_hand(name: str) -> None:
    rules = preset(name).with_options(max_hands=12, target=10**9)
    whole = new_game(rules, seed=3)
    short = new_game(rules, seed=3, hand_log=True)
    assert short.events() == whole.events()
    rng = random.Random(3)
    seen: list[Any] = list(short.events())
    longest_hand = most_held = 0
    per_hand = 0
    while not whole.is_over:
        moves = legal_moves(whole)
        assert legal_moves(short) == moves
        move = rng.choice(moves)
        before_whole, before_short = whole, short
        whole, short = apply(whole, move), apply(short, move)
        fresh = _since(short, before_short.log)
        assert fresh == _since(whole, before_whole.log)
        seen += fresh
        per_hand += len(fresh)
        if whole.hand_no != before_whole.hand_no:
            longest_hand, per_hand = max(longest_hand, per_hand), 0
        most_held = max(most_held, len(short.events()))
    assert seen == whole.events()
    assert short.scores == whole.scores and short.results == whole.results
    assert len(whole.results) == 12
    # The whole log holds twelve hands; the short one never more than about one hand.
    assert most_held <= 2 * longest_hand < len(whole.events()) // 3


def _recording(seed: int, log: list[str]) -> Any:
    """A random player that writes down every message it is sent."""
    inner = PLAYERS["random"](seed, "")

    def policy(msg: dict[str, Any]) -> dict[str, Any] | None:
        log.append(json.dumps(msg, sort_keys=True, default=str))
        return inner(msg)
    return policy


def _game(tmp: Path, monkeypatch: pytest.MonkeyPatch | None) -> tuple[list[list[str]], str]:
    if monkeypatch is not None:  # the referee as it was: the whole log in the state
        def whole_log(*args: Any, **kw: Any) -> GameState:
            assert kw["hand_log"] is True  # the referee asks for one hand held (no history seat)
            kw["hand_log"] = False
            return new_game(*args, **kw)
        monkeypatch.setattr("canasta_cli.hosting.referee.new_game", whole_log)
    rules = preset("classic").with_options(max_hands=8, target=10**9)
    heard: list[list[str]] = [[] for _ in range(4)]
    ref = Referee([PolicySeat(f"p{i}", _recording(i, heard[i])) for i in range(4)], rules,
                  record_dir=tmp)
    ref.play(1, seed=11)
    ref.close()
    return heard, (tmp / "game-0001.jsonl").read_text()


def test_a_referee_game_sends_and_records_the_same_with_one_hand_held(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    heard, record = _game(tmp_path / "a", None)
    heard_whole, record_whole = _game(tmp_path / "b", monkeypatch)
    assert heard == heard_whole
    # Every line but the result, which holds the seats' times and the record's path.
    assert record.splitlines()[:-1] == record_whole.splitlines()[:-1]
    assert '"type":"result"' in record.splitlines()[-1]
    lines = load_record(tmp_path / "a" / "game-0001.jsonl")
    assert sum(1 for ln in lines if ln["type"] == "event" and ln["event"]["type"] == "hand_ended") == 8
    assert replay(lines).ok
