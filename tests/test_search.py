"""builtin:search and the levels: decisions from the observation only, legal in every preset,
within the time budget, reachable from every command, and 'hint' at the prompt."""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

import pytest
from test_properties import _redeal
from typer.testing import CliRunner

from canasta_cli.cli import app
from canasta_cli.core import PRESETS, GameState, apply, legal_moves, new_game
from canasta_cli.players import PLAYERS
from canasta_cli.players import search as search_mod
from canasta_cli.players.search import SearchPlayer
from canasta_cli.protocol.messages import act_message, encode, game_start_message
from canasta_cli.referee import Referee
from canasta_cli.seats import builtin_seat
from canasta_cli.seats.policy import PolicySeat

runner = CliRunner()
PY = sys.executable


def _player_after(st: GameState, seat: int, player: SearchPlayer) -> None:
    player(game_start_message(1, seat, st.rules, ["x"] * st.rules.players))
    for e in st.events():
        player({"type": "event", "game": 1, "event": e.view(seat)})


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_move_does_not_depend_on_the_hidden_cards(seed: int) -> None:
    """Same observation, same seed, the unseen cards re-dealt: the same move."""
    rules = PRESETS["classic"].with_options(max_hands=1)
    st = new_game(rules, seed=seed)
    rng = random.Random(seed)
    for _ in range(30):
        st = apply(st, rng.choice(legal_moves(st)))
    while len(legal_moves(st)) < 2:
        st = apply(st, legal_moves(st)[0])
    seat = st.actor
    other = _redeal(st, seat, random.Random(99))
    assert other.hands != st.hands or other.stock != st.stock
    choices = []
    for state in (st, other):
        player = SearchPlayer(seed=7, simulations=6)
        _player_after(state, seat, player)
        msg = act_message(1, 5, state, legal_moves(state), 1000, 0)
        choices.append((encode(msg), player.choose(msg), [r.value for r in player.last]))
    assert choices[0] == choices[1]


@pytest.mark.parametrize("name", list(PRESETS))
def test_search_plays_only_listed_moves_in_every_preset(name: str) -> None:
    rules = PRESETS[name].with_options(max_hands=1)
    seats = [PolicySeat("search", SearchPlayer(seed=1, simulations=2, horizon=4))] + [
        builtin_seat("builtin:greedy", i) for i in range(1, rules.players)]
    ref = Referee(seats, rules)
    result = ref.play(1, seed=4)
    assert result.seats[0]["status"] == "OK" and not result.seats[0]["failures"], result.seats[0]
    assert result.seats[0]["decisions"] > 5


