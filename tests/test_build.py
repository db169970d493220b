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

from canasta_cli.core import engine
from canasta_cli.util.build import engine_build

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


def _built_package(tmp_path: Path, setup_py: str | None = None) -> Path:
    """The package as a build lays it out (``setup.py build_py``: what the wheel packs),
    built from a copy of the checkout's sources so that the checkout is left as it is."""
    import shutil
    src = tmp_path / "src"
    src.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info")
    for name in ("setup.py", "pyproject.toml", "README.md", "LICENSE", "canasta_kit.py"):
        shutil.copy2(ROOT / name, src / name, follow_symlinks=False)
    for name in ("build_backend", "canasta_cli", "bots", "protocol", "docs"):
        shutil.copytree(ROOT / name, src / name, symlinks=True, ignore=skip)
    if setup_py is not None:
        (src / "setup.py").write_text(setup_py, encoding="utf-8")
    out = tmp_path / "lib"
    env = {k: v for k, v in os.environ.items() if k != "CANASTA_COMPILE"}
    done = subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(out)],
                          cwd=src, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return out / "canasta_cli"


def test_the_built_package_ships_the_rules_that_rules_and_help_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/RULES.md goes into the package (``_data/docs/``) like the bots and the protocol,
    and an installed copy's ``canasta rules`` and in-game help point to that copy."""
    from canasta_cli.util import package_data
    built = _built_package(tmp_path)
    shipped = built / "_data" / "docs" / "RULES.md"
    assert shipped.is_file(), sorted(str(p.relative_to(built)) for p in built.rglob("_data/*"))
    assert shipped.read_bytes() == (ROOT / "docs" / "RULES.md").read_bytes()
    assert (built / "_data" / "bots" / "random_bot.py").is_file()
    if Path(package_data.__file__).resolve().parent == ROOT / "canasta_cli":  # a checkout
        assert package_data.rules_file() == ROOT / "docs" / "RULES.md"
    monkeypatch.setattr(package_data, "_PACKAGE", built)
    assert package_data.rules_file() == shipped
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from canasta_cli.__main__ import app_for;"
            " sys.argv = ['canasta', 'rules']; app_for(['rules'])()")
    shown = subprocess.run([sys.executable, "-c", code, str(built.parent)], capture_output=True,
                           text=True, timeout=120, cwd=tmp_path,
                           env={k: v for k, v in os.environ.items() if k != "COLUMNS"})
    assert shown.returncode == 0, shown.stderr
    assert f"Full rules: {shipped}" in shown.stdout, shown.stdout[-500:]
    helped = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]);"
                             " from canasta_cli.seats.human import HELP; print(HELP)",
                             str(built.parent)], capture_output=True, text=True, timeout=120,
                            cwd=tmp_path)
    assert str(shipped) in helped.stdout, helped.stdout[-500:]
