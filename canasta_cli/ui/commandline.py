"""Commands the program tells a person to copy (``Resume with: ...``, a replay line): this
program named as it can be typed here (``program_command``, ``command_line``).

A line with such a command (``Resume with: canasta play --resume FILE``) is printed as it is,
label and command on one line, never wrapped by the program (``typer.echo``,
``Terminal.raw``; not ``say``): the terminal folds a long line without putting a newline into
it, so that it is copied and pasted whole.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys

NAME = "canasta"  # the installed command ([project.scripts] in pyproject.toml)


def program_command() -> str:
    """This program as it can be typed here: ``canasta`` when that is this program on the
    PATH, else the absolute path it was started by (``/home/me/.venv/bin/canasta``), or
    ``python -m canasta_cli.cli`` with this interpreter when it was not started as
    ``canasta`` at all (``python -m``, a test runner)."""
    given = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if os.path.basename(given) not in (NAME, f"{NAME}.exe"):
        return f"{shlex.quote(sys.executable)} -m canasta_cli.cli"
    found = given if os.sep in given else shutil.which(given)
    if found is None:  # started by a bare name that is not on the PATH: say the name
        return NAME
    on_path = shutil.which(NAME)
    if on_path and os.path.realpath(on_path) == os.path.realpath(found):
        return NAME
    return shlex.quote(os.path.abspath(found))


def command_line(*args: str) -> str:
    """``canasta ARGS...`` as it can be typed here, each argument quoted for a shell."""
    return " ".join([program_command(), *(shlex.quote(a) for a in args)])

