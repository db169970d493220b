"""Every test runs with its own data and state directories, so that saved games and their
sealed seeds never land in the real home directory."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_xdg_dirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    base = tmp_path_factory.mktemp("xdg")
    saved = {k: os.environ.get(k) for k in ("XDG_DATA_HOME", "XDG_STATE_HOME")}
    os.environ["XDG_DATA_HOME"] = str(base / "data")
    os.environ["XDG_STATE_HOME"] = str(base / "state")
    yield base
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
