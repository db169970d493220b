"""``canasta report DIR --html OUT.html``: a tournament's report as one page (standings, cross
table, plots, failures, every game with a link to its replay page), and the replay pages
beside it.  No script: the page is markup and inline SVG, every string escaped."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from ..hosting.records import RecordError
from ..util.safetext import visible
from .htmlsafe import esc, page
from .replay_page import write_replay_page, write_text
from .svgplot import elo_plot, histogram, llr_plot
from .tourney import PLAY_COLUMNS, Tourney, failed_games, play_cells, play_table


def pages_dir(out: Path) -> Path:
    """Where the replay pages of the report ``out`` go: a folder beside it."""
    return out.with_name(out.stem + "-games")


def num(x: object, fmt: str = "{:+.0f}") -> str:
    if isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x):
        return fmt.format(x)
    return "n/a"


def _side_owner(t: Tourney, row: dict[str, Any], side: int) -> str:
    names = sorted({str(row["seating"][s]) for s in range(t.rules.players)
                    if t.rules.side_of(s) == side})
    return " & ".join(names)


def write_replays(t: Tourney, out: Path, warn: Callable[[str], None]) -> dict[int, str]:
    """A replay page for every game whose record was kept; the links, relative to ``out``."""
    links: dict[int, str] = {}
    folder = pages_dir(out)
    for index, record in sorted(t.records.items()):
        target = folder / f"game-{index + 1:04d}.html"
        try:
            write_replay_page(record, target)
        except RecordError as exc:
            warn(f"game {index + 1}: no replay page: {exc}")
            continue
        links[index] = os.path.relpath(target, out.parent)
    return links


def _table(head: list[str], rows: list[list[str]], ident: str, cls: str = "") -> str:
    """``rows`` hold markup already escaped."""
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return (f'<table id="{ident}" class="{cls}"><thead><tr>{th}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _standings(t: Tourney) -> str:
    rows = []
    ranked = sorted(t.summary["standings"], key=lambda r: -(r.get("points") or 0))
    for i, s in enumerate(ranked, start=1):
        fails = ", ".join(f"{esc(k)} {esc(v)}" for k, v in (s.get("failures") or {}).items()
                          if v) or "\u2013"
        ci = num(s.get("ci95"), "\u00b1{:.0f}")
        rows.append([str(i), f'<span class="bot">{esc(s["bot"])}</span>', num(s["games"], "{:d}")
                     if isinstance(s["games"], int) else esc(s["games"]),
                     f"{esc(s['wins'])}-{esc(s['draws'])}-{esc(s['losses'])}",
                     num(s["points"], "{:g}"), f"{num(s['mean_diff'])} {ci}", num(s["elo"]),
                     f"[{num(s['elo_low'])}, {num(s['elo_high'])}]", fails])
    return _table(["#", "bot", "games", "W-D-L", "points", "diff/deal (95%)", "Elo",
                   "Elo 95%", "failures"], rows, "standings")


def _cross(t: Tourney) -> str:
    names = [str(s["bot"]) for s in t.summary["standings"]]
    cross = t.summary.get("cross_table") or {}
    rows = []
    for a in names:
        cells = [f'<span class="bot">{esc(a)}</span>']
        for b in names:
            c = (cross.get(a) or {}).get(b) if isinstance(cross.get(a), dict) else None
            cells.append("\u2013" if not isinstance(c, dict) else
                         f"{num(c.get('points'), '{:g}')}/{esc(c.get('games'))}")
        rows.append(cells)
    return _table(["row against column", *names], rows, "crosstable")


def _deals(t: Tourney) -> str:
    """Per pairing: the deals each bot won on its seatings together (from results.json)."""
    rows = []
    for d in t.summary.get("deals") or []:
        if not isinstance(d, dict) or not isinstance(d.get("pair"), list) or len(d["pair"]) != 2:
            continue
        a, b = (str(x) for x in d["pair"])
        rows.append([f'<span class="bot">{esc(a)}</span> v <span class="bot">{esc(b)}</span>',
                     esc(d.get("deals")), esc(d.get(a)), esc(d.get(b)), esc(d.get("tied")),
                     f"{num(d.get('elo'))} [{num(d.get('elo_low'))}, {num(d.get('elo_high'))}]"])
    if not rows:
        return ""
    return ('<p class="note">A deal is won by the bot whose score differences over all the'
            " deal's seatings add up to more than zero.</p>"
            + _table(["pairing", "deals", "first won", "second won", "tied",
                      "Elo on deals (95%)"], rows, "deals"))


def _places(t: Tourney) -> str:
    """At tables of three (tournament/threes.py): each bot's places and mean score."""
    threes = t.summary.get("tables_of_three")
    if not isinstance(threes, dict) or not isinstance(threes.get("places"), list):
        return ""
    rows = [[f'<span class="bot">{esc(p.get("bot"))}</span>', esc(p.get("games")),
             esc(p.get("first")), esc(p.get("second")), esc(p.get("third")),
             num(p.get("mean_score"), "{:.0f}")]
            for p in threes["places"] if isinstance(p, dict)]
    return (f'<p class="note">{esc(threes.get("meaning", ""))}.</p>'
            + _table(["bot", "games", "first", "second", "third", "mean score"], rows,
                     "places"))


