"""``normalize=True``: the observation vector scaled into [-1, 1] (``Layout.scales``).

Each element is multiplied by its scale (as float32) and clipped to [-1, 1].  Most scales are
one over the element's bound, so nothing is clipped there; scores (one over the target),
``discards`` (one over the pack's count of the kind) and the opening total (one over 150) can
reach past 1 and are clipped.  docs/ML.md lists the scale of every field.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .observe import Layout

Vector = npt.NDArray[np.float32]


class Scaler:
    """Scales one ruleset's vectors in place (``scaler(vec)``) and gives their bounds."""

    def __init__(self, layout: Layout) -> None:
        self.scale = np.array(layout.scales(), np.float32)

    def __call__(self, vec: Vector) -> Vector:
        vec *= self.scale
        np.clip(vec, -1.0, 1.0, out=vec)
        return vec

    def bounds(self, layout: Layout) -> tuple[Vector, Vector]:
        """The normalized vector's bounds: each raw bound scaled and clipped as a value is
        (so no value can pass its bound by a rounding)."""
        low, high = layout.bounds()
        return self(low), self(high)


def scaler_for(layout: Layout, normalize: Any) -> Scaler | None:
    """A scaler when ``normalize`` is true (a bool is asked for, not any truthy value)."""
    if not isinstance(normalize, bool):
        raise ValueError(f"normalize must be True or False, not {normalize!r}")
    return Scaler(layout) if normalize else None
