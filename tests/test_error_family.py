"""One error family, enforced: every exception class the package defines for a user's, a file's,
a bot's or a remote peer's mistake derives from ``CanastaError`` (directly or through another
member).  The few that are control flow, not mistakes, are named in ``OUTSIDE`` with the
reason.  Nothing here lists the family by hand: a scan of the sources finds every ``class``
whose bases make it an exception (through the package's own classes, imports and re-exports
too), and importing every module and walking ``CanastaError.__subclasses__()`` must find the
same family."""

from __future__ import annotations

import ast
import builtins
import importlib
import pkgutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import import_source

import canasta_cli
from canasta_cli.core.errors import CanastaError

PACKAGE = Path(__file__).resolve().parent.parent / "canasta_cli"
ROOT = "canasta_cli.core.errors.CanastaError"

# Exceptions of the package that are not a refusal of anyone's input: each with why.
OUTSIDE: dict[str, str] = {
    "canasta_cli.__main__.Terminated":
        "SIGTERM or SIGHUP raised as a KeyboardInterrupt: the command stops as on Ctrl-C",
    "canasta_cli.ui.interrupt.Interrupted":
        "a person stopped the game (quit, Ctrl-C, Ctrl-D): the game is saved, nothing refused",
    "canasta_cli.botdev.ask._Stop":
        "internal signal: ends the replayed game once the decision asked about is reached",
    "canasta_cli.net.client.Lost":
        "the connection to the table ended: the client's end of stream, handled where it reads",
    "canasta_cli.net.client.Quiet":
        "internal signal: nothing arrived within a read's timeout",
    "canasta_cli.net.client.Wake":
        "internal signal: wakes the person's prompt when the table sends something",
    "canasta_cli.net.client.Left":
        "the person left the table (control flow); never a ValueError, which play_person takes"
        " for an unreadable message",
    "canasta_cli.util.private_files.InputFileError":
        "an OSError (errno, filename) that callers catch as one; the compiled CanastaError's"
        " instance layout cannot be combined with OSError's (mypyc: lay-out conflict)",
    "canasta_cli.util.private_files.InTheWayError":
        "an OSError (errno, filename) that callers catch as one; the compiled CanastaError's"
        " instance layout cannot be combined with OSError's (mypyc: lay-out conflict)",
}

BUILTIN_EXCEPTIONS = frozenset(name for name, obj in vars(builtins).items()
                               if isinstance(obj, type) and issubclass(obj, BaseException))


@dataclass(frozen=True)
class Found:
    """A class of the scanned sources: its dotted name (``module.QualName``) and its bases,
    resolved to dotted names where they can be (``builtins.ValueError``, ``pkg.mod.Class``)."""

    name: str
    bases: tuple[str, ...]
    line: int


def _module_of(path: str) -> tuple[str, str]:
    """``canasta_cli/core/errors.py`` -> (``canasta_cli.core.errors``, its package)."""
    parts = path.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


def _dotted(node: ast.expr) -> list[str] | None:
    """``a.b.C`` as ["a", "b", "C"]; a subscripted base (``Generic[T]``) as its value."""
    if isinstance(node, ast.Subscript):
        return _dotted(node.value)
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else [*head, node.attr]
    return None


