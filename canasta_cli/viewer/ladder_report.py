"""``canasta report --ladder``: the ladder's standings, its Elo plot and each entry's rating
after every run, as text fitted to the terminal or as one self-contained HTML page (no
script, inline SVG, every name from the database escaped, the tournament report's
Content-Security-Policy and style sheet)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ..ladder.rating import Rating
from ..ladder.standings import RunPoint, history, standings
from ..ladder.store import Ladder
from ..util.safetext import visible
from .htmlsafe import esc, page
from .report_page import _css, _table
from .report_text import elo_lines, spark, wrap
from .svgplot import elo_plot

NOTE = ("Bradley-Terry maximum likelihood over every duplicate deal played; a deal is won on"
        " its summed score difference, a tie counts half; ratings average 0.")


@dataclass(frozen=True)
class LadderView:
    path: Path
    table: list[Rating]
    runs: list[RunPoint]
    deals: int


def load_ladder(ladder: Ladder) -> LadderView:
    return LadderView(ladder.path, standings(ladder), history(ladder), len(ladder.results()))


def entry_history(view: LadderView, name: str) -> list[tuple[RunPoint, Rating]]:
    """``name``'s rating after each run that it had played by (runs before its first deal
    are left out)."""
    return [(p, p.table[name]) for p in view.runs if name in p.table and p.table[name].deals]


def _elo(x: float) -> str:
    return "0" if round(x) == 0 else f"{round(x):+d}"


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def ladder_text(view: LadderView, width: int) -> str:
    names = [visible(r.name) for r in view.table]
    name_w = max([4, *(len(n) for n in names)])
    lines = [f"Ladder {view.path}: {len(view.table)} entries, {view.deals} deals,"
             f" {len(view.runs)} runs", "",
             f"{'rank':<5}{'entry':<{name_w + 2}}{'Elo':>7}{'95%':>8}{'deals':>7}"]
    for i, (r, n) in enumerate(zip(view.table, names, strict=True), 1):
        lines.append(f"{i:<5}{n:<{name_w + 2}}{_elo(r.elo):>7}{'+-' + str(round(r.error)):>8}"
                     f"{r.deals:>7}")
    lines += [NOTE, ""]
    if view.table:
        lines += elo_lines([(n, r.elo, r.elo - r.error, r.elo + r.error)
                            for r, n in zip(view.table, names, strict=True)], width)
        lines.append("")
    lines.append("Rating after each run (run: Elo +-95%, deals so far):")
    for r, n in zip(view.table, names, strict=True):
        points = entry_history(view, r.name)
        if not points:
            lines.append(f"  {n}: no deals yet")
            continue
        path = spark([t.elo for _p, t in points], max(10, width - name_w - 10))
        lines.append(f"  {n:<{name_w}} {path}" if len(points) > 1 else f"  {n}")
        lines.append("    " + ", ".join(f"{p.run}: {_elo(t.elo)} +-{round(t.error)} ({t.deals})"
                                       for p, t in points))
    return wrap("\n".join(lines), width)


def _history_html(view: LadderView, r: Rating) -> str:
    points = entry_history(view, r.name)
    if not points:
        return f'<h3 class="bot">{esc(r.name)}</h3><p class="none">No deals yet.</p>'
    rows = [[esc(p.run), esc(_when(p.started)), esc(_elo(t.elo)), f"\u00b1{round(t.error)}",
             esc(t.deals)] for p, t in points]
    return (f'<h3 class="bot">{esc(r.name)}</h3>'
            + _table(["run", "started", "Elo", "95%", "deals"], rows,
                     f"history-{view.table.index(r) + 1}", "history"))


def ladder_html(view: LadderView) -> str:
    rows = [[str(i), f'<span class="bot">{esc(r.name)}</span>', esc(_elo(r.elo)),
             f"\u00b1{round(r.error)}", esc(r.deals)] for i, r in enumerate(view.table, 1)]
    plot = elo_plot([(r.name, r.elo, r.elo - r.error, r.elo + r.error) for r in view.table])
    hist = "".join(_history_html(view, r) for r in view.table)
    body = f"""<header><h1>Ladder report</h1><p id="summary">{esc(view.path)}:
{len(view.table)} entries, {view.deals} deals, {len(view.runs)} runs</p></header>
<main>
<section><h2>Standings</h2>{_table(["#", "entry", "Elo", "95%", "deals"], rows, "standings")}
<p class="note">{esc(NOTE)}</p></section>
<section id="plot-elo"><h2>Elo</h2><p class="note">Each entry's rating with its 95%
interval.</p>{plot}</section>
<section id="history"><h2>Rating history</h2><p class="note">Each entry's rating after each
run, from the deals of that run and the runs before it.</p>{hist}</section>
</main>"""
    return page("canasta ladder report", _css(), body)
