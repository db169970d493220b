"""``canasta report DIR``: the report as text, fitted to the terminal's width.

The standings and cross table are the tournament's own table (``report.render``); the plots
become one line each per bot, pairing or test.  Strings from the files have their control
characters replaced, so that a bot's name cannot move the cursor or change colours."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from typing import Any

from ..tournament import report
from ..util.safetext import visible
from ..util.words import plural
from .tourney import PLAY_COLUMNS, PLAY_LEGEND, Tourney, failed_games, play_cells, play_table

BLOCKS = " \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"


def wrap(text: str, width: int) -> str:
    """Each line longer than ``width`` wrapped between words, its indent kept and the
    continuation indented more; a word longer than the width (a path) is never cut."""
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        lead = len(line) - len(line.lstrip(" "))
        out += textwrap.wrap(line, width, subsequent_indent=" " * min(lead + 4, width // 3),
                             break_long_words=False, break_on_hyphens=False) or [line]
    return "\n".join(out)


def printable(obj: Any) -> Any:
    """``obj`` with every string's unprintable characters shown as '?'."""
    if isinstance(obj, str):
        return "".join(ch if ch.isprintable() else "?" for ch in obj)
    if isinstance(obj, dict):
        return {printable(k): printable(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [printable(v) for v in obj]
    return obj


def _finite(x: object, default: float) -> float:
    if isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x):
        return float(x)
    return default


def _summary_for_render(summary: dict[str, Any]) -> dict[str, Any]:
    """results.json as ``report.render`` expects it (it writes None for an infinite value)."""
    s: dict[str, Any] = printable(summary)
    for row in s["standings"]:
        for key, default in (("ci95", math.inf), ("elo_low", -math.inf), ("elo_high", math.inf)):
            row[key] = _finite(row.get(key), default)
        for key in ("mean_diff", "elo", "points"):
            row[key] = _finite(row.get(key), 0.0)
        row.setdefault("failures", {})
    dup = s.get("duplicate")
    if not isinstance(dup, dict) or not all(isinstance(dup.get(k), int | float)
                                            for k in ("factor", "paired_var", "unpaired_var")):
        s["duplicate"] = {"factor": math.inf, "paired_var": 0.0, "unpaired_var": 0.0}
    s["deals"] = [d for d in s.get("deals") or [] if isinstance(d, dict)
                  and all(isinstance(d.get(k), int | float) for k in ("elo", "elo_low",
                                                                     "elo_high", "deals"))]
    for d in s["deals"]:
        for key in ("elo_low", "elo_high"):
            d[key] = _finite(d.get(key), -math.inf if key == "elo_low" else math.inf)
    names = [str(r["bot"]) for r in s["standings"]]
    cross: dict[str, Any] = s["cross_table"] if isinstance(s.get("cross_table"), dict) else {}
    s["cross_table"] = {a: {b: c for b, c in (cross.get(a) or {}).items()
                            if isinstance(c, dict) and _finite(c.get("points"), math.nan)
                            == c.get("points")}
                        if isinstance(cross.get(a), dict) else {} for a in names}
    threes = s.get("tables_of_three")
    if isinstance(threes, dict) and isinstance(threes.get("places"), list):
        keys = ("games", "first", "second", "third", "mean_score")
        threes["places"] = [p for p in threes["places"] if isinstance(p, dict)
                            and all(_finite(p.get(k), math.nan) == p.get(k) for k in keys)]
        threes["meaning"] = str(threes.get("meaning", ""))
        for p in threes["places"]:
            p["bot"] = str(p.get("bot", "?"))
    else:
        s.pop("tables_of_three", None)
    s.setdefault("games", 0)
    s.setdefault("format", "?")
    s.setdefault("deals_per_pairing", "?")
    s.setdefault("seed", "?")
    return s


def bars(counts: Sequence[float]) -> str:
    """Counts as block characters from zero (a blank) to the largest (a full block)."""
    top = max(counts, default=0) or 1
    return "".join(BLOCKS[round(c / top * (len(BLOCKS) - 1))] for c in counts)


def spark(values: Sequence[float], width: int) -> str:
    """``values`` as one line of block characters from the lowest to the highest (averaged
    down to ``width``)."""
    if not values or width <= 0:
        return ""
    n = len(values)
    cols = min(width, n)
    means = []
    for c in range(cols):
        part = values[c * n // cols:max(c * n // cols + 1, (c + 1) * n // cols)]
        means.append(sum(part) / len(part))
    lo, hi = min(means), max(means)
    span = hi - lo or 1.0
    return "".join(BLOCKS[1 + round((m - lo) / span * (len(BLOCKS) - 2))] for m in means)


def _elo_lines(t: Tourney, width: int) -> list[str]:
    return elo_lines([(str(r["bot"]), _finite(r.get("elo"), 0.0),
                       _finite(r.get("elo_low"), -math.inf), _finite(r.get("elo_high"), math.inf))
                      for r in printable(t.summary["standings"])], width)


def elo_lines(rows: Sequence[tuple[str, float, float, float]], width: int) -> list[str]:
    """Each (name, Elo, low, high) as one line: the interval drawn across the width."""
    name_w = min(16, max((len(n) for n, *_ in rows), default=4))
    bar_w = max(10, width - name_w - 22)
    finite = [v for _, e, lo, hi in rows for v in (e, lo, hi) if math.isfinite(v)]
    lo_all, hi_all = min(finite, default=-100.0), max(finite, default=100.0)
    span = hi_all - lo_all or 1.0

    def col(v: float) -> int:
        v = min(max(v, lo_all), hi_all)
        return round((v - lo_all) / span * (bar_w - 1))

    out = [f"Elo with its 95% interval ({lo_all:+.0f} .. {hi_all:+.0f}):"]
    for name, elo, lo, hi in rows:
        line = [" "] * bar_w
        a, b = col(lo), col(hi)
        for i in range(a, b + 1):
            line[i] = "-"
        line[a] = "<" if not math.isfinite(lo) else "["
        line[b] = ">" if not math.isfinite(hi) else "]"
        line[col(elo)] = "*"
        out.append(f"  {name[:name_w]:<{name_w}} {''.join(line)} {elo:+.0f}")
    return out


def _diff_lines(t: Tourney, width: int) -> list[str]:
    out = ["Score difference per deal (first bot minus second), per pairing:"]
    for (a, b), ds in sorted(t.diffs.items()):
        ordered = sorted(ds)
        med = ordered[len(ordered) // 2]
        mean = sum(ds) / len(ds)
        bins = max(4, min(24, width // 4))
        lo, hi = ordered[0], ordered[-1]
        step = (hi - lo) / bins or 1.0
        counts = [0.0] * bins
        for d in ds:
            counts[min(bins - 1, int((d - lo) / step))] += 1
        out.append(f"  {printable(a)} v {printable(b)}: {plural(len(ds), 'deal')}, mean {mean:+.0f},"
                   f" median {med:+.0f}, from {lo:+.0f} to {hi:+.0f}")
        out.append(f"    {lo:+.0f} |{bars(counts)}| {hi:+.0f}")
    if not t.diffs:
        out.append("  no games yet")
    return out


def _sprt_lines(t: Tourney, width: int) -> list[str]:
    if t.sprt is None:
        return []
    lower, upper = t.sprt.bounds
    last = t.llr[-1][1] if t.llr else 0.0
    path = [v for _, v in t.llr]
    return [f"SPRT: LLR {last:.2f} ({lower:.2f}, {upper:.2f}) after {t.llr[-1][0] if t.llr else 0}"
            f" games; its path: {spark(path, max(10, width - 40))}"]


PLAY_NAME = 12  # columns for a bot's name in the statistics of play


def play_lines(t: Tourney) -> list[str]:
    """The statistics of play: a line per bot (79 columns), then what each column means; one
    line when no record was kept."""
    table = play_table(t)
    if table is None:
        return ["Statistics of play: none, they need the game records (tournament --records)"]
    unread = f"; {plural(table.unread, 'record')} unreadable" if table.unread else ""
    out = [f"Statistics of play, per hand (from the records of {plural(table.games, 'game')}"
           f"{unread}):",
           f"{'bot':<{PLAY_NAME}}" + "".join(f"{h:>{w}}" for h, _, w in PLAY_COLUMNS)]
    for bot, stats in table.bots:
        name = printable(bot)[:PLAY_NAME - 1]
        out.append(f"{name:<{PLAY_NAME}}" + "".join(
            f"{c:>{w}}" for c, (_, _, w) in zip(play_cells(stats), PLAY_COLUMNS, strict=True)))
    out.append(f"({PLAY_LEGEND}.)")
    return out


def _failure_lines(t: Tourney, width: int) -> list[str]:
    if not t.failures:
        return ["Failures: none"]
    out = [f"Failures ({len(t.failures)}):"]
    for f in t.failures[:50]:
        times = f" x{f.count}" if f.count > 1 else ""
        line = (f"  game {f.game + 1} seat {f.seat} {printable(f.bot)}: {printable(f.status)}"
                f"{times}: {printable(f.reason)}")
        keep = max(40, width * 2)
        out.append(line if len(line) <= keep else line[:keep - 3] + "...")
    if len(t.failures) > 50:
        out.append(f"  ... and {len(t.failures) - 50} more (the HTML report lists them all)")
    return out


MAX_GAMES_SHOWN = 20   # failed games shown in full (the HTML report shows more)
TAIL_LINES = 10        # lines of a failing bot's stderr shown


def _failed_game_lines(t: Tourney, width: int) -> list[str]:
    """Each game where a seat failed: each failing seat's reason, the end of its stderr and
    the ``canasta bot ask`` command that puts it the failing decision again, then the command
    that replays the game (from failures/game-NNNN.json and the record).  The commands are
    lines of their own, never wrapped, so that each is copied whole."""
    games = failed_games(t)
    if not games:
        return []
    out = ["Failed games (their reasons and stderr are kept in failures/, the records in"
           " records/):"]
    for g in games[:MAX_GAMES_SHOWN]:
        out.append(f"  game {g.game + 1}:")
        for s in g.seats:
            out += wrap(f"    seat {s.seat} {printable(s.bot)}: {printable(s.status)}:"
                        f" {printable(s.reason)}", width).split("\n")
            lines = s.stderr.splitlines()[-TAIL_LINES:]
            if lines:
                out.append("      the end of its stderr:")
                keep = max(20, width - 8)
                for line in lines:
                    shown = visible(line)
                    out.append("      | " + (shown if len(shown) <= keep
                                             else shown[:keep - 3] + "..."))
            if s.ask is not None:
                out.append(f"      put it that decision again (its decision {s.decision} in"
                           " the game):")
                out.append(printable(s.ask))
        if g.replay is not None:
            out.append("    replay the game:")
            out.append(printable(g.replay))
    if len(games) > MAX_GAMES_SHOWN:
        out.append(f"  ... and {len(games) - MAX_GAMES_SHOWN} more failed games (--html shows"
                   " more; failures/ holds each one)")
    return out


def report_text(t: Tourney, width: int) -> str:
    lines = [f"Tournament in {printable(str(t.folder))}"]
    lines += [f"warning: {printable(w)}" for w in t.warnings]
    lines.append(report.render(_summary_for_render(t.summary)))
    lines += _elo_lines(t, width)
    lines += _diff_lines(t, width)
    lines += _sprt_lines(t, width)
    lines += play_lines(t)
    lines += _failure_lines(t, width)
    if t.records:
        first = min(t.records)
        lines.append(f"{len(t.records)} of {len(t.rows)} games have a record; replay one with"
                     f" canasta replay {printable(str(t.records[first]))}")
    else:
        lines.append("no game records kept (tournament --records or --html keeps them)")
    failed = _failed_game_lines(t, width)  # not wrapped again: commands are pasted whole
    return "\n".join([wrap("\n".join(lines), width), *failed])
