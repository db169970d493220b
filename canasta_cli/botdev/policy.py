"""Policies run as bots: a policy function (observation, mask) -> action index, loaded
from a ``.py`` file or a module by name (``canasta bot policy``, docs/ML.md)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from ..core.errors import CanastaError


class SpecError(CanastaError):
    """A policy spec that names nothing loadable."""


def load_policy(source: str, function: str = "policy", arg: str | None = None) -> Any:
    """``function`` from ``source`` (a ``.py`` file or a module name); with ``arg`` it is a
    factory called with it (a weights file, say) and its result is the policy."""
    if not function.isidentifier():
        raise SpecError(f"--function must be a Python name, not {function[:50]!r}")
    if source.endswith(".py"):
        path = Path(source)
        if not path.is_file():
            raise SpecError(f"no such file: {source}")
        loader_spec = importlib.util.spec_from_file_location(f"canasta_policy_{path.stem}",
                                                             path)
        if loader_spec is None or loader_spec.loader is None:
            raise SpecError(f"cannot load {source}")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[loader_spec.name] = module
        try:
            loader_spec.loader.exec_module(module)
        except Exception as exc:  # the user's file: say what broke, in one line
            raise SpecError(f"{source} failed to load: {type(exc).__name__}: {exc}") from None
    else:
        try:
            module = importlib.import_module(source)
        except ImportError as exc:
            raise SpecError(f"cannot import {source}: {exc}") from None
    target = getattr(module, function, None)
    if not callable(target):
        raise SpecError(f"{source} has no function {function}")
    if arg is not None:
        try:
            target = target(arg)
        except Exception as exc:
            raise SpecError(f"{function}({arg!r}) failed: {type(exc).__name__}: {exc}") from None
        if not callable(target):
            raise SpecError(f"{function}({arg!r}) did not return a policy function")
    return target
