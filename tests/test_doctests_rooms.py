"""The docstring examples of the rooms above the core run too (the core's are read from its
sources by test_core_doctests.py, since the compiled build hides them): every module of the
package outside ``core`` is imported and its examples run, and a module that shows none where
it used to fails here."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import canasta_cli

# Modules with examples, and the least number each holds: a deleted example fails.
EXPECTED = {"canasta_cli.util.words": 1, "canasta_cli.tournament.schedule": 2}


def _modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(canasta_cli.__path__, "canasta_cli.")
                  if not m.name.startswith("canasta_cli.core") and not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", _modules())
def test_the_examples_of_each_module_run(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ImportError as exc:  # an optional part (Dask, PettingZoo) not installed here
        pytest.skip(f"{name}: {exc}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
    assert result.attempted >= EXPECTED.get(name, 0), f"{name}: examples missing"


def test_the_modules_expected_to_hold_examples_exist() -> None:
    assert set(EXPECTED) <= set(_modules())