class _Module:
    """One module's names: what each imported or assigned name stands for, and its classes."""

    def __init__(self, name: str, package: str, tree: ast.Module) -> None:
        self.name = name
        self.aliases: dict[str, str] = {}
        self.classes: list[tuple[str, ast.ClassDef]] = []  # (qualname, node)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        head = a.name.split(".")[0]
                        self.aliases[head] = head
            elif isinstance(node, ast.ImportFrom):
                source = import_source(node, package)
                for a in node.names:
                    self.aliases[a.asname or a.name] = f"{source}.{a.name}"
        for node in tree.body:  # ``Base = SomeError``: a name for a class
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name):
                parts = _dotted(node.value)
                if parts is not None and isinstance(node.value, ast.Name | ast.Attribute):
                    self.aliases.setdefault(node.targets[0].id, "=" + ".".join(parts))
        self._collect(tree.body, "")
        self.local = {q.rsplit(".", 1)[-1]: f"{name}.{q}" for q, _ in self.classes}
        self.local.update({q: f"{name}.{q}" for q, _ in self.classes if "." not in q})

    def _collect(self, body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                self.classes.append((prefix + node.name, node))
                self._collect(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self._collect(node.body, f"{prefix}{node.name}.<locals>.")
            else:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    inner = getattr(node, field, None)
                    if isinstance(inner, list):
                        self._collect([n for n in inner if isinstance(n, ast.stmt)], prefix)
                        for h in inner:
                            if isinstance(h, ast.ExceptHandler):
                                self._collect(h.body, prefix)

    def resolve(self, parts: list[str]) -> str:
        """A base named in this module, as a dotted name."""
        head, rest = parts[0], parts[1:]
        alias = self.aliases.get(head)
        if alias is not None and alias.startswith("="):  # ``Base = X``: resolved where it stands
            return ".".join([self.resolve(alias[1:].split(".")), *rest])
        if head in self.local and alias is None:
            return ".".join([self.local[head], *rest])
        if alias is not None:
            return ".".join([alias, *rest])
        if head in BUILTIN_EXCEPTIONS or hasattr(builtins, head):
            return ".".join(["builtins", head, *rest])
        return ".".join([f"{self.name}.{head}", *rest])


def scan(files: Mapping[str, str]) -> dict[str, Found]:
    """Every class of ``files`` (path relative to the package's parent -> source), by dotted
    name, with its bases resolved through imports, re-exports and the classes of ``files``."""
    modules = {}
    for path, source in files.items():
        name, package = _module_of(path)
        modules[name] = _Module(name, package, ast.parse(source, path))
    found: dict[str, Found] = {}
    for mod in modules.values():
        for qual, node in mod.classes:
            bases = tuple(mod.resolve(p) if (p := _dotted(b)) is not None else "?"
                          for b in node.bases)
            found[f"{mod.name}.{qual}"] = Found(f"{mod.name}.{qual}", bases, node.lineno)

    def follow(ref: str, depth: int = 0) -> str:
        """A re-exported name (``canasta_cli.core.IllegalMoveError``) to its class."""
        if ref in found or depth > 20:
            return ref
        owner, _, attr = ref.rpartition(".")
        mod = modules.get(owner)
        if mod is not None and attr in mod.aliases:
            return follow(mod.resolve([attr]), depth + 1)
        return ref

    for name, f in list(found.items()):
        found[name] = Found(name, tuple(follow(b) for b in f.bases), f.line)
    return found


def _external_exception(ref: str) -> bool:
    """Whether a base outside the scanned sources (``ssl.SSLError``) is an exception."""
    module, _, attr = ref.rpartition(".")
    if module == "builtins":
        return attr in BUILTIN_EXCEPTIONS
    try:
        obj = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError):
        return False
    return isinstance(obj, type) and issubclass(obj, BaseException)


def classify(found: Mapping[str, Found], root: str = ROOT) -> tuple[set[str], set[str]]:
    """(the exception classes of ``found``, those of them in ``root``'s family)."""
    exc_memo: dict[str, bool] = {}
    fam_memo: dict[str, bool] = {}

    def is_exception(ref: str) -> bool:
        if ref not in exc_memo:
            exc_memo[ref] = False  # a cycle is no exception
            exc_memo[ref] = any(is_exception(b) for b in found[ref].bases) if ref in found \
                else _external_exception(ref)
        return exc_memo[ref]

    def in_family(ref: str) -> bool:
        if ref not in fam_memo:
            fam_memo[ref] = False
            fam_memo[ref] = ref == root or (ref in found
                                            and any(in_family(b) for b in found[ref].bases))
        return fam_memo[ref]

    exceptions = {n for n in found if is_exception(n)}
    return exceptions, {n for n in exceptions if in_family(n)}


def outside_family(files: Mapping[str, str], allowed: Mapping[str, str] = OUTSIDE,
                   root: str = ROOT) -> list[str]:
    """Each exception class of ``files`` outside ``root``'s family and not ``allowed``, with
    where it is and its bases."""
    found = scan(files)
    exceptions, family = classify(found, root)
    return sorted(f"{n} (line {found[n].line}; bases {', '.join(found[n].bases)})"
                  for n in exceptions - family if n not in allowed)


def _package_files() -> dict[str, str]:
    return {p.relative_to(PACKAGE.parent).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts}


def _import_everything() -> set[str]:
    """Import every module of the package; the ones skipped (an optional dependency, such as
    numpy, pettingzoo or pyspiel, is not installed)."""
    skipped = set()
    for info in pkgutil.walk_packages(canasta_cli.__path__, "canasta_cli.",
                                      onerror=lambda name: None):
        try:
            importlib.import_module(info.name)
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] == "canasta_cli":
                raise
            skipped.add(info.name)
    return skipped


def _subclasses(cls: type) -> Iterator[type]:
    subs: list[type] = cls.__subclasses__()
    for sub in subs:
        yield sub
        yield from _subclasses(sub)


