"""Policies for the tests of ``canasta bot policy``: functions (observation, mask) -> action."""

from collections.abc import Callable
from typing import Any

import numpy as np

Array = Any  # numpy arrays: an observation (float32) and a mask of legal actions (int8)


def policy(observation: Array, mask: Array) -> int:
    """The last legal action of the table (melds and takes before discards, often)."""
    assert observation.dtype == np.float32 and mask.dtype == np.int8
    return int(np.flatnonzero(mask)[-1])


def load(arg: str) -> Callable[[Array, Array], int]:
    """A factory, as a trained policy's loader is: ``arg`` picks the first or last action."""
    pick = 0 if arg == "first" else -1
    return lambda observation, mask: int(np.flatnonzero(mask)[pick])


def illegal(observation: Array, mask: Array) -> int:
    return int(np.flatnonzero(mask == 0)[0])
