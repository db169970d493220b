"""The report's three plots as plain SVG markup.

Plain SVG rather than matplotlib: the three plots are a handful of lines, bars and points;
written here they need no extra install (the report works from a bare ``pip install
canasta``), come out a few kilobytes each, byte-for-byte the same for the same results, with
no font or script inside, and each mark carries its value (``data-*``) for the tests to read.
Every label goes through ``esc``; only presentation attributes are used (no ``style``), so
the page's Content-Security-Policy holds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .htmlsafe import esc

INK = "#1d2b24"
GRID = "#d5ddd8"
MARK = "#1f6f4a"
BAND = "#b23a3a"


def nice_ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    """Round tick values spanning [lo, hi]."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        lo, hi = (lo - 1, lo + 1) if math.isfinite(lo) else (-1.0, 1.0)
    raw = (hi - lo) / max(1, count)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.floor(lo / step) * step
    ticks = []
    x = first
    while x <= hi + step * 1e-9:
        ticks.append(round(x, 10))
        x += step
    if ticks[0] > lo:
        ticks.insert(0, ticks[0] - step)
    if ticks[-1] < hi:
        ticks.append(ticks[-1] + step)
    return ticks


def _fmt(x: float) -> str:
    return f"{x:.0f}" if x == int(x) else f"{x:.3g}"


def _svg(kind: str, width: int, height: int, title: str, body: list[str], marks: int) -> str:
    return (f'<svg class="plot" data-plot="{esc(kind)}" data-marks="{marks}"'
            f' xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}"'
            f' width="{width}" height="{height}" role="img" aria-label="{esc(title)}">'
            f"<title>{esc(title)}</title>" + "".join(body) + "</svg>")


class _Axis:
    """A linear map from data to pixels."""

    def __init__(self, lo: float, hi: float, start: float, end: float) -> None:
        self.lo, self.hi, self.start, self.end = lo, hi, start, end

    def __call__(self, v: float) -> float:
        span = self.hi - self.lo or 1.0
        return round(self.start + (v - self.lo) / span * (self.end - self.start), 2)


def elo_plot(rows: Sequence[tuple[str, float, float | None, float | None]]) -> str:
    """Each bot's Elo with its 95% interval (None or infinite: off the scale, drawn as an
    arrow to the edge)."""
    label_w, width, row_h, top = 170, 640, 28, 30
    height = top + row_h * max(1, len(rows)) + 34
    finite = [v for _, e, lo, hi in rows for v in (e, lo, hi)
              if v is not None and math.isfinite(v)]
    ticks = nice_ticks(min(finite, default=-100.0), max(finite, default=100.0))
    x = _Axis(ticks[0], ticks[-1], label_w + 10, width - 20)
    body = [f'<text x="{label_w + 10}" y="18" fill="{INK}" font-size="13">Elo (95% interval)'
            "</text>"]
    base = top + row_h * len(rows)
    for t in ticks:
        body.append(f'<line x1="{x(t)}" y1="{top - 6}" x2="{x(t)}" y2="{base}" stroke="{GRID}"/>')
        body.append(f'<text x="{x(t)}" y="{base + 16}" fill="{INK}" font-size="11"'
                    f' text-anchor="middle">{esc(_fmt(t))}</text>')
    if ticks[0] < 0 < ticks[-1]:
        body.append(f'<line x1="{x(0)}" y1="{top - 6}" x2="{x(0)}" y2="{base}" stroke="{INK}"'
                    ' stroke-dasharray="3 3"/>')
    for i, (name, elo, lo, hi) in enumerate(rows):
        y = top + row_h * i + row_h / 2
        left = x(lo) if lo is not None and math.isfinite(lo) else x.start
        right = x(hi) if hi is not None and math.isfinite(hi) else x.end
        short = name if len(name) <= 22 else name[:21] + "\u2026"
        body.append(f'<text x="{label_w}" y="{y + 4}" fill="{INK}" font-size="12"'
                    f' text-anchor="end">{esc(short)}</text>')
        body.append(f'<line class="bar" x1="{left}" y1="{y}" x2="{right}" y2="{y}"'
                    f' stroke="{MARK}" stroke-width="2"/>')
        for end, open_ in ((left, lo), (right, hi)):
            if open_ is None or not math.isfinite(open_):
                d = -1 if end == x.start else 1
                body.append(f'<path d="M{end} {y} l{-6 * d} -4 v8 z" fill="{MARK}"/>')
            else:
                body.append(f'<line x1="{end}" y1="{y - 6}" x2="{end}" y2="{y + 6}"'
                            f' stroke="{MARK}" stroke-width="2"/>')
        body.append(f'<circle class="mark" cx="{x(elo)}" cy="{y}" r="5" fill="{MARK}"'
                    f' data-bot="{esc(name)}" data-value="{elo:.1f}"><title>{esc(name)}:'
                    f' {elo:+.0f}</title></circle>')
    return _svg("elo", width, height, "Elo of each bot with its 95% interval", body, len(rows))