def _dotted_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


# The tests ------------------------------------------------------------------------------------

def test_every_exception_class_of_the_sources_is_in_the_family_or_said_why_not() -> None:
    outside = outside_family(_package_files())
    assert not outside, ("exception classes outside CanastaError's family (derive them from"
                         " CanastaError, keeping any base callers catch them by, or name them"
                         " in OUTSIDE with the reason):\n  " + "\n  ".join(outside))


def test_every_class_named_outside_is_an_exception_outside_the_family() -> None:
    found = scan(_package_files())
    exceptions, family = classify(found)
    for name, why in OUTSIDE.items():
        assert name in exceptions, f"{name} is no longer an exception class of the package"
        assert name not in family, f"{name} is in the family now: drop it from OUTSIDE"
        assert why.strip(), name


def test_importing_every_module_finds_the_family_the_scan_finds() -> None:
    skipped = _import_everything()
    walked = {_dotted_name(c) for c in _subclasses(CanastaError)
              if c.__module__.split(".")[0] == "canasta_cli" and "<locals>" not in c.__qualname__
              } | {ROOT}
    found = scan(_package_files())
    _, family = classify(found)
    scanned = {n for n in family if "<locals>" not in n
               and not any(n.startswith(m + ".") for m in skipped)}
    assert walked == scanned, (walked - scanned, scanned - walked)
    # Every exception class a module holds is in the family, or named outside it.
    for info in pkgutil.walk_packages(canasta_cli.__path__, "canasta_cli.",
                                      onerror=lambda name: None):
        if info.name in skipped:
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, BaseException) \
                    and obj.__module__ == info.name:
                assert issubclass(obj, CanastaError) or _dotted_name(obj) in OUTSIDE, obj


def test_the_family_keeps_the_bases_callers_catch() -> None:
    """Joining the family changed no ``except``: each class is still what it was."""
    from canasta_cli.core import IllegalMoveError
    from canasta_cli.net.client import JoinError
    from canasta_cli.seats.base import SeatFailure
    from canasta_cli.seats.box import BoxUnavailable
    from canasta_cli.tournament.cluster import ClusterError
    assert issubclass(ClusterError, RuntimeError) and issubclass(BoxUnavailable, RuntimeError)
    assert issubclass(SeatFailure, CanastaError) and issubclass(JoinError, CanastaError)
    pytest.importorskip("numpy")
    pytest.importorskip("pettingzoo")
    from canasta_cli.env.aec import IllegalActionError
    assert issubclass(IllegalActionError, IllegalMoveError)
    assert issubclass(IllegalActionError, ValueError)


def test_the_scan_flags_an_exception_outside_the_family() -> None:
    files = {
        "canasta_cli/core/__init__.py": "from .errors import CanastaError\n",
        "canasta_cli/core/errors.py": "class CanastaError(ValueError):\n    pass\n",
        "canasta_cli/fake/other.py": "class Base(Exception):\n    pass\n",
        "canasta_cli/fake/mod.py": (
            "import ssl\n"
            "from ..core import CanastaError\n"
            "from . import other\n"
            "from .other import Base as Renamed\n"
            "Alias = RuntimeError\n"
            "class Good(CanastaError):\n    pass\n"
            "class AlsoGood(Good, OSError):\n    pass\n"
            "class Bad(RuntimeError):\n    pass\n"
            "class ThroughModule(other.Base):\n    pass\n"
            "class ThroughRename(Renamed):\n    pass\n"
            "class ThroughAlias(Alias):\n    pass\n"
            "class Foreign(ssl.SSLError):\n    pass\n"
            "class NotAnError(dict):\n    pass\n"
            "def f():\n    class Inner(KeyError):\n        pass\n"),
    }
    flagged = {line.split(" ")[0] for line in outside_family(files, allowed={})}
    assert flagged == {"canasta_cli.fake.other.Base", "canasta_cli.fake.mod.Bad",
                       "canasta_cli.fake.mod.ThroughModule", "canasta_cli.fake.mod.ThroughRename",
                       "canasta_cli.fake.mod.ThroughAlias", "canasta_cli.fake.mod.Foreign",
                       "canasta_cli.fake.mod.f.<locals>.Inner"}
    allowed = {"canasta_cli.fake.other.Base": "a reason"}
    assert "canasta_cli.fake.other.Base" not in {
        line.split(" ")[0] for line in outside_family(files, allowed=allowed)}
    _, family = classify(scan(files))
    assert {"canasta_cli.fake.mod.Good", "canasta_cli.fake.mod.AlsoGood"} <= family
