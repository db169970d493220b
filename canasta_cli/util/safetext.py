"""Text a person typed (bot names, commands) or a file holds, made safe where it is shown:
on a terminal its control characters are spelled out, in a CSV cell it is never a formula."""

from __future__ import annotations

import unicodedata

# Cc: controls (ESC, CR, BEL...); Cf: format characters (bidirectional overrides, zero-width);
# Zl, Zp: line and paragraph separators.  Any of them can make a line look other than it is.
_HIDDEN_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def visible(text: str) -> str:
    """``text`` with every control or format character written as an escape (``\\x1b``,
    ``\\u202e``): a name cannot move the cursor, retitle the window or reorder a line."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif unicodedata.category(ch) in _HIDDEN_CATEGORIES:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else
                       f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(ch)
    return "".join(out)


def csv_text(text: str) -> str:
    """A CSV cell that a spreadsheet shows as this text and never runs as a formula: a cell
    starting with ``= + - @``, a tab or a carriage return gets a leading apostrophe (OWASP's
    advice for CSV injection)."""
    return "'" + text if text.startswith(_FORMULA_START) else text
