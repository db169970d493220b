"""Values read from a ladder file, checked before use: the file may have been edited by hand or
by anyone who could write it, so a row is trusted only once its types and ranges are right (an
infinite score, a seed of 'nan', a huge whole number or a text where a number belongs is
``Damage``, which the store turns into one line naming the file)."""

from __future__ import annotations

import math
import re

from ..core.errors import CanastaError
from ..util.seeds import MAX_SEED

MAX_ROW_ID = 10**12     # deals, runs and failures are numbered from 1; far fewer are ever made
MAX_PID = 2**31
LATEST = 1e11           # seconds since 1970: a time stamp past the year 5000 is damage
MAX_NAME = 200          # characters: a name ladder add accepts is at most 97
MAX_TEXT = 1 << 20      # characters of a reason, a stderr tail or a replay command
MAX_COMMAND = 1 << 16   # characters of a bot's command line, as ladder add bounds it
_WHOLE = re.compile(r"-?[0-9]{1,40}")


class Damage(CanastaError):
    """A value of the ladder file that cannot be used; the message says which."""


def whole(value: object, low: int, high: int, what: str) -> int:
    """A whole number from ``low`` to ``high``."""
    if type(value) is not int or not low <= value <= high:
        raise Damage(f"{what} is {_shown(value)}, not a whole number from {low} to {high}")
    return value


def finite(value: object, low: float, high: float, what: str) -> float:
    """A finite number from ``low`` to ``high`` (SQLite gives a whole one as an int)."""
    number = math.nan
    if isinstance(value, int | float) and not isinstance(value, bool) and abs(value) < 1e300:
        number = float(value)
    if not (math.isfinite(number) and low <= number <= high):
        raise Damage(f"{what} is {_shown(value)}, not a number from {low:g} to {high:g}")
    return number


def text(value: object, most: int, what: str, empty: bool = False) -> str:
    """A string of at most ``most`` characters, without NUL (and not empty unless allowed)."""
    if type(value) is not str or len(value) > most or "\0" in value or not (value or empty):
        raise Damage(f"{what} is {_shown(value)}, not a text of 1 to {most:,} characters")
    return value


def seed(value: object, what: str) -> int:
    """A seed kept as text (or as a whole number, as files from before kept it)."""
    if type(value) is int and -MAX_SEED < value < MAX_SEED:
        return value
    if type(value) is str and _WHOLE.fullmatch(value) and -MAX_SEED < int(value) < MAX_SEED:
        return int(value)
    raise Damage(f"{what} is {_shown(value)}, not a whole number below 2**128 in size")


def _shown(value: object) -> str:
    """A value as a message shows it: its kind, and its start."""
    kind = {int: "the number", float: "the number", str: "the text", bytes: "a blob",
            type(None): "empty"}.get(type(value), type(value).__name__)
    return kind if value is None else f"{kind} {str(value)[:30]!r}"
