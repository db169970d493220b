"""The tournament's results: JSON, CSV and a printed table."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

from ..core import Ruleset
from ..protocol.statuses import FAILURES
from ..util.private_files import write_private
from ..util.safetext import csv_text, visible
from .runner import RunState, TournamentPlan, counted_rows, outcome
from .runner import outcomes as game_outcomes
from .stats import Sprt, SprtTally, cross_table, elo_with_error, standings, variance_saving
from .threes import MEANING, places


# PLR0913: cli/tournament.py passes these positionally; its signature waits for that file's
# rewrite (issue 47: the tournament's plan in their place).
def summarize(state: RunState, plan: TournamentPlan) -> dict[str, Any]:
    """results.json of the games played so far under ``plan``."""
    bots, rules, fmt, deals, seed, sprt = (plan.bots, plan.rules, plan.fmt, plan.deals,
                                           plan.seed, plan.sprt)
    rows = counted_rows(state)
    outcomes = [o for r in rows for o in game_outcomes(r, rules)]
    names = list(bots)
    stand = standings(outcomes, names)
    failures: dict[str, dict[str, int]] = {n: dict.fromkeys(FAILURES, 0) for n in names}
    for r in rows:
        for seat, counts in enumerate(r["failures"]):
            for status, k in counts.items():
                failures[r["seating"][seat]][status] = failures[r["seating"][seat]].get(
                    status, 0) + k
    for row in stand:
        row["failures"] = failures[row["bot"]]
    result: dict[str, Any] = {
        "bots": bots, "format": fmt, "deals_per_pairing": deals, "seed": seed,
        "rules": rules.to_dict(), "games": len(rows), "standings": stand,
        "cross_table": cross_table(outcomes, names),
        "duplicate": variance_saving(outcomes),
        "deals": deals_won(outcomes),
    }
    threes = places(rows, rules, names)
    if threes:
        result["tables_of_three"] = {"meaning": MEANING, "places": threes}
    if sprt is not None:
        result["sprt"] = {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha,
                          "beta": sprt.beta, "unit": sprt.unit,
                          "decision": state.stopped_by_sprt, "after_games": len(rows),
                          "after_deals": len({(tuple(r["pair"]), r["deal"]) for r in rows}),
                          "llr": round(_sprt_llr(rows, rules, sprt), 3),
                          "lower": round(sprt.bounds[0], 3),
                          "upper": round(sprt.bounds[1], 3)}
    return result


def _signed(x: float) -> str:
    """``+12``, ``-3``, ``0`` (never ``-0`` or ``+0``)."""
    if not math.isfinite(x):
        return f"{x:+}"
    v = round(x)
    return "0" if v == 0 else f"{v:+d}"


DEAL_RULE = ("a duplicate deal is won by the bot whose score differences over all the deal's"
             " seatings add up to more than zero; a deal that adds up to zero is tied and"
             " counts half")


def _sprt_llr(rows: list[dict[str, Any]], rules: Ruleset, sprt: Sprt) -> float:
    """The test statistic where the test stands (as runner._check_sprt counts, in schedule
    order)."""
    tally = SprtTally(sprt.unit)
    for i, row in enumerate(rows):
        o = outcome(row, rules)
        last = i + 1 == len(rows) or rows[i + 1]["deal"] != row["deal"] \
            or rows[i + 1]["pair"] != row["pair"]
        tally.add(o.diff, o.result, last)
    return sprt.llr(tally.wins, tally.losses)


def deals_won(outcomes: list[Any]) -> list[dict[str, Any]]:
    """Per pairing, the duplicate deals each bot won on its seatings together (the sum of its
    score differences over every seating of the deal), and the ties."""
    sums: dict[tuple[str, str], dict[tuple[tuple[str, ...], int], float]] = {}
    for o in outcomes:
        sums.setdefault(o.pair, {}).setdefault((o.table, o.deal), 0.0)
        sums[o.pair][(o.table, o.deal)] += o.diff
    out = []
    for (a, b), by_deal in sums.items():
        won_a = sum(1 for d in by_deal.values() if d > 0)
        won_b = sum(1 for d in by_deal.values() if d < 0)
        n = len(by_deal)
        elo, lo, hi = elo_with_error(won_a + 0.5 * (n - won_a - won_b), n)
        out.append({"pair": [a, b], "deals": n, a: won_a, b: won_b,
                    "tied": n - won_a - won_b, "elo": elo, "elo_low": lo, "elo_high": hi})
    return out


def _clean(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    return x


def _number(x: float, digits: int) -> float | str:
    """A statistic for a CSV cell: rounded, and empty where it is not a number (a 95% interval
    of one game, an Elo bound of no games): never ``inf`` or ``nan`` in a spreadsheet."""
    return round(x, digits) if math.isfinite(x) else ""


def _csv(rows: list[list[Any]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    for row in rows:
        w.writerow([csv_text(c) if isinstance(c, str) else c for c in row])
    return buf.getvalue()


def write(summary: dict[str, Any], out: Path) -> None:
    """results.json, standings.csv and crosstable.csv: each a new owner-only file put in
    place whole (files.write_private); bot names in the CSV files are text, never formulas."""
    write_private(out / "results.json", json.dumps(_clean(summary), indent=2) + "\n")
    rows: list[list[Any]] = [["bot", "games", "wins", "draws", "losses", "points", "mean_diff",
                              "ci95", "elo", "elo_low", "elo_high", *FAILURES]]
    for s in summary["standings"]:
        rows.append([s["bot"], s["games"], s["wins"], s["draws"], s["losses"], s["points"],
                     _number(s["mean_diff"], 2), _number(s["ci95"], 2), _number(s["elo"], 1),
                     _number(s["elo_low"], 1), _number(s["elo_high"], 1),
                     *(s["failures"][k] for k in FAILURES)])
    write_private(out / "standings.csv", _csv(rows))
    names = [s["bot"] for s in summary["standings"]]
    table: list[list[Any]] = [["", *names]]
    for a in names:
        cells = []
        for b in names:
            c = summary["cross_table"][a].get(b)
            cells.append("" if c is None else f"{c['points']:g}/{c['games']}")
        table.append([a, *cells])
    write_private(out / "crosstable.csv", _csv(table))


def render(summary: dict[str, Any]) -> str:
    per = "table of three" if summary.get("tables_of_three") else "pairing"
    lines = [f"{summary['games']} games, {summary['format']}, {summary['deals_per_pairing']}"
             f" duplicate deals per {per}, seed {summary['seed']}"]
    lines.append(f"{'bot':<16}{'games':>6}{'W-D-L':>12}{'diff/deal':>11}{'95% CI':>10}"
                 f"{'Elo':>7}{'Elo 95%':>16}  failures")
    for s in sorted(summary["standings"], key=lambda r: -r["points"]):
        ci = f"+-{s['ci95']:.0f}" if math.isfinite(s["ci95"]) else "n/a"
        fails = ", ".join(f"{k} {v}" for k, v in s["failures"].items() if v) or "-"
        wdl = f"{s['wins']}-{s['draws']}-{s['losses']}"
        elo_ci = f"[{_signed(s['elo_low'])}, {_signed(s['elo_high'])}]"
        lines.append(f"{visible(s['bot']):<16}{s['games']:>6}{wdl:>12}"
                     f"{_signed(s['mean_diff']):>11}{ci:>10}"
                     f"{_signed(s['elo']):>7}{elo_ci:>16}  {fails}")
    names = [s["bot"] for s in summary["standings"]]
    shown = {n: visible(n) for n in names}
    lines.append("cross table (row's points against column):")
    lines.append(" " * 16 + "".join(f"{shown[n][:10]:>12}" for n in names))
    for a in names:
        cells = []
        for b in names:
            c = summary["cross_table"][a].get(b)
            cell = "-" if c is None else f"{c['points']:g}/{c['games']}"
            cells.append(f"{cell:>12}")
        lines.append(f"{shown[a]:<16}" + "".join(cells))
    dup = summary["duplicate"]
    if math.isfinite(dup["factor"]):
        lines.append(f"duplicate deals: variance of the mean difference {dup['paired_var']:.0f}"
                     f" against {dup['unpaired_var']:.0f} unpaired, {dup['factor']:.1f}x fewer"
                     " games for the same precision")
    both = "all its seatings" if summary.get("tables_of_three") else "both seatings"
    for d in summary.get("deals", []):
        a, b = d["pair"]
        share = (d[a] + 0.5 * d["tied"]) / d["deals"] if d["deals"] else 0.0
        lines.append(f"deals won, {both} together: {visible(a)} {d[a]}, {visible(b)}"
                     f" {d[b]}, tied {d['tied']} of {d['deals']} ({visible(a)}: {share:.0%};"
                     f" Elo on deals {_signed(d['elo'])} [{_signed(d['elo_low'])},"
                     f" {_signed(d['elo_high'])}])")
    if summary.get("deals"):
        lines.append(f"({DEAL_RULE}.)")
    threes = summary.get("tables_of_three")
    if threes:
        lines.append("at the tables of three, each bot's places (games won first):")
        for p in threes["places"]:
            lines.append(f"  {visible(p['bot']):<14}{p['games']:>6} games: first {p['first']},"
                         f" second {p['second']}, third {p['third']}; mean score"
                         f" {p['mean_score']:.0f}")
        lines.append(f"({threes['meaning']}.)")
    if "sprt" in summary:
        s = summary["sprt"]
        verdict = {"H1": f"the first bot is stronger (Elo +{s['elo1']:g} accepted)",
                   "H0": f"no gain of {s['elo1']:g} Elo (H0 accepted)",
                   None: "undecided when the games ran out"}[s["decision"]]
        unit = s.get("unit", "game")
        on = "on games" if unit == "game" else f"on deals won over {both}"
        llr = (f"; LLR {s['llr']:.2f} ({s['lower']:.2f}, {s['upper']:.2f})"
               if all(isinstance(s.get(k), int | float) for k in ("llr", "lower", "upper"))
               else "")
        lines.append(f"SPRT {on}: {verdict} after {s['after_games']} games"
                     f" ({s.get('after_deals', '?')} deals){llr}")
        if threes:
            lines.append("(at a table of three the SPRT compares the first bot with the"
                         " second, on their encounters; the third plays in every seating)")
    return "\n".join(lines)
