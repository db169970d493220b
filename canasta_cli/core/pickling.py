"""Pickling and copying of the engine's value classes (moves, events, melds, scores, rules).

The default way makes an empty object and then sets its fields one by one, which the compiled
build's classes (mypyc) refuse: a frozen class rejects the assignment, and a class whose
``__init__`` takes arguments cannot be made without them.  So each value pickles as a call of
its own constructor with its fields, in the constructor's order (the test suite checks that
every such constructor takes exactly its fields, in order)."""

from __future__ import annotations

import dataclasses
from typing import Any


def by_fields(value: Any) -> tuple[Any, ...]:
    """``value.__reduce__()``: its class and its constructor's arguments, its fields."""
    return (type(value), tuple(getattr(value, f.name) for f in dataclasses.fields(value)
                               if f.init))
