"""The one way a person stops a game from the table: ``Interrupted``."""

from __future__ import annotations


class Interrupted(Exception):
    """A person stopped the game (quit, Ctrl-C, Ctrl-D); the record so far is the save."""
