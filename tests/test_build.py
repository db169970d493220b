"""The two builds: ``canasta --version`` names the one in use, and only a compiled build asks
for mypy (mypyc) when it is built.  CI runs the whole suite on both (``CANASTA_EXPECT_BUILD``)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from canasta_cli.build import engine_build
from canasta_cli.core import engine

ROOT = Path(__file__).resolve().parent.parent


def test_version_names_the_build_in_use() -> None:
    exe = Path(sys.executable).parent / "canasta"
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=True,
                         timeout=60).stdout
    build = "pure" if engine.__file__.endswith(".py") else "compiled"
    assert engine_build() == build
    assert f"; {build} engine)" in out


def test_the_build_is_the_one_ci_installed() -> None:
    expected = os.environ.get("CANASTA_EXPECT_BUILD")
    if not expected:
        pytest.skip("CANASTA_EXPECT_BUILD is set by .ci/run")
    assert engine_build() == expected


def _backend() -> ModuleType:
    spec = importlib.util.spec_from_file_location("canasta_build", ROOT / "build_backend" /
                                                  "canasta_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("flag", "asks_mypy"), [("1", True), ("", False), ("0", False)])
def test_only_a_compiled_build_requires_mypy(flag: str, asks_mypy: bool,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    backend = _backend()
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("CANASTA_COMPILE", flag)
    requires = backend.get_requires_for_build_wheel(None)
    assert any(r.startswith("mypy==") for r in requires) is asks_mypy
    assert "_CANASTA_BUILD_ASKING_REQUIREMENTS" not in os.environ


def test_every_listed_module_runs_compiled_in_the_compiled_build_and_pure_in_the_other() -> None:
    """The compiled build loads each module the backend lists from an extension module (a
    module that fell out of the build would run pure, slower, and say nothing); the pure
    build loads every one of them from its source."""
    sources = _backend().compiled_sources(ROOT)
    assert "canasta_cli/protocol/messages.py" in sources and "canasta_cli/core/engine.py" in sources
    build = engine_build()
    for source in sources:
        module = importlib.import_module(source.removesuffix(".py").removesuffix("/__init__")
                                         .replace("/", "."))
        assert module.__file__ is not None
        assert module.__file__.endswith(".py") is (build == "pure"), (source, module.__file__)
