"""Evaluation in one call (``canasta_cli.tournament.evaluate``): the numbers of a real
``canasta tournament`` on the same deals, a trained policy through ``as_player``, and clear
errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from canasta_cli.__main__ import app
from canasta_cli.players import GreedyPlayer
from canasta_cli.tournament.evaluate import EvalOptions, evaluate

runner = CliRunner()


def _tournament(out: Path, rules: str, deals: int, seed: int) -> tuple[dict[str, Any],
                                                                       list[dict[str, Any]]]:
    result = runner.invoke(app, ["tournament", "--bot", "greedy=builtin:greedy",
                                 "--bot", "random=builtin:random", "--games", str(deals),
                                 "--seed", str(seed), "--rules", rules, "--set", "max_hands=1",
                                 "--concurrency", "1", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    return json.loads((out / "results.json").read_text()), rows


@pytest.mark.parametrize("rules, deals, seed", [("two-player", 3, 5), ("classic", 2, 8)])
def test_evaluate_gives_the_numbers_of_canasta_tournament(rules: str, deals: int, seed: int,
                                                          tmp_path: Path) -> None:
    """``builtin:greedy`` against ``builtin:random``: the same games (seeds, seatings,
    scores) and the same standing for greedy: mean difference, its 95% interval, wins,
    losses, draws, Elo.  A player made in-process (``GreedyPlayer``) plays the same."""
    results, rows = _tournament(tmp_path / "t", rules, deals, seed)
    got = evaluate("greedy=builtin:greedy", "random=builtin:random", deals=deals, seed=seed,
                   rules=rules)
    standing = next(s for s in results["standings"] if s["bot"] == "greedy")
    assert got.names == ("greedy", "random") and got.games == results["games"] == len(rows)
    assert {(r["key"], r["seed"], tuple(r["scores"])) for r in got.rows} == {
        (r["key"], r["seed"], tuple(r["scores"])) for r in rows}
    assert (got.mean_diff, got.ci95, got.wins, got.losses, got.draws) == (
        standing["mean_diff"], standing["ci95"], standing["wins"], standing["losses"],
        standing["draws"])
    assert (got.elo, got.elo_low, got.elo_high) == (
        standing["elo"], standing["elo_low"], standing["elo_high"])
    assert len(got.diffs) == deals == standing["deals"]
    assert sum(got.diffs) / deals == pytest.approx(got.mean_diff)
    assert sum(got.failures.values()) == 0
    made = evaluate(GreedyPlayer, "random=builtin:random", deals=deals, seed=seed,
                    rules=rules, options=EvalOptions(names=("greedy", "random")))
    assert made.diffs == got.diffs and made.wins == got.wins


def test_a_policy_plays_through_as_player() -> None:
    np = pytest.importorskip("numpy")
    from canasta_cli.env import as_player

    def last(observation: Any, mask: Any) -> int:
        return int(np.flatnonzero(mask)[-1])

    got = evaluate(lambda: as_player(last), "builtin:random", deals=2, seed=1,
                   rules="two-player")
    assert got.names == ("player", "opponent") and got.games == 4
    assert got.wins + got.losses + got.draws == 4 and len(got.diffs) == 2
    assert sum(got.failures.values()) == 0


def test_bad_arguments_are_refused() -> None:
    for args, message in ((("builtin:nosuch",), "unknown built-in"),
                          ((lambda o, m: 0,), "function of no arguments"),
                          (("a=builtin:random", "a=builtin:greedy"), "different names")):
        with pytest.raises(ValueError, match=message):
            evaluate(*args, deals=1)
    with pytest.raises(ValueError, match="deals must be"):
        evaluate("builtin:random", deals=0)
