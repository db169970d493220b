"""Tournaments: duplicate scheduling, determinism, resuming, failures, statistics, Dask."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from canasta_cli.core import PRESETS
from canasta_cli.tournament.runner import (
    InlineExecutor,
    LocalExecutor,
    TournamentPlan,
    counted_rows,
    outcome,
    run_tournament,
)
from canasta_cli.tournament.schedule import schedule, seatings
from canasta_cli.tournament.stats import (
    GameOutcome,
    Sprt,
    cross_table,
    elo_with_error,
    mean_ci,
    standings,
    variance_saving,
)

ROOT = Path(__file__).resolve().parent.parent
ONE_HAND = PRESETS["classic"].with_options(max_hands=1)
BUILTIN = {"greedy": "builtin:greedy", "random": "builtin:random"}


@pytest.mark.parametrize(("name", "count"), [("classic", 2), ("six-player", 2),
                                             ("two-player", 2), ("three-player", 6),
                                             ("three-player-cutthroat", 6)])
def test_duplicate_seatings_cover_every_seating(name: str, count: int) -> None:
    rules = PRESETS[name]
    seats = seatings(rules, "A", "B")
    assert len(seats) == count == len(set(seats))
    for s in seats:
        assert "A" in s and "B" in s and len(s) == rules.players
    if rules.partnerships:
        # Each bot holds a whole side, and each side's cards go to each bot once.
        for s in seats:
            assert len({s[i] for i in rules.seats_of(0)}) == 1
        assert {s[0] for s in seats} == {"A", "B"}
    else:
        # Every seat is held by each bot in some seating.
        for seat in range(rules.players):
            assert {s[seat] for s in seats} == {"A", "B"}


def test_schedule_is_a_pure_function_of_its_inputs() -> None:
    a = schedule(["x", "y", "z"], "round-robin", 3, PRESETS["classic"], 7)
    b = schedule(["x", "y", "z"], "round-robin", 3, PRESETS["classic"], 7)
    assert a == b and len(a) == 3 * 3 * 2
    by_deal: dict[tuple[tuple[str, ...], int], set[int]] = {}
    for t in a:
        by_deal.setdefault((t.pair, t.deal), set()).add(t.seed)
    assert all(len(seeds) == 1 for seeds in by_deal.values())  # same cards in every seating
    assert len({next(iter(s)) for s in by_deal.values()}) == len(by_deal)
    g = schedule(["x", "y", "z"], "gauntlet", 1, PRESETS["classic"], 7)
    assert {t.pair for t in g} == {("x", "y"), ("x", "z")}


def test_statistics_agree_with_a_direct_computation() -> None:
    outs = [GameOutcome(("a", "b"), 0, 100.0, 1.0), GameOutcome(("a", "b"), 0, -40.0, 0.0),
            GameOutcome(("a", "b"), 1, 300.0, 1.0), GameOutcome(("a", "b"), 1, 20.0, 1.0),
            GameOutcome(("a", "b"), 2, -50.0, 0.5), GameOutcome(("a", "b"), 2, -10.0, 0.0)]
    deal_means = [30.0, 160.0, -30.0]
    m = sum(deal_means) / 3
    var = sum((x - m) ** 2 for x in deal_means) / 2
    got_m, got_half = mean_ci(deal_means)
    assert got_m == pytest.approx(m) and got_half == pytest.approx(1.959964 * math.sqrt(var / 3),
                                                                    rel=1e-5)
    rows = {r["bot"]: r for r in standings(outs, ["a", "b"])}
    assert rows["a"]["points"] == 3.5 and rows["a"]["wins"] == 3 and rows["a"]["draws"] == 1
    assert rows["a"]["mean_diff"] == pytest.approx(m)
    assert rows["b"]["mean_diff"] == pytest.approx(-m)
    games = [100, -40, 300, 20, -50, -10]
    gm = sum(games) / 6
    gvar = sum((x - gm) ** 2 for x in games) / 5
    vs = variance_saving(outs)
    assert vs["unpaired_var"] == pytest.approx(gvar / 6)
    assert vs["paired_var"] == pytest.approx(var / 3)
    elo, lo, hi = elo_with_error(3.5, 6)
    assert elo == pytest.approx(-400 * math.log10(6 / 3.5 - 1))
    assert lo < elo < hi
    assert elo_with_error(5, 10)[0] == pytest.approx(0.0)
    ct = cross_table(outs, ["a", "b"])
    assert ct["a"]["b"] == {"points": 3.5, "games": 6} and ct["b"]["a"]["points"] == 2.5


def test_sprt_matches_the_textbook_bounds() -> None:
    t = Sprt(elo0=0, elo1=50, alpha=0.05, beta=0.05)
    lower, upper = t.bounds
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and upper == pytest.approx(
        math.log(0.95 / 0.05))
    p1 = 1 / (1 + 10 ** (-50 / 400))
    assert t.llr(10, 3) == pytest.approx(10 * math.log(p1 / 0.5) + 3 * math.log((1 - p1) / 0.5))
    assert t.decide(60, 10) == "H1" and t.decide(10, 60) == "H0" and t.decide(3, 2) is None
    with pytest.raises(ValueError, match="expected game or deal"):
        Sprt(unit="hand")


def _run(out: Path, k: int, bots: dict[str, str] = BUILTIN, deals: int = 4, sprt=None):  # type: ignore[no-untyped-def]
    ex = LocalExecutor(k) if k > 1 else InlineExecutor()
    try:
        return run_tournament(TournamentPlan(bots, "round-robin", deals, ONE_HAND, 11, out, k, sprt),
                              ex)
    finally:
        ex.close()


def _strip(rows: list[dict]) -> list[dict]:  # type: ignore[type-arg]
    return [{k: v for k, v in r.items()} for r in rows]


def test_same_seed_same_results_with_concurrency_1_and_2(tmp_path: Path) -> None:
    one = counted_rows(_run(tmp_path / "one", 1))
    two = counted_rows(_run(tmp_path / "two", 2))
    assert _strip(one) == _strip(two) and len(one) == 8


def test_interrupted_and_resumed_run_matches_an_uninterrupted_one(tmp_path: Path) -> None:
    full = counted_rows(_run(tmp_path / "full", 1, deals=5))
    part = tmp_path / "part"
    part.mkdir()
    lines = (tmp_path / "full" / "games.jsonl").read_text().splitlines()
    # Half the games finished, the last line cut off mid-write by the interruption.
    (part / "games.jsonl").write_text("\n".join(lines[:4]) + "\n" + lines[4][:30])
    resumed = counted_rows(_run(part, 2, deals=5))
    assert _strip(resumed) == _strip(full)


def test_killed_cli_run_resumes_to_the_same_result(tmp_path: Path) -> None:
    """Killed (SIGKILL) with some games done and others under way, the same command resumes
    and ends with the result of a run never killed.  The bot holds every game after the 4th
    at a gate (tests/bots/gated.py), by game number: when the kill comes, the first two deals
    (games 1-4) are done and recorded, and games 5 and 6 (the third deal's two seatings, one
    per worker) are held, whatever the machine's load.  (A gate by the order in which the
    bots reach it would let two games that start together share out the last places, so
    that only one deal was done and recorded.)"""
    gate = tmp_path / "gate"
    gate.mkdir()
    (gate / "limit").write_text("4")
    bot = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'gated.py'} {gate}"
    args = [sys.executable, "-m", "canasta_cli.cli", "tournament", "--bot", "g=builtin:greedy",
            "--bot", f"gbot={bot}", "--games", "6", "--concurrency", "2", "--set",
            "max_hands=1", "--seed", "3", "--decision-ms", "600000", "--bank-ms", "600000",
            "--bot-writable", str(gate)]  # the box lets the bot mark its held games there
    (gate / "open").touch()
    reference = subprocess.run([*args, "--out", str(tmp_path / "ref")], cwd=ROOT,
                               capture_output=True, text=True, timeout=300)
    assert reference.returncode == 0, reference.stderr
    assert not list(gate.glob("held-*"))
    (gate / "open").unlink()
    proc = subprocess.Popen([*args, "--out", str(tmp_path / "cut")], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    games = tmp_path / "cut" / "games.jsonl"

    def held_games() -> set[str]:
        return {p.name.split("-")[1] for p in gate.glob("held-*")}

    try:
        deadline = time.monotonic() + 300  # a hang guard only
        # Games 5 and 6 at the gate (each held by its bot seat asked first: a seat reads
        # game_start with its first request).
        while not (games.exists() and len(games.read_text().splitlines()) >= 4
                   and held_games() == {"5", "6"}):
            assert proc.poll() is None and time.monotonic() < deadline, (
                f"the run stopped early or hung: {sorted(p.name for p in gate.iterdir())},"
                f" {len(games.read_text().splitlines()) if games.exists() else 0} rows")
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert held_games() == {"5", "6"}
    rows = [json.loads(line) for line in games.read_text().splitlines()]
    assert sorted(r["index"] for r in rows) == [0, 1, 2, 3]
    (gate / "open").touch()
    again = subprocess.run([*args, "--out", str(tmp_path / "cut")], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    ref = json.loads((tmp_path / "ref" / "results.json").read_text())
    cut = json.loads((tmp_path / "cut" / "results.json").read_text())
    # The bots here are deterministic, so the whole result must match.
    assert cut["standings"] == ref["standings"] and cut["games"] == ref["games"] == 12


def test_a_crashing_bot_is_counted_not_fatal(tmp_path: Path) -> None:
    bots = {"greedy": "builtin:greedy",
            "exiter": f"{sys.executable} {ROOT / 'tests' / 'bots' / 'broken.py'} exiter"}
    state = _run(tmp_path, 2, bots, deals=2)
    rows = counted_rows(state)
    assert len(rows) == 4
    from canasta_cli.tournament import report
    summary = report.summarize(state, TournamentPlan(bots, "round-robin", 2, ONE_HAND, 11, tmp_path))
    fails = {s["bot"]: s["failures"] for s in summary["standings"]}
    assert fails["exiter"]["CRASHED"] >= 1 and fails["greedy"]["CRASHED"] == 0


def test_sprt_stops_early_the_same_way_at_any_concurrency(tmp_path: Path) -> None:
    test = Sprt(elo1=100)
    a = _run(tmp_path / "a", 1, deals=60, sprt=test)
    b = _run(tmp_path / "b", 2, deals=60, sprt=test)
    assert a.stopped_by_sprt == b.stopped_by_sprt == "H1"
    assert a.sprt_at == b.sprt_at and a.sprt_at is not None and a.sprt_at < 119
    assert _strip(counted_rows(a)) == _strip(counted_rows(b))


def test_sprt_on_deals_counts_each_deal_once_by_its_seatings_together(tmp_path: Path) -> None:
    """The deal unit: a deal is won or lost on the sum of its seatings' score differences, and
    the test stops at the first deal where the direct log-likelihood ratio crosses a bound."""
    test = Sprt(elo1=100, unit="deal")
    state = _run(tmp_path / "d", 1, deals=60, sprt=test)
    assert state.stopped_by_sprt == "H1" and state.sprt_at is not None
    rows = counted_rows(state)
    assert rows[-1]["index"] == state.sprt_at
    sums: dict[int, float] = {}
    for r in rows:
        o = outcome(r, ONE_HAND)
        sums[o.deal] = sums.get(o.deal, 0.0) + o.diff
    wins = losses = 0
    from canasta_cli.tournament import report
    crossed = None
    for i, deal in enumerate(dict.fromkeys(r["deal"] for r in rows)):
        wins += sums[deal] > 0
        losses += sums[deal] < 0
        if test.decide(wins, losses) and crossed is None:
            crossed = i
    assert crossed == len(sums) - 1  # it stopped at the first deal that decided, not later
    summary = report.summarize(state, TournamentPlan(BUILTIN, "round-robin", 60, ONE_HAND, 11,
                                                     tmp_path, sprt=test))
    assert summary["sprt"]["unit"] == "deal" and summary["sprt"]["after_deals"] == len(sums)
    text = report.render(summary)
    assert "SPRT on deals won over both seatings: the first bot is stronger" in text
    assert "Elo on deals" in text


def test_a_cutthroat_tournament_plays_every_seating(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from canasta_cli.__main__ import app
    result = CliRunner().invoke(app, ["tournament", "--bot", "g=builtin:greedy", "--bot",
                                      "r=builtin:random", "--rules", "three-player-cutthroat",
                                      "--games", "1", "--set", "max_hands=1", "--seed", "2",
                                      "--concurrency", "1", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(x) for x in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and {tuple(r["seating"]) for r in rows} == set(
        seatings(PRESETS["three-player-cutthroat"], "g", "r"))
    assert all(len(r["scores"]) == 3 for r in rows)


def test_cli_writes_json_csv_and_a_table(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from canasta_cli.__main__ import app
    result = CliRunner().invoke(app, ["tournament", "--bot", "greedy=builtin:greedy", "--bot",
                                      "random=builtin:random", "--games", "3", "--out",
                                      str(tmp_path), "--set", "max_hands=1", "--concurrency",
                                      "1", "--sprt", "--elo1", "200"])
    assert result.exit_code == 0, result.output
    assert "cross table" in result.output and "duplicate deals:" in result.output
    assert "SPRT on games:" in result.output
    data = json.loads((tmp_path / "results.json").read_text())
    assert {s["bot"] for s in data["standings"]} == {"greedy", "random"}
    assert (tmp_path / "standings.csv").read_text().startswith("bot,games,wins")
    assert "greedy" in (tmp_path / "crosstable.csv").read_text()
    bad = CliRunner().invoke(app, ["tournament", "--bot", "x", "--out", str(tmp_path)])
    assert bad.exit_code == 2 and "NAME=COMMAND" in bad.output
    unit = CliRunner().invoke(app, ["tournament", "--bot", "a=builtin:greedy", "--bot",
                                    "b=builtin:random", "--sprt", "--sprt-unit", "hand",
                                    "--out", str(tmp_path / "u")])
    assert unit.exit_code == 2 and "expected game or deal" in unit.output


def test_dask_local_cluster_gives_the_same_results(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    from canasta_cli.tournament.cluster import DaskExecutor
    bots = {**BUILTIN, "gbot": f"{sys.executable} {ROOT / 'bots' / 'greedy_bot.py'}"}
    # Two deals: every pairing in both seatings (12 games), each a game the workers run at
    # once; more deals of the same pairings would prove nothing more about the executor.
    local = counted_rows(_run(tmp_path / "local", 1, bots, deals=2))
    # One worker process running two games at once in threads, as `dask worker` does.
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        ex = DaskExecutor(cluster.scheduler_address, client=distributed.Client(cluster))
        try:
            state = run_tournament(TournamentPlan(bots, "round-robin", 2, ONE_HAND, 11,
                                                  tmp_path / "dask", 2), ex)
        finally:
            ex.close()
    rows = counted_rows(state)
    assert _strip(rows) == _strip(local) and len(rows) == 12
    assert all(not any(f for f in r["failures"]) for r in rows)
