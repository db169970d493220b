"""Words counted in the program's English output."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """The count and the word, in the plural where ``n`` is not one.

    >>> plural(1, "game"), plural(2, "game"), plural(0, "match", "matches")
    ('1 game', '2 games', '0 matches')
    """
    return f"{n} {word if n == 1 else many or word + 's'}"