def test_the_budget_is_respected(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a 100 ms budget, no new deal starts once the clock passes it (a fake clock: every
    call moves it by 10 ms, so the count of deals is exact whatever the machine's load)."""
    clock = [0.0]

    def tick() -> float:
        clock[0] += 0.010
        return clock[0]

    # The clock itself, not the module's name for it: a compiled search module keeps its own.
    monkeypatch.setattr(time, "monotonic", tick)
    rules = PRESETS["two-player"].with_options(max_hands=1)
    st = apply(new_game(rules, seed=2), "draw")
    player = SearchPlayer(seed=1, budget_ms=100)
    _player_after(st, st.actor, player)
    player.rank(act_message(1, 1, st, legal_moves(st), 1000, 0))
    # the deadline is set at t=0.01 (0.11), then the clock is read once per deal: about ten
    first = player.last[0].samples
    assert 9 <= first <= 11
    player.rank(act_message(1, 2, st, legal_moves(st), 50, 0))  # the referee allows 50 ms
    second = player.last[0].samples
    assert 3 <= second <= 5 and second < first  # 80% of 50 ms


# hard:30 is the hard level with 30 ms a decision instead of 400: the same player, a tenth
# of the time (its default budget is the one test_every_level_is_a_builtin_name builds).
@pytest.mark.parametrize("level", ["easy", "normal", "hard:30", "search:30"])
def test_levels_in_a_match_and_a_tournament(level: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["match", "-r", "two-player", "-s", f"builtin:{level}", "-s",
                                 "builtin:random", "--set", "max_hands=1", "--seed", "2",
                                 "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["seat_status"][0]["status"] == "OK"
    if level == "easy":
        t = runner.invoke(app, ["tournament", "--bot", "e=builtin:easy", "--bot",
                                "r=builtin:random", "--rules", "two-player", "--games", "1",
                                "--set", "max_hands=1", "--concurrency", "1", "--out",
                                str(tmp_path)])
        assert t.exit_code == 0, t.output


def test_bot_run_speaks_the_protocol(tmp_path: Path) -> None:
    cmd = f"{PY} -m canasta_cli.cli bot run search --level hard --ms 30"
    result = runner.invoke(app, ["match", "-r", "two-player", "-s", cmd, "-s", "builtin:greedy",
                                 "--set", "max_hands=1", "--seed", "3", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["seat_status"][0]["status"] == "OK"
    bad = runner.invoke(app, ["bot", "run", "wizard"])
    assert bad.exit_code == 2 and "unknown built-in player" in bad.output


def test_every_level_is_a_builtin_name() -> None:
    for name in ("easy", "normal", "hard", "search"):
        assert name in PLAYERS
        builtin_seat(f"builtin:{name}")
    with pytest.raises(ValueError, match="milliseconds"):
        builtin_seat("builtin:search:fast")


def _fast_policy_decisions(rules, games: int):  # type: ignore[no-untyped-def]
    """Every decision of ``games`` seeded games of the fast policy: (state, its move)."""
    for seed in range(games):
        st = new_game(rules, seed=seed)
        rng = random.Random(seed)
        while not st.is_over:
            move = search_mod.fast_policy(st, rng)
            yield st, move
            st = apply(st, move)


@pytest.mark.parametrize("name", ["classic", "two-player", "six-player"])
def test_the_fast_policy_does_not_feed_the_next_sides_meld(name: str) -> None:
    """With the pile open to the next player's side, the improved greedy never discards a rank
    that side has melded while it holds a single card of another rank it could discard."""
    from canasta_cli.core.cards import BLACK3, DEUCE, JOKER
    from canasta_cli.core.moves import Discard
    from canasta_cli.core.state import Phase
    rules = PRESETS[name].with_options(max_hands=1)
    checked = 0
    for st, move in _fast_policy_decisions(rules, 12):
        if isinstance(move, Discard) and st.phase is Phase.MELD:
            seat = st.actor
            row = st.team[(seat + 1) % rules.players]
            if row != st.team[seat] and not st.pile_frozen and st.side_has_melded(row):
                singles = [m.kind for m in legal_moves(st) if isinstance(m, Discard)
                           and m.kind not in (DEUCE, JOKER, BLACK3)
                           and st.hc[seat][m.kind] == 1 and st.melds[row][m.kind] is None]
                if singles:
                    checked += 1
                    assert st.melds[row][move.kind] is None, (st, move, singles)
    assert checked >= 10


def test_a_rank_whose_copies_are_seen_is_the_safer_discard() -> None:
    """The pair risk falls as copies of a rank are seen, and is nil when fewer than two are
    left unseen."""
    odds = [search_mod._pair_odds(u, 11, 60) for u in range(9)]
    assert odds[0] == odds[1] == 0.0 and all(a < b for a, b in zip(odds[1:-1], odds[2:], strict=True))
    assert search_mod._pair_odds(4, 60, 60) == pytest.approx(1.0)


def test_the_fast_policy_freezes_the_pile_only_when_every_other_discard_risks_more() -> None:
    """A wild discard is chosen only when no other discard costs less than keeping the wild
    card; over many one-hand games it happens, and never with a cheaper discard at hand."""
    from canasta_cli.core.cards import DEUCE, JOKER
    from canasta_cli.core.moves import Discard
    rules = PRESETS["two-player"].with_options(max_hands=1)
    frozen_by_choice = 0
    for st, move in _fast_policy_decisions(rules, 40):
        if isinstance(move, Discard) and move.kind in (DEUCE, JOKER):
            others = [m.kind for m in legal_moves(st)
                      if isinstance(m, Discard) and m.kind not in (DEUCE, JOKER)]
            if others:
                frozen_by_choice += not st.pile_frozen
                costs = [search_mod._discard_cost(st, k, st.actor) for k in others]
                assert min(costs) >= search_mod._discard_cost(st, move.kind, st.actor)
    assert frozen_by_choice >= 3


def test_hint_says_when_a_shown_move_was_judged_on_fewer_deals() -> None:
    """Successive halving drops weak moves early; the hint gives their own deal count."""
    from canasta_cli.players.search import Ranked
    from canasta_cli.seats.human import HumanSeat

    class Advisor:
        def rank(self, msg: dict) -> list[Ranked]:  # type: ignore[type-arg]
            return [Ranked(0, "draw", 120.0, 40), Ranked(2, "pile K K", 80.0, 40),
                    Ranked(1, "pile K K 2", 95.0, 8)]

    seat = HumanSeat.__new__(HumanSeat)
    seat.advisor = Advisor()  # type: ignore[assignment]
    text = seat._hint({})
    assert "over 40 random deals" in text
    lines = text.splitlines()[1:]
    assert lines[0].split() == ["draw", "+120"] and lines[1].split() == ["pile", "K", "K", "+80"]
    assert lines[2].split() == ["pile", "K", "K", "2", "+95", "(8", "deals)"]
