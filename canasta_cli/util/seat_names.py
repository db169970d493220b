"""Seat specs that carry a name: ``NAME=COMMAND`` (``Bob=builtin:greedy``)."""

from __future__ import annotations

import re

_NAME = re.compile(r"[A-Za-z][\w.-]{0,23}(@[\w.+-]{1,32})?")  # a ladder version: mybot@2


def split_name(spec: str) -> tuple[str, str]:
    """``Bob=builtin:greedy`` names a seat Bob; a command line alone has no name (an ``=``
    inside a command, as in ``--level=hard``, is not taken for one)."""
    head, sep, rest = spec.partition("=")
    if sep and rest.strip() and _NAME.fullmatch(head.strip()):
        return head.strip(), rest.strip()
    return "", spec


def is_person(spec: str) -> bool:
    """Whether a seat spec seats a person at this terminal: ``human`` or ``human:NAME``.

    >>> [is_person(s) for s in ("human", "human:Ana", "builtin:hard", "humanoid.py")]
    [True, True, False, False]
    """
    return spec == "human" or spec.startswith("human:")
