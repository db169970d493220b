"""Builds copy the example bots, the bot kits, the protocol documents and the rules
(docs/RULES.md) into the package (``canasta_cli/_data/``), so that an installed copy has them
(``canasta rules`` and the game's help name that copy); a checkout reads them in place.
``CANASTA_COMPILE=1`` compiles the modules in ``COMPILED`` with mypyc (see build_backend/).
Everything else about the project is in pyproject.toml."""

from __future__ import annotations

import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SHIPPED = {"bots": ("*.py", "*.js", "*.md"),
           "protocol": ("README.md", "schema/*.json", "examples/**/*.json*",
                        "transcripts/*"),
           "docs": ("RULES.md",)}
sys.path.insert(0, str(ROOT / "build_backend"))
from canasta_build import compile_requested, compiled_sources  # noqa: E402

COMPILED = compiled_sources(ROOT)  # what is compiled, and why: build_backend/canasta_build.py


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        target = Path(self.build_lib) / "canasta_cli" / "_data"
        for folder, patterns in SHIPPED.items():
            for pattern in patterns:
                for src in sorted((ROOT / folder).glob(pattern)):
                    if src.is_file():
                        dest = target / folder / src.relative_to(ROOT / folder)
                        dest.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copy2(src, dest)


class BuildExtSideBySide(build_ext):
    """Compiles the C files of one extension side by side, a compiler per core: mypyc writes
    a file per module (``multi_file``) into one extension, which setuptools would compile one
    after another (it runs extensions, not their files, in parallel)."""

    def build_extension(self, ext: Any) -> None:
        compiler = self.compiler
        one_by_one = compiler.compile
        jobs = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                else os.cpu_count() or 1)  # the cores this process may use (macOS: all)

        def side_by_side(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
            if jobs < 2 or len(sources) < 2:
                return one_by_one(sources, *args, **kwargs)
            for obj in compiler.object_filenames(sources, output_dir=kwargs.get("output_dir")):
                os.makedirs(os.path.dirname(obj) or ".", exist_ok=True)  # not in the threads
            # The largest first, so that no long one is left to start last.
            order = sorted(sources, key=lambda s: -os.path.getsize(s))
            with ThreadPoolExecutor(jobs) as pool:
                objects = list(pool.map(lambda s: one_by_one([s], *args, **kwargs), order))
            done = dict(zip(order, objects, strict=True))
            return [obj for src in sources for obj in done[src]]

        compiler.compile = side_by_side
        try:
            super().build_extension(ext)
        finally:
            del compiler.compile  # the class's own again


def _extensions() -> list[object]:
    if not compile_requested() or {"egg_info", "dist_info"} & set(sys.argv):
        return []  # pure, or only the metadata is asked for: nothing to compile
    from mypyc.build import mypycify
    # What an earlier compiled build left (a module compiled then, not now) must not ship.
    for old in (ROOT / "build" / "compiled").glob("lib*"):
        shutil.rmtree(old)
    # A C file per module (multi_file), compiled side by side (BuildExtSideBySide): half the
    # build's time on two cores, and the same speed at run time (docs/benchmarks.md, the compiled build).
    return list(mypycify(COMPILED, opt_level="3", multi_file=True,
                         target_dir="build/compiled/mypyc"))


# The compiled build keeps its own build directory: a later pure build never picks up its modules.
setup(cmdclass={"build_py": BuildWithData, "build_ext": BuildExtSideBySide}, ext_modules=_extensions(),
      options={"build": {"build_base": "build/compiled" if compile_requested() else "build/pure"}})
