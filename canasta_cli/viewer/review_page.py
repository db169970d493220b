"""``canasta review GAME --seat N --html OUT.html``: the review as one self-contained page.

The page holds the summary of the game and of each hand, a plot of the estimated loss of
every decision, and a table per hand with each decision beside what the seat held and saw:
the move played, the search's choice, their values with 95% intervals, the loss and, for a
flagged decision, the reason.  No script: text goes through ``esc`` and the page's
Content-Security-Policy allows its inline style only (``htmlsafe.page``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

from ..table.review import BLUNDER, BLUNDER_TIMES, MISTAKE, Decision, Estimate, Review
from ..table.review_text import summary_text
from ..util.words import plural
from .htmlsafe import esc, page
from .replay_page import write_text
from .svgplot import BAND, GRID, INK, MARK, nice_ticks

MISTAKE_INK = "#c47a00"
_CSS = """* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: #1d2b24; background: #f6f8f6; }
header { background: #0f5132; color: #f4f1e8; padding: 10px 18px; }
h1 { margin: 0; font-size: 20px; word-break: break-word; }
header p { margin: 2px 0 0; }
main { padding: 6px 18px 30px; max-width: 1300px; }
section { margin: 18px 0; }
h2 { font-size: 17px; margin: 0 0 6px; border-bottom: 2px solid #cfe0d6; }
.note { margin: 2px 0 8px; font-size: 13px; color: #4a5a52; }
table { border-collapse: collapse; background: #fff; font-size: 14px; }
th, td { border: 1px solid #d5ddd8; padding: 3px 8px; text-align: left; vertical-align: top; }
thead th { background: #e6efe9; }
td { font-variant-numeric: tabular-nums; }
td.num { text-align: right; white-space: nowrap; }
td.cards { font-family: ui-monospace, monospace; font-size: 12px; max-width: 280px; }
td.move { white-space: nowrap; }
tr.agree td.move { color: #4a5a52; }
tr.mistake { background: #fff4d6; }
tr.blunder { background: #fbe3e3; }
.flag { font-weight: 700; text-transform: uppercase; }
tr.mistake .flag { color: #8a5600; }
tr.blunder .flag { color: #9b2020; }
.reason { font-size: 13px; }
svg.plot { background: #fff; border: 1px solid #d5ddd8; border-radius: 6px; max-width: 100%;
  height: auto; }
a { color: #0f5132; }
"""


def _value(mean: float, half: float) -> str:
    return f"{mean:.0f} \u00b1{half:.0f}" if math.isfinite(half) else f"{mean:.0f} \u00b1?"




def _colour(d: Decision) -> str:
    return {BLUNDER: BAND, MISTAKE: MISTAKE_INK}.get(d.verdict, MARK)


def loss_plot(decisions: Sequence[Decision], threshold: float) -> str:
    """The estimated loss of each decision, with its 95% interval, the two flag lines and a
    line between hands; each bar carries its decision, loss and verdict (``data-*``)."""
    width, height, left, top, bottom, right = 760, 260, 52, 30, 40, 64
    n = max(1, len(decisions))
    lows = [d.loss - d.loss_half for d in decisions if math.isfinite(d.loss_half)]
    highs = [d.loss + d.loss_half for d in decisions if math.isfinite(d.loss_half)]
    yt = nice_ticks(min([0.0, *lows]), max([BLUNDER_TIMES * threshold, *highs]), 6)
    span = (yt[-1] - yt[0]) or 1.0

    def y(v: float) -> float:
        return round(height - bottom - (v - yt[0]) / span * (height - bottom - top), 2)

    step = (width - left - right) / n

    def x(i: int) -> float:
        return round(left + step * i, 2)

    body = [f'<text x="{left}" y="18" fill="{INK}" font-size="13">Estimated loss of each'
            " decision, points (95% interval)</text>"]
    for t in yt:
        body.append(f'<line x1="{left}" y1="{y(t)}" x2="{width - right}" y2="{y(t)}"'
                    f' stroke="{GRID}"/><text x="{left - 4}" y="{y(t) + 4}" fill="{INK}"'
                    f' font-size="11" text-anchor="end">{t:.0f}</text>')
    for level, ink, name, dy in ((threshold, MISTAKE_INK, MISTAKE, 10),
                                 (BLUNDER_TIMES * threshold, BAND, BLUNDER, 0)):
        body.append(f'<line class="bound" x1="{left}" y1="{y(level)}" x2="{width - right}"'
                    f' y2="{y(level)}" stroke="{ink}" stroke-dasharray="6 4"'
                    f' data-value="{level:.0f}"/><text x="{width - right + 4}"'
                    f' y="{y(level) + dy}" fill="{ink}" font-size="11">{name}</text>')
    hand = None
    for i, d in enumerate(decisions):
        if d.hand_no != hand:
            hand = d.hand_no
            body.append(f'<line x1="{x(i)}" y1="{top}" x2="{x(i)}" y2="{height - bottom}"'
                        f' stroke="{INK}" stroke-dasharray="2 3"/><text x="{x(i) + 3}"'
                        f' y="{height - bottom + 28}" fill="{INK}" font-size="11">hand'
                        f" {hand}</text>")
        body.append(_bar(d, x(i), step, y))
    body.append(f'<text x="{width - right}" y="{height - 8}" fill="{INK}" font-size="11"'
                ' text-anchor="end">decisions, in the order played</text>')
    title = "Estimated loss of each decision"
    return (f'<svg class="plot" data-plot="loss" data-marks="{len(decisions)}"'
            f' xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}"'
            f' width="{width}" height="{height}" role="img" aria-label="{esc(title)}">'
            f"<title>{esc(title)}</title>" + "".join(body) + "</svg>")


def _bar(d: Decision, x0: float, step: float, y: Callable[[float], float]) -> str:
    mid = round(x0 + step / 2, 2)
    w = round(max(1.0, step * 0.7), 2)
    a, b = sorted((y(0.0), y(d.loss)))
    tip = (f"#{d.number} (hand {d.hand_no}): {d.played.move}; the search: {d.best.move};"
           f" loss {_value(d.loss, d.loss_half)}" + (f", {d.verdict}" if d.verdict else ""))
    out = (f'<rect class="mark" x="{round(mid - w / 2, 2)}" y="{a}" width="{w}"'
           f' height="{round(max(b - a, 0.5), 2)}" fill="{_colour(d)}" data-decision="{d.number}"'
           f' data-loss="{d.loss:.1f}" data-verdict="{esc(d.verdict)}"><title>{esc(tip)}'
           "</title></rect>")
    if not d.agrees and math.isfinite(d.loss_half):
        out += (f'<line x1="{mid}" y1="{y(d.loss - d.loss_half)}" x2="{mid}"'
                f' y2="{y(d.loss + d.loss_half)}" stroke="{INK}" stroke-width="1"/>')
    return out


def _cell(e: Estimate) -> str:
    return (f'<td class="move">{esc(e.move)}</td>'
            f'<td class="num">{esc(_value(e.mean, e.half))}</td>')


def _row(d: Decision) -> str:
    kind = d.verdict or ("agree" if d.agrees else "differ")
    pile = f"{d.pile_top or '-'} ({d.pile_size})"
    best = '<td class="move" colspan="2">= the move played</td>' if d.agrees else _cell(d.best)
    loss = "" if d.agrees else _value(d.loss, d.loss_half)
    return (f'<tr id="d{d.number}" class="{esc(kind)}"><td class="num">{d.number}</td>'
            f'<td class="num">{d.hand_turn}</td><td class="cards">{esc(" ".join(d.held))}</td>'
            f"<td>{esc(pile)}</td>{_cell(d.played)}{best}"
            f'<td class="num">{esc(loss)}</td><td class="flag">{esc(d.verdict)}</td>'
            f'<td class="reason">{esc(d.reason)}</td></tr>')


_HEAD = ("<thead><tr><th>#</th><th>turn</th><th>held</th><th>pile top (size)</th>"
         "<th>played</th><th>value</th><th>the search's choice</th><th>value</th><th>loss</th>"
         "<th>flag</th><th>why</th></tr></thead>")


def review_html(r: Review) -> str:
    """The review's page."""
    name = r.names[r.seat] if r.seat < len(r.names) else f"seat {r.seat}"
    title = f"canasta review: seat {r.seat} ({name}) in {r.record.name}"
    state = "game over" if r.finished else "not over"
    parts = ["<header>", f"<h1>{esc(title)}</h1>",
             f"<p>{esc(r.rules)}, {state}; seats: {esc(', '.join(r.names))}</p>",
             f"<p>Game: {esc(summary_text(r.total()))}</p>", "</header>", "<main>",
             '<p class="note">' + esc(
                 f"Each decision is set against the search ({r.deals} deals a move, seed"
                 f" {r.seed}), from this seat's view only. A value is the hand's points for the"
                 " seat's side less the other side's, as the search expects them, with its 95%"
                 " interval; the loss is what the search's choice makes more, deal by deal."
                 f" Mistake: a loss above {r.threshold:.0f} points; blunder: above"
                 f" {BLUNDER_TIMES * r.threshold:.0f} (either only when its interval is above"
                 " 0).") + "</p>",
             f'<section id="plot">{loss_plot(r.decisions, r.threshold)}</section>']
    worst = r.worst()
    if worst:
        parts.append('<section id="worst"><h2>Worst decisions</h2><ol>')
        parts += [f'<li><a href="#d{d.number}">#{d.number}</a> (hand {d.hand_no}, turn'
                  f" {d.hand_turn}): {esc(d.played.move)}; the search: {esc(d.best.move)};"
                  f" loss {esc(_value(d.loss, d.loss_half))}, {esc(d.verdict)}</li>"
                  for d in worst]
        parts.append("</ol></section>")
    for s in r.hands():
        rows = [d for d in r.decisions if d.hand_no == s.hand_no]
        parts += [f'<section class="hand" id="hand-{s.hand_no}"><h2>Hand {s.hand_no}</h2>',
                  f'<p class="note">{esc(summary_text(s))}</p>', f"<table>{_HEAD}<tbody>",
                  *[_row(d) for d in rows], "</tbody></table></section>"]
    if r.forced or r.unjudged:
        parts.append(f'<p class="note">Not judged: {plural(r.forced, "forced move")},'
                     f" {plural(r.unjudged, 'answer')} to 'may I go out?'.</p>")
    parts.append("</main>")
    return page(title[:300], _CSS, "\n".join(parts))


def write_review_page(r: Review, out: Path) -> None:
    """The page on disk, or a RecordError saying why not."""
    write_text(out, review_html(r))
