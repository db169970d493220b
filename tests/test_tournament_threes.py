"""Tournaments at tables of three: six players in three partnerships, each bot one
partnership, in every assignment of the bots to the partnerships per duplicate deal."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from canasta_cli.core import PRESETS
from canasta_cli.tournament.runner import outcomes
from canasta_cli.tournament.schedule import default_table, schedule, table_seatings
from canasta_cli.tournament.stats import standings
from canasta_cli.tournament.threes import encounter, places

ROOT = Path(__file__).resolve().parent.parent
PAIRS = PRESETS["six-player-pairs"]


def test_a_table_of_three_plays_every_assignment_to_the_partnerships() -> None:
    seats = table_seatings(PAIRS, ("a", "b", "c"))
    assert len(seats) == len(set(seats)) == 6
    assert {tuple(s[i] for i in range(3)) for s in seats} == set(
        itertools.permutations("abc"))
    for s in seats:
        assert all(s[i] == s[i + 3] for i in range(3))  # partners opposite: one bot
    for bot in "abc":
        # Each bot holds each partnership's cards twice, once with each other bot on its left.
        assert Counter(s.index(bot) for s in seats) == {0: 2, 1: 2, 2: 2}
        assert Counter(s[(s.index(bot) + 1) % 6] for s in seats) == {
            o: 3 for o in "abc" if o != bot}


def test_the_schedule_groups_bots_in_threes() -> None:
    assert default_table(PAIRS, 3) == "threes"
    assert default_table(PAIRS, 2) == default_table(PRESETS["classic"], 3) == "pairs"
    tasks = schedule(["a", "b", "c"], "round-robin", 2, PAIRS, 7, "threes")
    assert len(tasks) == 12 and {t.pair for t in tasks} == {("a", "b", "c")}
    assert len({t.seed for t in tasks if t.deal == 0}) == 1  # one deal, six seatings
    assert len({t.key for t in tasks}) == 12
    four = schedule(list("abcd"), "round-robin", 1, PAIRS, 7, "threes")
    assert sorted({t.pair for t in four}) == list(itertools.combinations("abcd", 3))
    gauntlet = schedule(list("abcd"), "gauntlet", 1, PAIRS, 7, "threes")
    assert {t.pair for t in gauntlet} == {("a", "b", "c"), ("a", "b", "d"), ("a", "c", "d")}
    # Pairs keep their old keys and seeds (resumed tournaments, pinned results).
    old = schedule(["a", "b"], "round-robin", 1, PAIRS, 7)
    assert old[0].key.startswith("a|b|0|") and len(old) == 6


def _row(seating: str, scores: list[int], winner: int | None, forfeit: int | None = None,
         deal: int = 0) -> dict[str, object]:
    return {"pair": ["a", "b", "c"], "deal": deal, "seating": list(seating * 2),
            "scores": scores, "winner": winner, "forfeit": forfeit}


def test_an_encounter_is_won_by_the_winner_or_else_by_the_higher_score() -> None:
    row = _row("abc", [3000, 5200, 800], 1)
    assert encounter(row, PAIRS, "a", "b").result == 0.0
    assert encounter(row, PAIRS, "b", "c").result == 1.0
    ac = encounter(row, PAIRS, "a", "c")
    assert ac.result == 1.0 and ac.diff == 2200 and ac.table == ("a", "b", "c")
    tied = _row("cab", [5200, 900, 900], 0)  # c won; a and b level
    assert encounter(tied, PAIRS, "a", "b").result == 0.5
    # A partnership that forfeits loses both its encounters, whatever its score.
    gone = _row("abc", [4000, 100, 200], 2, forfeit=3)
    assert encounter(gone, PAIRS, "a", "b").result == 0.0
    assert encounter(gone, PAIRS, "a", "c").result == 0.0
    assert encounter(_row("abc", [10, 20, 30], None), PAIRS, "a", "c").result == 0.5
    assert [o.pair for o in outcomes(row, PAIRS)] == [("a", "b"), ("a", "c"), ("b", "c")]


def test_standings_and_places_per_bot_match_a_direct_computation() -> None:
    rows = [_row("abc", [3000, 5200, 800], 1), _row("bca", [2000, 1000, 4000], 2),
            _row("cab", [100, 200, 300], 2, deal=1), _row("acb", [900, 700, 800], 0, deal=1)]
    outs = [o for r in rows for o in outcomes(r, PAIRS)]
    stand = {s["bot"]: s for s in standings(outs, ["a", "b", "c"])}
    assert stand["a"]["games"] == 8  # two encounters per game
    # a's diff per deal: its score minus the mean of the others', averaged over the seatings.
    a_deal0 = ((3000 - (5200 + 800) / 2) + (4000 - (2000 + 1000) / 2)) / 2
    a_deal1 = ((200 - (100 + 300) / 2) + (900 - (700 + 800) / 2)) / 2
    assert stand["a"]["deals"] == 2
    assert stand["a"]["mean_diff"] == pytest.approx((a_deal0 + a_deal1) / 2)
    assert sum(s["mean_diff"] for s in stand.values()) == pytest.approx(0)
    pl = {p["bot"]: p for p in places(rows, PAIRS, ["a", "b", "c"])}
    assert (pl["a"]["first"], pl["a"]["second"], pl["a"]["third"]) == (2, 2, 0)
    assert pl["b"]["mean_score"] == (5200 + 2000 + 300 + 800) / 4
    assert all(p["first"] + p["second"] + p["third"] == 4 for p in pl.values())


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "canasta_cli.cli", *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)


THREE = ["-b", "g=builtin:greedy", "-b", "r=builtin:random", "-b", "e=builtin:easy"]


def test_a_three_bot_tournament_reports_per_bot_and_resumes(tmp_path: Path) -> None:
    args = ["tournament", "-r", "six-player-pairs", *THREE, "--games", "2", "--set",
            "max_hands=1", "--concurrency", "1", "--seed", "4", "--sprt", "--out",
            str(tmp_path)]
    done = _cli(*args)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(x) for x in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert len(rows) == 12 and all(r["pair"] == ["g", "r", "e"] for r in rows)
    for deal in (0, 1):
        seatings = {tuple(r["seating"][:3]) for r in rows if r["deal"] == deal}
        assert seatings == set(itertools.permutations("gre"))
    data = json.loads((tmp_path / "results.json").read_text())
    assert {s["bot"]: s["games"] for s in data["standings"]} == {"g": 24, "r": 24, "e": 24}
    places_ = data["tables_of_three"]["places"]
    assert [p["games"] for p in places_] == [12, 12, 12]
    assert sum(p["first"] for p in places_) >= 12  # one winner a game, or level firsts
    assert data["sprt"]["after_deals"] == 2
    assert "duplicate deals per table of three" in done.stdout
    assert "each bot's places" in done.stdout
    assert "the SPRT compares the first bot with the second" in done.stdout
    again = _cli(*args)  # the same command resumes: nothing left to play, the same result
    assert again.returncode == 0, again.stderr
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 12
    assert json.loads((tmp_path / "results.json").read_text())["standings"] == data["standings"]
    report = _cli("report", str(tmp_path), "--html", str(tmp_path / "report.html"))
    assert report.returncode == 0, report.stderr
    assert 'id="places"' in (tmp_path / "report.html").read_text()
    text = _cli("report", str(tmp_path))
    assert text.returncode == 0 and "each bot's places" in text.stdout, text.stderr
    # A damaged summary is shown as far as it goes, never a traceback.
    data["tables_of_three"] = {"places": [{"bot": "g", "games": "x"}, 7], "meaning": 3}
    (tmp_path / "results.json").write_text(json.dumps(data))
    damaged = _cli("report", str(tmp_path))
    assert damaged.returncode == 0 and "Traceback" not in damaged.stderr, damaged.stderr


def test_tables_of_three_are_refused_clearly_where_they_do_not_fit(tmp_path: Path) -> None:
    classic = _cli("tournament", *THREE, "--table", "threes", "--out", str(tmp_path / "a"))
    assert classic.returncode == 2 and "three sides" in classic.stderr
    four = _cli("tournament", "-r", "six-player-pairs", *THREE, "-b", "n=builtin:normal",
                "--sprt", "--out", str(tmp_path / "b"))
    assert four.returncode == 2 and "exactly three" in four.stderr
    pairs = _cli("tournament", "-r", "six-player-pairs", *THREE, "--table", "pairs", "--games",
                 "1", "--set", "max_hands=1", "--concurrency", "1", "--out", str(tmp_path / "c"))
    assert pairs.returncode == 0, pairs.stderr
    rows = [json.loads(x) for x in (tmp_path / "c" / "games.jsonl").read_text().splitlines()]
    assert len(rows) == 18 and all(len(r["pair"]) == 2 for r in rows)  # 3 pairings x 6
