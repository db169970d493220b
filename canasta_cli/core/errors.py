"""The project's one error family: a caller catches ``CanastaError`` for any refused input.

Each module keeps its own subclass (``NotationError``, ``IllegalMoveError``, ``RulesError``,
``DeckError``, ``DeckFileError``, ``CardParseError``, ``RecordError``, ``ProtocolError``...),
so a caller that cares which can still tell.  It derives from ``ValueError`` because every
one of them is a value refused, and code written against the earlier ``ValueError``s still
catches them.
"""

from __future__ import annotations


class CanastaError(ValueError):
    """Input refused by the rules engine, a reader of the project's files, or the protocol."""
