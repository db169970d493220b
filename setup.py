"""Builds copy the example bots, the bot kits and the protocol documents into the package
(``canasta_cli/_data/``), so that an installed copy has them; a checkout reads them in place.
``CANASTA_COMPILE=1`` compiles the modules in ``COMPILED`` with mypyc (see build_backend/).
Everything else about the project is in pyproject.toml."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SHIPPED = {"bots": ("*.py", "*.js", "*.md"),
           "protocol": ("README.md", "schema/*.json", "examples/**/*.json*",
                        "transcripts/*")}
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


def _extensions() -> list[object]:
    if not compile_requested() or {"egg_info", "dist_info"} & set(sys.argv):
        return []  # pure, or only the metadata is asked for: nothing to compile
    from mypyc.build import mypycify
    # What an earlier compiled build left (a module compiled then, not now) must not ship.
    for old in (ROOT / "build" / "compiled").glob("lib*"):
        shutil.rmtree(old)
    return list(mypycify(COMPILED, opt_level="3", target_dir="build/compiled/mypyc"))


# The compiled build keeps its own build directory: a later pure build never picks up its modules.
setup(cmdclass={"build_py": BuildWithData}, ext_modules=_extensions(),
      options={"build": {"build_base": "build/compiled" if compile_requested() else "build/pure"}})