def _diff_plots(t: Tourney) -> str:
    if not t.diffs:
        return '<p class="none">No games yet.</p>'
    out = []
    for (a, b), ds in sorted(t.diffs.items()):
        out.append(histogram(ds, f"{a} minus {b}: {len(ds)} deal{'' if len(ds) == 1 else 's'}"))
    return '<div class="plots">' + "".join(out) + "</div>"


def _sprt(t: Tourney) -> str:
    sp = t.summary.get("sprt")
    if t.sprt is None or not isinstance(sp, dict):
        return '<p class="none">This tournament ran no SPRT (it needs --sprt).</p>'
    lower, upper = t.sprt.bounds
    last = t.llr[-1][1] if t.llr else 0.0
    threes = isinstance(t.summary.get("tables_of_three"), dict)
    unit = "games" if t.sprt.unit == "game" else (
        "deals won over all their seatings" if threes else "deals won over both seatings")
    verdict = {"H1": f"the first bot is stronger (Elo +{t.sprt.elo1:g} accepted)",
               "H0": f"no gain of {t.sprt.elo1:g} Elo (H0 accepted)"}.get(
        str(sp.get("decision")), "undecided when the games ran out")
    if threes:
        verdict += (" (at a table of three: the first bot against the second, on their"
                    " encounters)")
    return (f'<p id="sprt-line">SPRT on {esc(unit)}: LLR {last:.2f} ({lower:.2f}, {upper:.2f}),'
            f" elo0 {t.sprt.elo0:g}, elo1 {t.sprt.elo1:g}, alpha {t.sprt.alpha:g}, beta"
            f" {t.sprt.beta:g}: {esc(verdict)}.</p>"
            + llr_plot(t.llr, lower, upper, sp.get("decision")))


def _play(t: Tourney) -> str:
    """The statistics of play per bot (from the kept records), or why there are none."""
    table = play_table(t)
    if table is None:
        return ('<p class="none">The statistics of play need the game records: run the'
                " tournament with --records (or --html).</p>")
    unread = (f", {table.unread} record{'' if table.unread == 1 else 's'} unreadable"
              if table.unread else "")
    rows = [[f'<span class="bot">{esc(bot)}</span>',
             *(esc(c) for c in play_cells(stats, "{:.1f}%"))] for bot, stats in table.bots]
    return (f'<p class="note">From the records of {table.games}'
            f" game{'' if table.games == 1 else 's'}{esc(unread)}; per hand played, counted"
            " per seat (a bot that is its own partner plays two seats a game). Went out: the"
            " share of its hands it went out (concealed: went out concealed); a pile taken"
            " counts its top card; the canastas are those it completed, natural or mixed as"
            " the hand was scored; red threes: those it laid; points left: the mean value of"
            " its hand when another side went out; stock-exhausted: the hands that ended"
            " with the stock gone; decision time: as the referee measured it.</p>"
            + _table(["bot", *(h for _, h, _ in PLAY_COLUMNS)], rows, "playstats"))


def _game_link(index: int, links: dict[int, str], step: int | None = None) -> str:
    """A link to the game's replay page (at ``step``: the page opens there)."""
    href = links.get(index)
    label = f"game {index + 1}" + (f", move {step}" if step is not None and href else "")
    if href and step is not None:
        href += f"#{step}"
    return f'<a href="{esc(href)}">{label}</a>' if href else label


def _failures(t: Tourney, links: dict[int, str]) -> str:
    if not t.failures:
        return '<p class="none">No bot failed.</p>'
    rows = [[_game_link(f.game, links, f.step), str(f.seat), f'<span class="bot">{esc(f.bot)}</span>',
             esc(f.status) + (f" \u00d7{f.count}" if f.count > 1 else ""),
             f'<span class="reason">{esc(f.reason)}</span>'] for f in t.failures]
    return _table(["game", "seat", "bot", "status", "reason"], rows, "failures")


MAX_TAIL_LINES = 40  # lines of a failing bot's stderr shown (at most 4096 characters)
MAX_FAILED_GAMES = 500  # failed games shown in full (every failure is in the table)


