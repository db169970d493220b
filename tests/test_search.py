"""builtin:search and the levels: decisions from the observation only, legal in every preset,
within the time budget, reachable from every command, and 'hint' at the prompt."""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path
from typing import Any, cast

import pytest
from test_properties import _redeal
from typer.testing import CliRunner

from canasta_cli.__main__ import app
from canasta_cli.core import PRESETS, GameState, apply, legal_moves, new_game
from canasta_cli.hosting.referee import Referee
from canasta_cli.players import PLAYERS
from canasta_cli.players import search as search_mod
from canasta_cli.players.inference import infer_factors
from canasta_cli.players.search import Clock, SearchPlayer
from canasta_cli.protocol.messages import ActRequest, act_message, encode, game_start_message
from canasta_cli.seats import builtin_seat
from canasta_cli.seats.policy import PolicySeat

runner = CliRunner()
PY = sys.executable



def _plain(request: ActRequest) -> dict[str, Any]:
    """The request as the plain message a player reads."""
    return cast(dict[str, Any], request.message())

def _player_after(st: GameState, seat: int, player: SearchPlayer) -> None:
    player(game_start_message(1, seat, st.rules, ["x"] * st.rules.players))
    for e in st.events():
        player({"type": "event", "game": 1, "event": e.view(seat)})


@pytest.mark.parametrize("infer", [False, True])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_move_does_not_depend_on_the_hidden_cards(seed: int, infer: bool) -> None:
    """Same observation, same seed, the unseen cards re-dealt: the same move, with the
    inference too (it reads the same messages)."""
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
        player = SearchPlayer(seed=7, deals=6, infer=infer)
        _player_after(state, seat, player)
        # Time enough that the deadline guard never cuts the six deals short on a busy machine.
        request = act_message(1, 5, state, legal_moves(state), 10**6, 0)
        msg = _plain(request)
        weights = infer_factors(player.history, msg["observation"], rules)
        choices.append((encode(request), player.choose(msg), [r.value for r in player.last],
                        weights))
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
    """With a time budget the clock is read before every move of every rollout, and nothing
    more is done once it reads within a step of the deadline (a fake clock: every read moves it by 10 µs,
    so the count is exact whatever the machine's load); an unfinished deal is dropped."""
    reads: list[float] = []

    def tick() -> float:
        reads.append((reads[-1] if reads else 0.0) + 0.00001)
        return reads[-1]

    # The clock itself, not the module's name for it: a compiled search module keeps its own.
    monkeypatch.setattr(time, "monotonic", tick)
    rules = PRESETS["two-player"].with_options(max_hands=1)
    st = apply(new_game(rules, seed=2), "draw")
    player = SearchPlayer(seed=1, budget_ms=100)
    _player_after(st, st.actor, player)
    samples = []
    for limit, allowed in ((0.100, 1000), (0.040, 50)):  # 80% of the referee's 50 ms
        reads.clear()
        player.reserve = 0.0
        player.rank(_plain(act_message(1, 1, st, legal_moves(st), allowed, 0)))
        deadline = reads[0] + limit
        # it stops at the read 1% of the time before the deadline, and reads no more but once
        # to learn how late the answer was (not late: nothing more kept back)
        margin = limit / 100
        assert deadline - margin - 0.000001 <= reads[-2] < deadline - margin + 0.000011
        assert player.reserve == 0.0
        assert player.evidence is not None
        deals = player.evidence.deals
        assert deals >= 1 and max(len(v) for v in player.evidence.values) == deals
        samples.append(deals)
    assert samples[1] < samples[0]


