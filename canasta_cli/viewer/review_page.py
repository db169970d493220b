"""``canasta review GAME --seat N --html OUT.html``: the review as one self-contained page.

The top of the page is the replay viewer (replay.js, replay.css) of the game **from the
reviewed seat's view only**: its data is ``pagedata.seat_only``'s, which holds the public view
and that seat's, so no card the seat could not see (another hand, the stock) is in the page.
Beside the table, review.js shows the analysis of the seat's decision at the step shown (the
move played, the search's choice, their values with 95% intervals, the loss, the verdict and
its reason) and moves between decisions (keys n p) and flagged ones (Shift+N, Shift+P).  Below
the viewer stays the review itself: the summary of the game and of each hand, a plot of the
estimated loss of every decision (a bar moves the viewer to its decision) and a table per hand.

Text goes through ``esc``, the data through ``script_json``; the page's Content-Security-Policy
lets only its own script and style run, by their hashes (``htmlsafe.page``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..hosting.records import load_record
from ..hosting.replay import Replay
from ..table.review import BLUNDER, BLUNDER_TIMES, MISTAKE, Decision, Estimate, Review, load_game
from ..table.review_text import summary_text
from ..util.words import plural
from .htmlsafe import esc, page
from .pagedata import replay_data, seat_only
from .replay_page import VIEWER_BODY as REPLAY_BODY
from .replay_page import asset, write_text
from .svgplot import BAND, GRID, INK, MARK, nice_ticks

MISTAKE_INK = "#c47a00"
_ANALYSIS = """<section id="analysis" aria-label="the decision at this step">
<h2>Analysis</h2>
<div class="decision-nav">
<button id="prev-decision" title="p">&#x2039; decision</button>
<button id="next-decision" title="n">decision &#x203A;</button>
<button id="prev-flag" title="Shift+P">&#x2039; flagged</button>
<button id="next-flag" title="Shift+N">flagged &#x203A;</button>
</div>
<span class="keys">keys: n p decision, Shift+N Shift+P flagged (mistake, blunder)</span>
<div id="decision" aria-live="polite"></div>
</section>
"""


def _viewer_body() -> str:
    """The replay page's markup (one source for both pages), the analysis first in its
    aside."""
    anchor = "<aside>\n"
    if REPLAY_BODY.count(anchor) != 1:
        raise AssertionError("the replay page's markup has no one <aside> for the analysis")
    return REPLAY_BODY.replace(anchor, anchor + _ANALYSIS)


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
        body.append(_bar(d, x(i), step, y, (top, height - bottom)))
    body.append(f'<text x="{width - right}" y="{height - 8}" fill="{INK}" font-size="11"'
                ' text-anchor="end">decisions, in the order played</text>')
    title = "Estimated loss of each decision"
    return (f'<svg class="plot" data-plot="loss" data-marks="{len(decisions)}"'
            f' xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}"'
            f' width="{width}" height="{height}" role="group" aria-label="{esc(title)}">'
            f"<title>{esc(title)}</title>" + "".join(body) + "</svg>")


def _bar(d: Decision, x0: float, step: float, y: Callable[[float], float],
         rows: tuple[float, float]) -> str:
    """A decision's bar and interval, in a group with a clear box as tall as the plot (a
    thin bar alone is hard to hit), which the page's script makes a button to the decision
    (a click, or Enter on it)."""
    mid = round(x0 + step / 2, 2)
    w = round(max(1.0, step * 0.7), 2)
    a, b = sorted((y(0.0), y(d.loss)))
    tip = (f"#{d.number} (hand {d.hand_no}): {d.played.move}; the search: {d.best.move};"
           f" loss {_value(d.loss, d.loss_half)}" + (f", {d.verdict}" if d.verdict else ""))
    out = (f'<g class="pick" data-decision="{d.number}" tabindex="0" role="button"'
           f' aria-label="{esc("decision " + tip)}"><title>{esc(tip)}</title>'
           f'<rect class="hit" x="{round(x0, 2)}" y="{rows[0]}" width="{round(step, 2)}"'
           f' height="{round(rows[1] - rows[0], 2)}" fill="transparent"/>'
           f'<rect class="mark" x="{round(mid - w / 2, 2)}" y="{a}" width="{w}"'
           f' height="{round(max(b - a, 0.5), 2)}" fill="{_colour(d)}" data-decision="{d.number}"'
           f' data-loss="{d.loss:.1f}" data-verdict="{esc(d.verdict)}"/>')
    if not d.agrees and math.isfinite(d.loss_half):
        out += (f'<line x1="{mid}" y1="{y(d.loss - d.loss_half)}" x2="{mid}"'
                f' y2="{y(d.loss + d.loss_half)}" stroke="{INK}" stroke-width="1"/>')
    return out + "</g>"


def _cell(e: Estimate) -> str:
    return (f'<td class="move">{esc(e.move)}</td>'
            f'<td class="num">{esc(_value(e.mean, e.half))}</td>')


def _link(d: Decision) -> str:
    """A link to a decision: the page's script moves the viewer there."""
    return f'<a href="#d{d.number}" data-decision="{d.number}">#{d.number}</a>'


