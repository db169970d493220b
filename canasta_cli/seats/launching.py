"""How a bot's program is started: the environment it gets (nothing about the game), its
arguments made absolute, why it cannot be started, and the folder for unboxed bots' homes."""

from __future__ import annotations

import atexit
import os
import shutil

from .leftovers import run_dir

# Only what a program needs to run; nothing about the game (no seed, no deck) is ever passed.
_ENV_KEEP = ("PATH", "LANG", "LANGUAGE", "SYSTEMROOT", "PYTHONPATH", "VIRTUAL_ENV",
             "NODE_PATH", "TERM")


def bot_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in _ENV_KEEP or k.startswith("LC_")}
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


_RUN_DIR: list[tuple[int, str]] = []


def home_folder() -> str:
    """This process's folder for unboxed bots' homes (``leftovers.run_dir``): a later run
    removes it if this process was killed before it could."""
    if not _RUN_DIR or _RUN_DIR[0][0] != os.getpid():
        path = str(run_dir())
        _RUN_DIR[:] = [(os.getpid(), path)]
        atexit.register(shutil.rmtree, path, True)
    return _RUN_DIR[0][1]


def absolute_args(argv: list[str], base: str) -> list[str]:
    """``argv`` with relative paths of existing files made absolute (the bot runs elsewhere)."""
    out = []
    for i, arg in enumerate(argv):
        if (not os.path.isabs(arg) and not arg.startswith("-") and (i > 0 or os.sep in arg)
                and os.path.exists(os.path.join(base, arg))):
            arg = os.path.abspath(os.path.join(base, arg))
        out.append(arg)
    return out


def unrunnable(program: str, cwd: str | None) -> str | None:
    """Why ``program`` cannot be started, checked here because a contained bot is started
    through a launcher that would only report it on stderr."""
    env_path = bot_environment().get("PATH", os.defpath)
    if os.sep in program:
        path = os.path.join(cwd or ".", program)
        if not os.path.exists(path):
            return "No such file or directory"
        if os.path.isdir(path) or not os.access(path, os.X_OK):
            return "Permission denied"
        return None
    return None if shutil.which(program, path=env_path) else "command not found"
