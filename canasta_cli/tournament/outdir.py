"""A tournament's output directory: one tournament at a time in it, its master seed kept
there, and never a folder a bot's own files are in.

``hold`` takes an ``fcntl`` lock on ``OUT/.lock`` for the whole run: a second tournament on
the same folder stops at once with one line, so no game is played or written twice.
``seed.json`` is read strictly (a small regular file, a whole number, nothing else); it is
only ever created next to no results: a missing seed.json beside games.jsonl, or one that
the rows' seeds disown (see ``runner.load_done``), is an error, never a new seed drawn in
silence.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import shutil
from pathlib import Path

from ..core.errors import CanastaError
from ..util.private_files import (
    InputFileError,
    InTheWayError,
    open_regular,
    private_dir,
    read_input,
    write_private,
)
from ..util.seeds import MAX_SEED, fresh_seed

SEED_CAP = 4096  # bytes: seed.json holds one number


class OutDirError(CanastaError):
    """The output directory cannot be used; the message is one line."""


_HELD: dict[str, int] = {}  # the output directories this process holds, and their lock fds


def hold(out: Path) -> None:
    """Hold ``out`` for this tournament (created owner-only if new) until ``release`` or the
    end of the process (the kernel drops the lock of a killed run).  Holding it again in the
    same process is a no-op."""
    private_dir(out)
    real = os.path.realpath(out)
    if real in _HELD:
        return
    path = out / ".lock"
    try:  # never through a symbolic link, never a FIFO or a device (waited on)
        fd = open_regular(path, os.O_RDWR)
    except InTheWayError as exc:
        raise OutDirError(str(exc)) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        os.close(fd)
        who = f" (pid {holder})" if holder.isdigit() else ""
        raise OutDirError(f"{out} is in use by another tournament{who}: wait for it to end,"
                          " or give another --out") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    _HELD[real] = fd


def release(out: Path) -> None:
    fd = _HELD.pop(os.path.realpath(out), None)
    if fd is not None:
        os.close(fd)


def tournament_seed(out: Path, seed: int | None) -> int:
    """The master seed: given, or drawn at random the first time; kept in ``out/seed.json``
    (owner-only, hidden from bots) so that running the command again resumes."""
    path = out / "seed.json"
    games = out / "games.jsonl"
    if seed is not None and not -MAX_SEED < seed < MAX_SEED:
        raise OutDirError(f"--seed must be a whole number below 2**128 in size, got"
                          f" {str(seed)[:30]}")
    if not os.path.lexists(path):
        if os.path.lexists(games) and os.lstat(games).st_size > 0:
            raise OutDirError(f"{games} holds results but {path} is missing: without the"
                              " tournament's seed they cannot be checked; restore seed.json,"
                              " or use another --out")
        chosen = seed if seed is not None else fresh_seed()
        write_private(path, json.dumps({"seed": chosen}) + "\n")
        return chosen
    stored = read_seed(path)
    if seed is not None and seed != stored:
        raise OutDirError(f"{out} holds a tournament with another seed ({stored}): use another"
                          " --out")
    return stored


def read_seed(path: Path) -> int:
    damaged = f"{path} is damaged: remove it, or pass the tournament's --seed"
    try:
        data = read_input(path, SEED_CAP, "a tournament's seed file", follow=False)
    except InputFileError as exc:
        raise OutDirError(f"{exc}") from None
    except OSError as exc:
        raise OutDirError(f"cannot read {path}: {exc.strerror}") from None
    try:
        obj = json.loads(data.decode("utf-8"), parse_float=_not_whole, parse_constant=_not_whole)
    except (ValueError, RecursionError):
        raise OutDirError(f"{damaged} (not a JSON object with a whole-number 'seed')") from None
    value = obj.get("seed") if isinstance(obj, dict) else None
    if not isinstance(value, int) or isinstance(value, bool) or not -MAX_SEED < value < MAX_SEED:
        raise OutDirError(f"{damaged} ('seed' must be a whole number below 2**128 in size)")
    return value


def _not_whole(text: str) -> object:
    raise ValueError(f"{text[:20]} is not a whole number")


def bot_files_inside(out: Path, bots: dict[str, str]) -> tuple[str, str] | None:
    """A bot (name, file) whose program or a file its command names lies inside ``out``:
    that bot would see the folder, and read the seed of the deals it plays there."""
    top = os.path.realpath(out)
    for name, command in bots.items():
        if command.startswith("builtin:"):
            continue
        try:
            argv = shlex.split(command)
        except ValueError:
            continue
        program = shutil.which(argv[0]) if argv and os.sep not in argv[0] else None
        for arg in [*argv, *([program] if program else [])]:
            if not os.path.exists(arg):
                continue
            real = os.path.realpath(arg)
            if real == top or real.startswith(top.rstrip(os.sep) + os.sep):
                return name, arg
    return None
