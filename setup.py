"""Builds copy the example bots, the bot kits and the protocol documents into the package
(``canasta_cli/_data/``), so that an installed copy has them; a checkout reads them in place.
Everything else about the project is in pyproject.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SHIPPED = {"bots": ("*.py", "*.js", "*.md"),
           "protocol": ("README.md", "schema/*.json", "examples/**/*.json*",
                        "transcripts/*")}


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


setup(cmdclass={"build_py": BuildWithData})
