"""Imports run one way: core <- protocol <- players <- seats <- referee <- runners <- commands
<- cli, and no module imports itself back through any path, not even from inside a function
or under ``TYPE_CHECKING`` (every ``import`` statement in the package counts)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "canasta_cli"

# The layer of each top-level part of the package: a module may import only its own layer's
# modules and those of lower layers.
LAYERS: dict[str, int] = {
    "core": 0,
    "event_text": 1, "seat_names": 1, "private_files": 1, "records": 1, "safetext": 1, "build": 1,
    "package_data": 1, "processes": 1, "seeds": 1,
    "protocol": 2,
    "players": 3,
    "ui": 4,
    "seats": 5,
    "referee": 6,
    "replay": 7, "match": 7, "play": 7, "botcheck": 7, "tournament": 7, "viewer": 7, "env": 7, "net": 7,
    "saved_games": 7, "stats": 7, "lessons": 7,
    "botask": 7, "botgames": 7, "ladder": 7, "starters": 1, "rare_deals": 7, "asktranscript": 7,
    "commands": 8, "bench": 8,
    "cli": 9, "__init__": 9,
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every project module ``path`` imports, wherever the statement stands."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("canasta_cli"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
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


def _layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS[parts[1] if len(parts) > 1 else "__init__"]


def test_every_module_has_a_layer() -> None:
    missing = sorted({m.split(".")[1] for m in _graph() if "." in m} - set(LAYERS))
    assert not missing, f"give these a layer in LAYERS: {missing}"


def test_imports_run_one_way() -> None:
    wrong = [f"{m} (layer {_layer(m)}) imports {t} (layer {_layer(t)})"
             for m, targets in _graph().items() for t in sorted(targets)
             if t != "canasta_cli" and _layer(t) > _layer(m)]
    assert not wrong, "\n".join(wrong)


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
