"""The build backend: setuptools' own, plus mypyc when ``CANASTA_COMPILE=1``.

Only a compiled build needs mypy (it provides mypyc) and a C compiler; asking for mypy in
``get_requires_for_build_wheel`` keeps the pure build's requirements what they were."""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (the PEP 517 and 660 hooks, unchanged)

# The mypy that CI type-checks with also compiles: one version, the one the code is typed for.
MYPYC_REQUIREMENT = "mypy==2.4.1"


# What the compiled build compiles: the code every game, rollout, training step and bot request
# runs.  The rules core; the search player's rollouts; the environment's per-step code
# (encoder, action table, public facts); the protocol's request making and reply reading
# (the referee's hot path: a request is made about 1.5x as fast compiled).  Not the seats or
# the referee loop: the benches and tests subclass them, which compiled classes refuse.
COMPILED_EXTRA = ("canasta_cli/players/search.py", "canasta_cli/env/actions.py",
                  "canasta_cli/env/observe.py", "canasta_cli/env/public.py",
                  "canasta_cli/protocol/messages.py", "canasta_cli/protocol/replies.py")


# What the compiled build leaves pure in the rules core: why a move is refused.  Compiled code
# reads a move's fields from its C fields, which a move made with a field that is not an int
# leaves unset (it keeps the values as given: core/moves.py), so the check that a move's fields
# are ints (``explain.malformed``) runs pure, to read them as Python does.  It runs only for a
# move that is not a listed object (a refusal, a parsed line, a bot's reply): never in the
# engine's own play, the search's rollouts or the environment's steps.
PURE_IN_CORE = ("canasta_cli/core/explain.py",)


def compiled_sources(root: Path) -> list[str]:
    """The source files the compiled build compiles, relative to the checkout ``root``."""
    core = sorted(str(p.relative_to(root)) for p in (root / "canasta_cli" / "core").glob("*.py")
                  if p.relative_to(root).as_posix() not in PURE_IN_CORE)
    return [*core, *COMPILED_EXTRA]


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