def test_a_late_answer_makes_the_next_decision_stop_earlier(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """A pause after the last read (a busy machine) made the answer late: the player keeps
    that much time back (and a millisecond) at its next deadline, and gives it back slowly
    when it answers early; a fake clock moving 10 µs a read makes the counts exact."""
    now = [0.0]

    def tick() -> float:
        now[0] += 0.00001
        return now[0]

    monkeypatch.setattr(time, "monotonic", tick)
    clock = Clock(0.1)
    while not clock.passed():
        pass
    player = SearchPlayer(seed=1, budget_ms=100)
    now[0] = clock.deadline + 0.02  # 20 ms late
    player._learn(clock)
    assert 0.021 <= player.reserve < 0.0211
    rules = PRESETS["two-player"].with_options(max_hands=1)
    st = apply(new_game(rules, seed=2), "draw")
    _player_after(st, st.actor, player)
    start = now[0]
    player.rank(_plain(act_message(1, 1, st, legal_moves(st), 1000, 0)))
    # the stop came about 21 ms early (after reading the clock once at the start) ...
    stop = now[0] - 0.00001 - start
    assert 0.079 <= stop < 0.07903
    # ... so early that 5% of the time left over is given back
    assert 0.0199 < player.reserve < 0.0200


def test_a_pause_is_kept_back_in_the_next_decisions(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 30 ms pause between two reads (the machine busy) makes the next decision stop 30 ms
    before its deadline, though no pause comes then; what is kept fades by a fifth a decision.
    A fake clock moving 10 µs a read makes it exact."""
    now = [0.0]

    def tick() -> float:
        now[0] += 0.00001
        return now[0]

    monkeypatch.setattr(time, "monotonic", tick)
    player = SearchPlayer(seed=1, budget_ms=100)
    first = Clock(1.0)
    first.passed()
    now[0] += 0.03
    first.passed()
    player._learn(first)
    assert 0.03 <= player.pause < 0.0301
    second = Clock(now[0] + 0.1, player.reserve, player.pause)
    while not second.passed():
        pass
    assert 0.0299 <= second.deadline - now[0] <= 0.0301  # stopped a pause early
    assert second.seen < 0.0001  # no pause came in this decision
    player._learn(second)
    assert 0.0239 <= player.pause < 0.0241
    for _ in range(60):  # gone again once the machine is quiet
        player._learn(Clock(now[0] + 0.1, player.reserve, player.pause))
    assert player.pause < 0.0001


def test_a_fixed_deal_budget_ignores_the_clock_and_repeats(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """deals=N: exactly N deals whatever the clock says, and the same ranking every time."""
    clock = [0.0]

    def slow() -> float:
        clock[0] += 0.05  # 50 ms per read: a time budget would stop after the first deal
        return clock[0]

    rules = PRESETS["classic"].with_options(max_hands=1)
    st = apply(new_game(rules, seed=5), "draw")
    results = []
    for fake in (False, True):
        if fake:
            monkeypatch.setattr(time, "monotonic", slow)  # compiled too: read at each call
        player = PLAYERS["hard"](3, "deals=12")
        assert isinstance(player, SearchPlayer)
        _player_after(st, st.actor, player)
        ranked = player.rank(_plain(act_message(1, 1, st, legal_moves(st), 10**6, 0)))
        assert player.evidence is not None and player.evidence.deals == 12
        results.append([(r.index, r.value, r.samples) for r in ranked])
    assert results[0] == results[1]


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



def test_hint_says_why_a_move_estimated_higher_is_not_the_one_recommended() -> None:
    """The search keeps its quick player's move unless another is clearly better: a move
    listed below it with a higher estimate says so (noise, or fewer deals)."""
    from canasta_cli.players.search import Ranked
    from canasta_cli.seats.human import HumanSeat

    class Advisor:
        def rank(self, msg: dict) -> list[Ranked]:  # type: ignore[type-arg]
            return [Ranked(0, "discard 4", 30.0, 96), Ranked(1, "discard K", 45.0, 96),
                    Ranked(2, "discard 9", 50.0, 12)]

    seat = HumanSeat.__new__(HumanSeat)
    seat.advisor = Advisor()  # type: ignore[assignment]
    lines = seat._hint({}).splitlines()
    assert "would play discard 4." in lines[0] and len(lines) == 6
    assert [lines[i].split()[:3] for i in (1, 2, 4)] == [
        ["discard", "4", "+30"], ["discard", "K", "+45"], ["discard", "9", "+50"]]
    assert lines[3].startswith("      above discard 4, but by less than the noise")
    assert "not clearly better" in lines[3] and "quick player's choice" in lines[3]
    assert lines[5].startswith("      above discard 4, but judged on 12 deals only")

def _inference_rows(rules, games: int):  # type: ignore[no-untyped-def]
    """(true state, seat, its history, its observation) at decisions of fast-policy games."""
    for seed in range(games):
        st = new_game(rules, seed=seed)
        rng = random.Random(seed)
        k = 0
        while not st.is_over:
            k += 1
            if k % 3 == 0 and len(legal_moves(st)) > 1:
                seat = st.actor
                history = [e.view(seat) for e in st.events()]
                yield st, seat, history, _plain(act_message(1, k, st, legal_moves(st), 1000, 0))
            st = apply(st, search_mod.fast_policy(st, rng))


def test_the_inference_deals_only_consistent_hands_and_favours_the_truth() -> None:
    """Weighted deals keep every hand's size and known cards; a rank a seat just discarded,
    or could not have kept under the model, is dealt to it less often than uniformly."""
    from collections import Counter

    from canasta_cli.core.cards import KIND_OF
    from canasta_cli.core.determinize import determinize
    from canasta_cli.core.facts import public_facts
    rules = PRESETS["classic"].with_options(max_hands=1)
    better = worse = 0
    for st, seat, history, msg in _inference_rows(rules, 3):
        obs = msg["observation"]
        facts = public_facts(history, obs, rules.decks)
        weights = infer_factors(history, obs, rules)
        rng = random.Random(1)
        score = [0.0, 0.0]
        for j, w in enumerate((None, weights)):
            for _ in range(30):
                det = determinize(obs, facts, rules, rng, w)
                assert [len(h) for h in det.hands] == list(obs["hand_counts"])
                assert len(det.stock) == obs["stock_size"]
                for s in range(rules.players):
                    have = Counter(KIND_OF[c] for c in det.hands[s])
                    truth = Counter(KIND_OF[c] for c in st.hands[s])
                    if s == seat:
                        assert have == truth
                    score[j] += sum(min(have[k], truth[k]) for k in truth)
        better += score[1] > score[0]
        worse += score[1] < score[0]
    assert better > 2 * worse, (better, worse)


def test_search_budgets_parse_from_every_name() -> None:
    """builtin:search:deals=N (and hard:...), ms, horizon, infer and alpha; clear errors
    otherwise."""
    from canasta_cli.players import HARD_DEALS, HARD_HORIZON
    p = PLAYERS["search"](1, "deals=30,horizon=0,infer=1,alpha=50")
    assert isinstance(p, SearchPlayer)
    assert (p.simulations, p.horizon, p.infer, p.alpha) == (30, 0, True, 0.5)
    hard = PLAYERS["hard"](1, "")
    assert isinstance(hard, SearchPlayer)
    assert (hard.simulations, hard.horizon) == (HARD_DEALS, HARD_HORIZON)
    timed = PLAYERS["hard"](1, "400")  # the old 'hard': 400 ms, 8 turns
    assert isinstance(timed, SearchPlayer)
    assert (timed.simulations, timed.budget_ms, timed.horizon) == (None, 400.0, 8)
    fewer = PLAYERS["hard"](1, "deals=48,horizon=8")
    assert isinstance(fewer, SearchPlayer) and (fewer.simulations, fewer.horizon) == (48, 8)
    assert builtin_seat("builtin:search:deals=5").name == "builtin:search:deals=5"
    for bad in ("deals=0", "deals=x", "speed=3", "deals=3,deals=4", "infer=2",
                "alpha=0", "alpha=101"):
        with pytest.raises(ValueError, match="builtin:search"):
            builtin_seat(f"builtin:search:{bad}")
    with pytest.raises(ValueError, match="takes no argument"):
        builtin_seat("builtin:normal:deals=3")


def test_bot_run_and_play_take_a_fixed_deal_budget(tmp_path: Path) -> None:
    cmd = f"{PY} -m canasta_cli.cli bot run search --level hard --deals 3"
    result = runner.invoke(app, ["match", "-r", "two-player", "-s", cmd, "-s", "builtin:greedy",
                                 "--set", "max_hands=1", "--seed", "3", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["seat_status"][0]["status"] == "OK"
    bad = runner.invoke(app, ["bot", "run", "greedy", "--deals", "3"])
    assert bad.exit_code == 2 and "--deals are for search and hard" in bad.output
    wrong = runner.invoke(app, ["play", "--level", "hard:deals=none", "--save-dir",
                                str(tmp_path)])
    assert wrong.exit_code == 2 and "deals takes a whole number" in wrong.output


def test_a_fixed_deal_search_repeats_a_whole_game() -> None:
    """Two games with the same seeds and deals=N players: the same moves, move for move."""
    rules = PRESETS["three-player-cutthroat"].with_options(max_hands=1)
    runs = []
    for _ in range(2):
        seats = [builtin_seat("builtin:hard:deals=4", 5), builtin_seat("builtin:normal", 6)]
        seats += [builtin_seat("builtin:greedy", i) for i in range(2, rules.players)]
        result = Referee(seats, rules).play(1, seed=8)
        runs.append((result.scores, [s["decisions"] for s in result.seats]))
    assert runs[0] == runs[1]


def test_hint_gives_a_reason_from_the_deals() -> None:
    """The hint's reason lines come from the search's own deals of that decision."""
    from canasta_cli.players.evidence import Evidence, Outcome
    ev = Evidence(["draw", "discard 2", "discard K"], [[10.0, 20.0], [5.0, 5.0], [1.0, 2.0]],
                  [[Outcome(2, False), Outcome(1, False)], [Outcome(-1, False)] * 2,
                   [Outcome(-1, True), Outcome(-1, False)]], 0, 2, 0)
    labels = ["You", "Left", "Partner", "Right"]
    assert "goes out by your next turn in 100% of deals" in ev.reason(0, 4, labels)
    assert "quick player's choice" in ev.reason(0, 4, labels)
    assert "freezes the pile against Left" in ev.reason(1, 4, labels)
    assert "Left takes the pile after it in 50% of deals" in ev.reason(2, 4, labels)


def test_bench_levels_and_inference_print_their_figures() -> None:
    """bench levels: a row per level with deals per decision (and the overrun column for a
    time budget); bench inference: the log-likelihood per card, uniform and inferred."""
    out = runner.invoke(app, ["bench", "levels", "--games", "1", "--level", "search:deals=3",
                              "--level", "search:20", "--level", "normal"])
    assert out.exit_code == 0, out.output
    rows = {line.split()[0]: line.split() for line in out.output.splitlines()[1:4]}
    assert rows["search:deals=3"][6] == "3" and rows["search:deals=3"][7] == "-"
    assert int(rows["search:deals=3"][8]) > 0 and rows["normal"][8] == "-"  # deals/cpu-s
    assert rows["search:20"][7].startswith(("+", "-")) and rows["normal"][6] == "-"
    assert "load average" in out.output
    bad = runner.invoke(app, ["bench", "levels", "--level", "wizard"])
    assert bad.exit_code == 2 and "unknown built-in player" in bad.output
    inf = runner.invoke(app, ["bench", "inference", "--games", "1", "--deals", "5",
                              "--every", "6"])
    assert inf.exit_code == 0, inf.output
    for name in ("uniform (exact)", "uniform deals", "inferred deals"):
        assert f"{name}" in inf.output and "log-likelihood per card" in inf.output


def test_the_selection_test_and_its_level() -> None:
    """A paired mean above zero by a standard error passes at 20% over two moves, not over
    eleven (Bonferroni); at alpha 1 (alpha=100) any mean above zero passes."""
    from canasta_cli.players.evidence import clearly_better
    diffs = [10.0, -5.0, 20.0, 0.0, 8.0, -2.0, 15.0, 1.0]  # mean 5.9, s.e. 3.0
    assert clearly_better(diffs, 2, 0.2) and not clearly_better(diffs, 11, 0.2)
    assert clearly_better([1.0, -0.5], 11, 1.0) and not clearly_better([-1.0, 0.5], 2, 1.0)


def test_the_deals_count_the_canastas_each_move_completes() -> None:
    """The evidence of a decision counts the canastas the side completed on each deal, the
    one the move itself lays included (the review's 'canastas made or missed')."""
    from canasta_cli.core.deckfile import parse_deck_text
    rules = PRESETS["classic"]
    deck = "seat0: Qh Qd Qc Qs Qh Qd Qc 4c 5d 6h 8s\nstock: 9s 10d\n"
    st = new_game(rules, seed=0, decks=parse_deck_text(deck, rules, dealer=3), dealer=3)
    st = apply(st, "draw")
    player = SearchPlayer(seed=1, deals=8, horizon=1)
    _player_after(st, 0, player)
    player.rank(_plain(act_message(1, 1, st, legal_moves(st), 10**6, 0)))
    ev = player.evidence
    assert ev is not None
    canasta = ev.texts.index("meld Q Q Q Q Q Q Q")
    assert all(o.canastas >= 1 for o in ev.outcomes[canasta])
    kept = ev.texts.index("discard 4")  # the turn ends with the queens in hand
    assert all(o.canastas == 0 for o in ev.outcomes[kept])
