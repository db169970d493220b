"""Fitting text to a terminal's rows: how many rows a text takes once wrapped, and the
choice of what to drop first when a turn or a hand's end would not fit on one screen."""

from __future__ import annotations

import re
from collections.abc import Callable

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def visible_len(text: str) -> int:
    return len(_ANSI.sub("", text))


def fit(text: str, width: int, hang: int | None = None) -> str:
    """``text`` with every line longer than ``width`` columns wrapped between words (a card
    is a word: it is never cut), continuation lines indented (by ``hang`` columns if given);
    colour codes take no room.  ``width`` 0 leaves the text as it is (pipes)."""
    if width <= 0:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if visible_len(line) <= width:
            out.append(line)
            continue
        lead = len(line) - len(line.lstrip(" ")) + 4 if hang is None else hang
        indent = " " * min(lead, width // 3 if hang is None else width // 2)
        body = line.lstrip(" ")
        current, size = line[:len(line) - len(body)], len(line) - len(body)
        start = current
        for word in body.split(" "):
            w = visible_len(word)
            if current != start and size + 1 + w > width:
                out.append(current)
                current, size = indent + word, len(indent) + w
            elif current == start:
                current, size = current + word, size + w
            else:
                current, size = current + " " + word, size + 1 + w
        out.append(current)
    return "\n".join(out)


def rows(lines: list[str], width: int) -> int:
    """Rows ``lines`` take on a terminal ``width`` columns wide, once wrapped by ``fit``."""
    if width <= 0:
        return sum(line.count("\n") + 1 for line in lines)
    return sum(fit(line, width).count("\n") + 1 for line in lines)


def tail_fitting(lines: list[str], room: int, width: int) -> list[str]:
    """The last of ``lines`` that fit in ``room`` rows (the most recent, for a story)."""
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        need = rows([line], width)
        if used + need > room:
            break
        kept.append(line)
        used += need
    kept.reverse()
    return kept


def split_rows(text: str, width: int, size: int) -> list[str]:
    """``text`` wrapped to ``width`` and cut into pages of at most ``size`` rows."""
    wrapped = fit(text, width).split("\n") if width > 0 else text.split("\n")
    size = max(1, size)
    return ["\n".join(wrapped[i:i + size]) for i in range(0, len(wrapped), size)] or [""]


def choose(options: list[Callable[[], list[str]]], room: int, width: int) -> list[str]:
    """The first layout of ``options`` (fullest first) that fits ``room`` rows, else the last."""
    made: list[str] = []
    for make in options:
        made = make()
        if rows(made, width) <= room:
            return made
    return made


def _columns_asked() -> int:
    """The width COLUMNS asks for (a whole number above 0), else 0."""
    import os
    raw = os.environ.get("COLUMNS", "").strip()
    return int(raw) if raw.isdigit() and 0 < int(raw) < 100_000 else 0


def stream_width(err: bool = False) -> int:
    """Columns of the terminal the command writes to.  On a pipe or a file, 0 (scripts and
    logs get the lines whole), but for the output (not the errors) when COLUMNS asks for a
    width (``COLUMNS=80 canasta rules | less``)."""
    import shutil
    import sys
    stream = sys.stderr if err else sys.stdout
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    if not tty:
        return 0 if err else _columns_asked()
    cols = shutil.get_terminal_size((80, 24)).columns
    return cols if cols > 0 else _columns_asked() or 80


def stream_height(err: bool = False) -> int:
    """Rows of the terminal the command writes to; 0 on a pipe or a file (no text is cut to
    a screen's rows there, whatever the width)."""
    import shutil
    import sys
    stream = sys.stderr if err else sys.stdout
    try:
        if not stream.isatty():
            return 0
    except (AttributeError, ValueError):
        return 0
    return max(shutil.get_terminal_size((80, 24)).lines, 0)


def say(text: str, err: bool = False, hang: int | None = None) -> None:
    """Print ``text`` wrapped between words to the terminal's width (``stream_width``: whole
    on pipes, but for the output when COLUMNS asks for a width)."""
    import sys
    stream = sys.stderr if err else sys.stdout
    print(fit(text, stream_width(err), hang), file=stream, flush=True)


def next_step() -> bool:
    """Enter for the next step; q (or the end of input) to stop."""
    try:
        answer = input("[Enter: next step, q: quit] ")
    except (EOFError, KeyboardInterrupt):
        return False
    return answer.strip().lower() not in ("q", "quit")