def _row(d: Decision) -> str:
    kind = d.verdict or ("agree" if d.agrees else "differ")
    pile = f"{d.pile_top or '-'} ({d.pile_size})"
    best = '<td class="move" colspan="2">= the move played</td>' if d.agrees else _cell(d.best)
    loss = "" if d.agrees else _value(d.loss, d.loss_half)
    return (f'<tr id="d{d.number}" class="{esc(kind)}" data-decision="{d.number}">'
            f'<td class="num">{_link(d)}</td>'
            f'<td class="num">{d.hand_turn}</td><td class="held">{esc(" ".join(d.held))}</td>'
            f"<td>{esc(pile)}</td>{_cell(d.played)}{best}"
            f'<td class="num">{esc(loss)}</td><td class="flag">{esc(d.verdict)}</td>'
            f'<td class="reason">{esc(d.reason)}</td></tr>')


_HEAD = ("<thead><tr><th>#</th><th>turn</th><th>held</th><th>pile top (size)</th>"
         "<th>played</th><th>value</th><th>the search's choice</th><th>value</th><th>loss</th>"
         "<th>flag</th><th>why</th></tr></thead>")


def _name(r: Review) -> str:
    return r.names[r.seat] if r.seat < len(r.names) else f"seat {r.seat}"


def _title(r: Review) -> str:
    return f"canasta review: seat {r.seat} ({_name(r)}) in {r.record.name}"


def _head(r: Review) -> list[str]:
    state = "game over" if r.finished else "not over"
    return ['<header id="review-head">', f"<h1>{esc(_title(r))}</h1>",
            f"<p>{esc(r.rules)}, {state}; seats: {esc(', '.join(r.names))}</p>",
            f"<p>Game: {esc(summary_text(r.total()))}</p>",
            f"<p>{esc(f'The game as seat {r.seat} saw it: no card it could not see is in this page.')}"
            "</p>", "</header>"]


def _review_section(r: Review) -> list[str]:
    """What the page held before it had the viewer: the note, the plot, the worst decisions,
    the table of each hand."""
    parts = ['<section id="review"><div class="inner">', '<p class="note">' + esc(
                 f"Each decision is set against the search ({r.deals} deals a move, seed"
                 f" {r.seed}), from this seat's view only. A value is the hand's points for the"
                 " seat's side less the other side's, as the search expects them, with its 95%"
                 " interval; the loss is what the search's choice makes more, deal by deal."
                 f" Mistake: a loss above {r.threshold:.0f} points; blunder: above"
                 f" {BLUNDER_TIMES * r.threshold:.0f} (either only when its interval is above"
                 " 0). A bar of the plot, or a decision's number, shows it above.") + "</p>",
             f'<section id="plot">{loss_plot(r.decisions, r.threshold)}</section>']
    worst = r.worst()
    if worst:
        parts.append('<section id="worst"><h2>Worst decisions</h2><ol>')
        parts += [f"<li>{_link(d)} (hand {d.hand_no}, turn"
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
    return [*parts, "</div></section>"]


def _number(x: float) -> float | None:
    return round(x, 1) if math.isfinite(x) else None


def decision_data(d: Decision) -> dict[str, Any]:
    """One decision as the page's script shows it: ``at`` is the replay's step shown before
    its move (the table the seat decided at), ``step`` the one after it; the values as the
    tables word them."""
    return {"n": d.number, "at": d.step - 1, "step": d.step, "hand": d.hand_no,
            "turn": d.hand_turn, "phase": d.phase, "choices": d.choices,
            "played": d.played.move, "played_value": _value(d.played.mean, d.played.half),
            "best": d.best.move, "best_value": _value(d.best.mean, d.best.half),
            "agrees": d.agrees, "loss": _number(d.loss), "loss_half": _number(d.loss_half),
            "loss_text": "" if d.agrees else _value(d.loss, d.loss_half),
            "verdict": d.verdict, "reason": d.reason, "deals": d.played.deals}


def review_data(r: Review, rep: Replay, lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The page's data: the replay from the reviewed seat's view only (``seat_only``), and
    the analysis of each of its decisions."""
    data = seat_only(replay_data(rep, lines, False), r.seat)
    data["review"] = {"seat": r.seat, "name": _name(r), "threshold": r.threshold,
                      "decisions": [decision_data(d) for d in r.decisions]}
    return data


def review_html(r: Review, rep: Replay, lines: list[dict[str, Any]]) -> str:
    """The review's page, with ``rep`` (the game replayed) and ``lines`` (its record)."""
    body = "\n".join([*_head(r), _viewer_body(), *_review_section(r)])
    return page(_title(r)[:300], asset("replay.css") + asset("review.css"), body,
                asset("replay.js") + "\n" + asset("review.js"), review_data(r, rep, lines))


def write_review_page(r: Review, out: Path) -> None:
    """The page on disk, or a RecordError saying why not.  The record is read and replayed
    again, as the review did (``load_game``)."""
    rep, _, _ = load_game(r.record, r.seat)
    write_text(out, review_html(r, rep, load_record(r.record, torn_ok=True)))
