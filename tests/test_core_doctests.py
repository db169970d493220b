"""The public core's docstring examples run (pokerkit's habit): ``new_game``, ``apply``,
``legal_moves``, ``explain``, ``Ruleset`` and the notation of moves and cards each show how
they are used and what they return, and a deleted example fails here.

The examples are read from the core's source files, not found in the imported modules: in the
compiled build (mypyc) the core's modules are extension modules, whose native functions
doctest's finder does not see (and whose module docstrings are gone).  They run in the
imported module's namespace all the same, so there they run the compiled code."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

import canasta_cli.core

CHECKOUT_CORE = Path(__file__).resolve().parent.parent / "canasta_cli" / "core"

# The least number of examples each module's docstrings hold: a deleted example fails.
EXPECTED = {"cards": 6, "engine": 12, "explain": 8, "legality": 4, "notation": 6, "rules": 5}
# The public names that each show at least one example.
DOCUMENTED = {"engine": {"new_game", "apply"}, "legality": {"legal_moves"},
              "explain": {"explain"}, "rules": {"Ruleset"},
              "notation": {"parse_move", "format_move"},
              "cards": {"card_text", "parse_kind", "parse_card_sequence"}}

CORE_MODULES = sorted(m.name for m in pkgutil.iter_modules(canasta_cli.core.__path__))


def source_of(module: ModuleType) -> Path:
    """The module's source file: beside the module where it was installed with it (a pure
    build; a compiled build whose wheel keeps the sources), else the checkout's, which the
    compiled build was built from."""
    stem = module.__name__.rsplit(".", 1)[-1]
    assert module.__file__ is not None
    for path in (Path(module.__file__).with_name(f"{stem}.py"), CHECKOUT_CORE / f"{stem}.py"):
        if path.is_file():
            return path
    raise FileNotFoundError(f"no source for {module.__name__} ({module.__file__})")


def doctests_of(module: ModuleType) -> list[doctest.DocTest]:
    """One DocTest per docstring of the module's source (the module's, every class's and
    function's, methods included) that holds an example, each with its own copy of the
    module's namespace."""
    path = source_of(module)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    parser = doctest.DocTestParser()
    tests: list[doctest.DocTest] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                add(child, f"{prefix}.{child.name}")
                visit(child, f"{prefix}.{child.name}")

    def add(node: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
            name: str) -> None:
        text = ast.get_docstring(node, clean=False)
        if not text:
            return
        first = node.body[0]  # the docstring's expression: its line numbers the failures
        test = parser.get_doctest(text, dict(vars(module)), name, str(path), first.lineno - 1)
        if test.examples:
            tests.append(test)

    add(tree, module.__name__)
    visit(tree, module.__name__)
    return tests


def _run(tests: list[doctest.DocTest]) -> tuple[int, int, str]:
    """Examples run, examples failed, and doctest's report of the failures."""
    report: list[str] = []
    runner = doctest.DocTestRunner(verbose=False)
    attempted = failed = 0
    for test in tests:
        result = runner.run(test, out=report.append)
        attempted += result.attempted
        failed += result.failed
    return attempted, failed, "".join(report)


@pytest.mark.parametrize("name", CORE_MODULES)
def test_the_examples_run(name: str) -> None:
    module = importlib.import_module(f"canasta_cli.core.{name}")
    attempted, failed, report = _run(doctests_of(module))
    assert failed == 0, report
    assert attempted >= EXPECTED.get(name, 0), (name, attempted)


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_the_public_core_shows_an_example_each(name: str) -> None:
    module = importlib.import_module(f"canasta_cli.core.{name}")
    shown = {t.name.rsplit(".", 1)[-1] for t in doctests_of(module)}
    assert DOCUMENTED[name] <= shown, DOCUMENTED[name] - shown


def test_the_examples_are_found_in_the_sources() -> None:
    """Every module of the core has its source (the compiled build's included), and the
    checkout holds no module with examples that this test does not expect."""
    with_examples = set()
    for name in CORE_MODULES:
        module = importlib.import_module(f"canasta_cli.core.{name}")
        if doctests_of(module):
            with_examples.add(name)
    assert with_examples == set(EXPECTED)