def histogram(values: Sequence[float], title: str, unit: str = "score difference per deal",
              bins: int = 12) -> str:
    """How often each range of ``values`` occurs, with the mean marked."""
    width, height, left, top, bottom = 420, 220, 44, 30, 40
    body = [f'<text x="{left}" y="18" fill="{INK}" font-size="13">{esc(title)}</text>']
    if not values:
        body.append(f'<text x="{left}" y="{height / 2}" fill="{INK}" font-size="12">no deals'
                    "</text>")
        return _svg("diff", width, height, title, body, 0)
    lo, hi = min(values), max(values)
    if hi - lo < 1:  # one value (or nearly): a range around it
        pad = max(1.0, abs(lo) * 0.05)
        lo, hi = lo - pad, hi + pad
    ticks = nice_ticks(lo, hi, min(bins, 8))
    step = (ticks[-1] - ticks[0]) / bins
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - ticks[0]) / step))] += 1
    x = _Axis(ticks[0], ticks[-1], left, width - 24)
    ymax = nice_ticks(0, max(counts), 4)
    y = _Axis(0, ymax[-1], height - bottom, top)
    for t in ymax:
        body.append(f'<line x1="{left}" y1="{y(t)}" x2="{width - 24}" y2="{y(t)}" stroke="{GRID}"/>')
        body.append(f'<text x="{left - 4}" y="{y(t) + 4}" fill="{INK}" font-size="11"'
                    f' text-anchor="end">{esc(_fmt(t))}</text>')
    for t in ticks:
        body.append(f'<text x="{x(t)}" y="{height - bottom + 15}" fill="{INK}" font-size="11"'
                    f' text-anchor="middle">{esc(_fmt(t))}</text>')
    for i, c in enumerate(counts):
        a, b = x(ticks[0] + i * step), x(ticks[0] + (i + 1) * step)
        body.append(f'<rect class="mark" x="{a}" y="{y(c)}" width="{max(0.0, b - a - 1):.2f}"'
                    f' height="{round(y(0) - y(c), 2)}" fill="{MARK}" data-count="{c}"'
                    f' data-from="{ticks[0] + i * step:g}"><title>{c} deal{"" if c == 1 else "s"}'
                    f' from {_fmt(ticks[0] + i * step)}</title></rect>')
    mean = sum(values) / len(values)
    body.append(f'<line x1="{x(mean)}" y1="{top}" x2="{x(mean)}" y2="{y(0)}" stroke="{BAND}"'
                f' stroke-width="2" data-mean="{mean:.1f}"/>')
    body.append(f'<text x="{width - 24}" y="{height - 8}" fill="{INK}" font-size="11"'
                f' text-anchor="end">{esc(unit)}; red: the mean {mean:+.0f}</text>')
    return _svg("diff", width, height, title, body, len(values))


def llr_plot(points: Sequence[tuple[int, float]], lower: float, upper: float,
             decision: str | None) -> str:
    """The SPRT's log-likelihood ratio after each game (or deal), between its bounds."""
    width, height, left, top, bottom = 640, 260, 48, 30, 40
    ys = [v for _, v in points] + [lower, upper]
    yt = nice_ticks(min(ys), max(ys), 6)
    xt = nice_ticks(0, max((g for g, _ in points), default=1) or 1, 8)
    x = _Axis(xt[0], xt[-1], left, width - 16)
    y = _Axis(yt[0], yt[-1], height - bottom, top)
    verdict = {"H1": "H1 accepted", "H0": "H0 accepted"}.get(str(decision), "undecided")
    body = [f'<text x="{left}" y="18" fill="{INK}" font-size="13">SPRT log-likelihood ratio'
            f" ({esc(verdict)})</text>"]
    for t in yt:
        body.append(f'<line x1="{left}" y1="{y(t)}" x2="{width - 16}" y2="{y(t)}" stroke="{GRID}"/>')
        body.append(f'<text x="{left - 4}" y="{y(t) + 4}" fill="{INK}" font-size="11"'
                    f' text-anchor="end">{esc(_fmt(t))}</text>')
    for t in xt:
        body.append(f'<text x="{x(t)}" y="{height - bottom + 15}" fill="{INK}" font-size="11"'
                    f' text-anchor="middle">{esc(_fmt(t))}</text>')
    for bound, name in ((upper, "H1"), (lower, "H0")):
        body.append(f'<line class="bound" x1="{left}" y1="{y(bound)}" x2="{width - 16}"'
                    f' y2="{y(bound)}" stroke="{BAND}" stroke-dasharray="6 4"'
                    f' data-value="{bound:.3f}"/>')
        body.append(f'<text x="{width - 18}" y="{y(bound) - 4}" fill="{BAND}" font-size="11"'
                    f' text-anchor="end">{name} {bound:+.2f}</text>')
    path = " ".join(f"{'M' if i == 0 else 'L'}{x(g)} {y(v)}" for i, (g, v) in enumerate(points))
    last = points[-1] if points else (0, 0.0)
    body.append(f'<path class="mark" d="{path}" fill="none" stroke="{MARK}" stroke-width="2"'
                f' data-points="{len(points)}" data-last="{last[1]:.3f}"/>')
    body.append(f'<text x="{width - 16}" y="{height - 8}" fill="{INK}" font-size="11"'
                ' text-anchor="end">games played</text>')
    return _svg("llr", width, height, "SPRT log-likelihood ratio over the games", body,
                len(points))
