"""Imports run one way through the rooms of the package, in the order ``ROOMS`` names them,
and no module imports itself back through any path, not even from inside a function or under
``TYPE_CHECKING`` (every ``import`` statement in the package counts).  Rooms of one step are
siblings: neither imports the other."""

from __future__ import annotations

import ast
from pathlib import Path

from helpers import import_source

PACKAGE = Path(__file__).resolve().parent.parent / "canasta_cli"

# The rooms, lowest first; docs/architecture.md says what each serves.  A module may import its
# own room's modules and those of rooms in lower steps.  ``__main__`` (the app, and
# ``cli/__main__.py`` for ``python -m canasta_cli.cli``) is the entry point over them all.
ROOMS: list[set[str]] = [
    {"core"}, {"util"}, {"protocol"}, {"players"}, {"ui"}, {"seats"}, {"hosting"},
    {"table", "botdev", "tournament", "env"}, {"ladder", "net"}, {"viewer"}, {"cli"}, {"bench"},
    {"__main__"},
]
STEP: dict[str, int] = {room: step for step, rooms in enumerate(ROOMS) for room in rooms}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, name: str | None = None) -> set[str]:
    """Every project module ``path`` (the module ``name``) imports, wherever the statement stands."""
    name = name or _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("canasta_cli"))
        elif isinstance(node, ast.ImportFrom):
            target = import_source(node, package)
            if not target.startswith("canasta_cli"):
                continue
            for alias in node.names:  # ``from . import play`` names a module
                sub = f"{target}.{alias.name}"
                found.add(sub if _exists(sub) else target)
    return {m for m in found if m != name}


def _exists(module: str) -> bool:
    rel = Path(*module.split("."))
    return (PACKAGE.parent / rel.with_suffix(".py")).is_file() or \
        (PACKAGE.parent / rel / "__init__.py").is_file()


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): _imports(p) for p in sorted(PACKAGE.rglob("*.py"))}


def _room(module: str) -> str:
    parts = module.split(".")
    if parts[-1] == "__main__":
        return "__main__"
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_room_is_named_and_no_module_is_loose() -> None:
    here = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert not loose, f"put these modules in a room: {loose}"
    assert here == set(STEP) - {"__main__"}, (
        f"rooms without a step in ROOMS: {sorted(here - set(STEP))}; "
        f"steps naming no room: {sorted(set(STEP) - {'__main__'} - here)}")


def test_imports_run_one_way() -> None:
    wrong = [f"{m} ({_room(m)}) imports {t} ({_room(t)})"
             for m, targets in _graph().items() for t in sorted(targets)
             if t != "canasta_cli" and _room(t) != _room(m) and STEP[_room(t)] >= STEP[_room(m)]]
    assert not wrong, "\n".join(wrong)


def test_the_rule_catches_an_import_against_the_order(tmp_path: Path) -> None:
    """The scan sees an upward import wherever it stands: in a function, under TYPE_CHECKING."""
    body = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..hosting import referee\n"
            "def f() -> None:\n    from canasta_cli.cli import options\n")
    path = tmp_path / "probe.py"
    path.write_text(body, encoding="utf-8")
    found = _imports(path, "canasta_cli.util.probe")
    assert {"canasta_cli.hosting.referee", "canasta_cli.cli.options"} <= found
    assert all(STEP[_room(t)] > STEP["util"] for t in found)


def test_no_import_cycles() -> None:
    graph = _graph()
    # A package's __init__ importing its own modules is how a package is made; a module that
    # imports its package (for a sibling) goes through it, so keep those edges.
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in sorted(graph.get(m, ())):
            if state.get(t) == 1:
                cycles.append(stack[stack.index(t):] + [t])
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)
