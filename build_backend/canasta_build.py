"""The build backend: setuptools' own, plus mypyc when ``CANASTA_COMPILE=1``.

Only a compiled build needs mypy (it provides mypyc) and a C compiler; asking for mypy in
``get_requires_for_build_wheel`` keeps the pure build's requirements what they were."""

from __future__ import annotations

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (the PEP 517 and 660 hooks, unchanged)

# The mypy that CI type-checks with also compiles: one version, the one the code is typed for.
MYPYC_REQUIREMENT = "mypy==2.4.1"


_ASKING = "_CANASTA_BUILD_ASKING_REQUIREMENTS"  # setup.py runs while mypy is not yet there


def compile_requested() -> bool:
    """``CANASTA_COMPILE=1`` (or true/yes) asks for the compiled build."""
    if os.environ.get(_ASKING):
        return False
    return os.environ.get("CANASTA_COMPILE", "").strip().lower() in {"1", "true", "yes"}


def get_requires_for_build_wheel(config_settings: dict[str, object] | None = None) -> list[str]:
    extra = [MYPYC_REQUIREMENT] if compile_requested() else []
    os.environ[_ASKING] = "1"
    try:
        return list(_setuptools.get_requires_for_build_wheel(config_settings)) + extra  # type: ignore[arg-type]
    finally:
        del os.environ[_ASKING]
