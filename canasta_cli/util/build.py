"""Which build of the engine runs: the mypyc-compiled one (``CANASTA_COMPILE=1 pip install .``)
or pure Python. Both play the same games; the compiled one plays them faster."""

from __future__ import annotations

from ..core import engine


def engine_build() -> str:
    """``compiled`` when the rules core was loaded from an extension module, else ``pure``."""
    return "pure" if engine.__file__.endswith(".py") else "compiled"
