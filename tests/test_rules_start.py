"""Games from any score (§7.1, §13): the minimums and the end of the game follow the totals."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from canasta_cli.__main__ import app
from canasta_cli.core import PRESETS, Ruleset, apply, legal_moves, new_game, observation
from canasta_cli.core.deal import shuffled_deck
from canasta_cli.core.events import HandStarted

runner = CliRunner()


def _expected_minimum(rules: Ruleset, score: int) -> int:
    if score < 0:
        return 15
    if rules.players == 6 and score >= 7500:
        return 150
    return 120 if score >= 3000 else 90 if score >= 1500 else 50


def _scores(rules: Ruleset, first: int) -> list[int]:
    return [first] + [0] * (rules.sides - 1)


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("score", [-5, 0, 1495, 1500, 2995, 3000, 4995, 7495, 7500, 9995])
def test_minimums_follow_the_starting_score(name: str, score: int) -> None:
    rules = PRESETS[name]
    if score >= rules.target:
        with pytest.raises(ValueError, match="already over"):
            new_game(rules, seed=1, scores=_scores(rules, score))
        return
    st = new_game(rules, seed=1, scores=_scores(rules, score))
    obs = observation(st, 0, history=False)
    assert obs["scores"] == _scores(rules, score)
    assert obs["minimums"][0] == _expected_minimum(rules, score)
    deal = next(e for e in st.events() if isinstance(e, HandStarted))
    assert deal.minimums[0] == _expected_minimum(rules, score)


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_game_ends_when_a_hand_takes_a_single_leader_past_the_target(name: str) -> None:
    rules = PRESETS[name].with_options(max_hands=5)
    outcomes = set()
    for seed in range(12):
        start = [rules.target - 5 - 1500 * (seed % 3)] + [rules.target - 3000] * (rules.sides - 1)
        st = new_game(rules, seed=seed, scores=start)
        rng = random.Random(seed)
        while st.hand_no == 1 and not st.is_over:
            st = apply(st, rng.choice(legal_moves(st)))
        best = max(st.scores)
        single = st.scores.count(best) == 1
        over = best >= rules.target and (single or rules.tie_policy == "draw")
        assert st.is_over == over, (seed, st.scores)
        if over:
            assert st.game_end_reason == ("target" if single else "draw")
            assert st.winner == (st.scores.index(best) if single else None)
        else:
            assert st.hand_no == 2  # the next hand is dealt, minimums from the new totals
            hs = [e for e in st.events() if isinstance(e, HandStarted)][-1]
            assert list(hs.minimums) == [_expected_minimum(rules, s) for s in st.scores]
        outcomes.add(over)
    assert outcomes == {True, False}


def test_a_tie_at_the_target_is_not_a_finished_game_when_play_goes_on() -> None:
    st = new_game(PRESETS["classic"], seed=1, scores=[5000, 5000])
    assert not st.is_over
    with pytest.raises(ValueError, match="draw"):
        new_game(PRESETS["classic"].with_options(tie_policy="draw"), seed=1,
                 scores=[5000, 5000])


def test_the_hand_number_sets_the_deck_and_max_hands_counts_from_there() -> None:
    rules = PRESETS["classic"].with_options(max_hands=1)
    st = new_game(rules, seed=9, hand_no=4, scores=[1200, 300])
    assert st.hand_no == 4
    deal = next(e for e in st.events() if isinstance(e, HandStarted))
    assert deal.hand_no == 4 and deal.deck == shuffled_deck(rules, 9, 4)
    rng = random.Random(1)
    while not st.is_over:
        st = apply(st, rng.choice(legal_moves(st)))
    assert len(st.results) == 1 and st.game_end_reason in ("hand_limit", "target")


@pytest.mark.parametrize(("scores", "message"), [
    ([1, 2, 3], "keeps 2 scores"),
    ([4994, 0], "multiple of 5"),
    ([True, 0], "whole number"),
    (["5", 0], "whole number"),
    ([10**9, 0], "between"),
    ([5005, 0], "already over"),
])
def test_bad_starting_scores_are_refused_clearly(scores: list[object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        new_game("classic", scores=scores)  # type: ignore[arg-type]


def test_position_from_scores_on_the_command_line() -> None:
    result = runner.invoke(app, ["position", "--scores", "4995,1200", "--json"])
    assert result.exit_code == 0, result.output
    obs = json.loads(result.output)["observation"]
    assert obs["scores"] == [4995, 1200] and obs["minimums"] == [120, 50]
    bad = runner.invoke(app, ["position", "--scores", "4995,12x"])
    assert bad.exit_code == 2 and "'12x' is not a whole number" in bad.output
    big = runner.invoke(app, ["position", "--scores", "9" * 5000 + ",0"])
    assert big.exit_code == 2 and "far too large" in big.output and len(big.output) < 300


def test_a_match_from_scores_records_them_and_replays(tmp_path: Path) -> None:
    result = runner.invoke(app, ["match", "-r", "two-player", "-s", "builtin:random", "-s",
                                 "builtin:random", "--scores", "4990,-300", "--hand", "3",
                                 "--seed", "4", "--record", str(tmp_path)])
    assert result.exit_code == 0, result.output
    record = tmp_path / "game-0001.jsonl"
    header = json.loads(record.read_text().splitlines()[0])
    assert header["start"] == {"scores": [4990, -300], "hand_no": 3}
    replayed = runner.invoke(app, ["replay", str(record)])
    assert replayed.exit_code == 0, replayed.output
    assert "=== hand 3:" in replayed.output and "minimums 120 / 15" in replayed.output


def test_a_saved_game_from_given_scores_resumes_with_them(tmp_path: Path) -> None:
    import subprocess
    import sys
    base = [sys.executable, "-m", "canasta_cli.cli", "play"]
    first = subprocess.run([*base, "--seed", "5", "--level", "normal", "--scores", "4000,100",
                            "--hand", "3", "--save-dir", str(tmp_path)], input="quit\n",
                           capture_output=True, text=True, timeout=120, check=False)
    assert first.returncode == 0, first.stderr
    assert "us 4000, needs 120 to meld" in first.stdout or "them 4000" in first.stdout
    save = next(tmp_path.glob("*.jsonl"))
    header = json.loads(save.read_text().splitlines()[0])
    assert header["start"] == {"scores": [4000, 100], "hand_no": 3}
    again = subprocess.run([*base, "--resume", str(save)], input="quit\n",
                           capture_output=True, text=True, timeout=120, check=False)
    assert again.returncode == 0, again.stderr
    assert "== Hand 3 - seat 0" in again.stdout and "4000" in again.stdout