def _failed_games(t: Tourney, links: dict[int, str]) -> str:
    """Each game where a seat failed: each failing seat's reason, the end of its stderr and
    the ``canasta bot ask`` command for the failing decision, then the command that replays
    the game.  Everything from the files is escaped (a bot's stderr is its own text)."""
    parts = []
    games = failed_games(t)
    for g in games[:MAX_FAILED_GAMES]:
        items = []
        for s in g.seats:
            item = (f'<p>seat {s.seat} <span class="bot">{esc(s.bot)}</span>: {esc(s.status)}:'
                    f' <span class="reason">{esc(s.reason)}</span></p>')
            # Control characters spelled out (\x1b), as on a terminal.
            tail = "\n".join(visible(x) for x in s.stderr.splitlines()[-MAX_TAIL_LINES:])
            if tail.strip():
                item += (f'<p class="note">The end of its stderr:</p>'
                         f'<pre class="stderr">{esc(tail)}</pre>')
            if s.ask is not None:
                item += (f'<p class="note">Put it that decision again (its decision'
                         f' {esc(s.decision)} in the game):</p>'
                         f'<pre class="command">{esc(s.ask)}</pre>')
            items.append(f"<li>{item}</li>")
        replay = ('<p class="note">Replay the game:</p>'
                  f'<pre class="command">{esc(g.replay)}</pre>') if g.replay else ""
        parts.append(f'<div class="failed-game" id="failed-game-{g.game + 1}">'
                     f"<h3>{_game_link(g.game, links)}</h3><ul>{''.join(items)}</ul>{replay}"
                     "</div>")
    if len(games) > MAX_FAILED_GAMES:
        parts.append(f'<p class="note">... and {len(games) - MAX_FAILED_GAMES} more failed'
                     " games: each one's reasons, stderr and replay command are in the"
                     " tournament's failures/ folder.</p>")
    return "".join(parts)


def _games(t: Tourney, links: dict[int, str]) -> str:
    rows = []
    for r in t.rows:
        seating = ", ".join(esc(x) for x in r["seating"])
        winner = r.get("winner")
        won = "draw" if winner is None else esc(_side_owner(t, r, int(winner)))
        rows.append([_game_link(r["index"], links), esc(" v ".join(map(str, r["pair"]))),
                     esc(r["deal"]), seating, " / ".join(esc(s) for s in r["scores"]), won,
                     esc(r["reason"])])
    return _table(["game", "pairing", "deal", "seating", "scores", "won by", "reason"], rows,
                  "games")


@cache
def _css() -> str:
    return files(__package__).joinpath("report.css").read_text(encoding="utf-8")


def report_html(t: Tourney, links: dict[int, str]) -> str:
    s = t.summary
    head = (f"{esc(len(t.rows))} games, {esc(s.get('format', '?'))},"
            f" {esc(s.get('deals_per_pairing', '?'))} duplicate deals per pairing,"
            f" rules {esc(t.rules.name)}, seed {esc(s.get('seed', '?'))}")
    elo = elo_plot([(str(r["bot"]), float(r["elo"] or 0.0), r.get("elo_low"), r.get("elo_high"))
                    for r in s["standings"]])
    kept = (f"{len(links)} of {len(t.rows)} games have a replay page (the game's link)."
            if t.records
            else "No game records were kept: run the tournament with --records (or --html) to"
            " have a replay page per game.")
    dup = s.get("duplicate") or {}
    dup_line = ""
    if isinstance(dup, dict) and isinstance(dup.get("factor"), int | float):
        dup_line = (f"<p>Duplicate deals: variance of the mean difference"
                    f" {num(dup.get('paired_var'), '{:.0f}')} against"
                    f" {num(dup.get('unpaired_var'), '{:.0f}')} unpaired,"
                    f" {num(dup.get('factor'), '{:.1f}')}x fewer games for the same"
                    " precision.</p>")
    warns = "".join(f"<li>{esc(w)}</li>" for w in t.warnings)
    body = f"""<header><h1>Tournament report</h1><p id="summary">{head}</p></header>
<main>
{'<ul id="warnings">' + warns + '</ul>' if warns else ''}
<section><h2>Standings</h2>{_standings(t)}</section>
<section><h2>Cross table</h2><p class="note">The row bot's points against the column bot,
out of the games they played.</p>{_cross(t)}{dup_line}</section>
<section id="plot-elo"><h2>Elo</h2><p class="note">Performance Elo from each bot's points,
with its 95% interval; an arrow: the interval runs off the scale.</p>{elo}</section>
<section id="plot-diff"><h2>Score difference per deal</h2><p class="note">Per pairing: the
first bot's score minus the second's on each duplicate deal (all seatings of the deal
averaged).</p>{_diff_plots(t)}{_deals(t)}{_places(t)}</section>
<section id="plot-sprt"><h2>Sequential test</h2>{_sprt(t)}</section>
<section id="play"><h2>Statistics of play</h2>{_play(t)}</section>
<section><h2>Failures</h2>{_failures(t, links)}{_failed_games(t, links)}</section>
<section><h2>Games</h2><p class="note">{kept}</p>{_games(t, links)}</section>
</main>"""
    return page("canasta tournament report", _css(), body)


def write_report(t: Tourney, out: Path, warn: Callable[[str], None]) -> int:
    """The report at ``out`` and the replay pages beside it; returns how many pages."""
    links = write_replays(t, out, warn)
    write_text(out, report_html(t, links))
    return len(links)
