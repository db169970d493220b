"""The files canasta keeps, written never through a link and owner-only (mode 0600) unless the
caller asks for another mode (``kit init``'s starter files: 0o666, narrowed by the umask);
and input files, read with a size cap.

The commands' outputs go through this module: records, transcripts, saves, sealed seeds,
bots' stderr logs, a tournament's results, reports and replay pages, settings, lesson
progress, the statistics and ladder files (SQLite adds its own ``-wal``/``-journal`` files
beside them).  Not everything canasta writes does: the cluster's certificates
(tournament/certs.py makes them with ``O_EXCL | O_NOFOLLOW`` too), the kernel's cgroup files,
and scratch files and folders made with ``tempfile`` (bots' homes, the box's staging folder,
the benches' work files), which follow the usual ``tempfile`` modes.  None of this module's
files is ever written through a symbolic link, whoever put it there (a link in a directory
the user named is no reason to write where it leads; a directory the user named may itself
be a link).  A file's own folder is made owner-only when it is new (folders above it follow
the umask); a folder that exists keeps its mode:

* A file written as it goes (a record, a transcript) is a new file of its own: created with
  ``O_EXCL | O_NOFOLLOW`` and mode 0600, so that a symbolic link or a hard link planted where
  it is written is never written through, and an old file's wider mode is never kept.  A
  symbolic link in its place is refused; a regular file in its place is replaced (unlinked,
  then created anew); anything else (a FIFO, a device, a directory) is refused.
* A file written whole (results, reports, settings) is written under a temporary name and
  renamed into place: a symbolic link in its place is replaced, never followed.
* A file appended to (a bot's stderr log, ``games.jsonl``) or held open (a lock, an SQLite
  file) is opened with ``O_NOFOLLOW | O_NONBLOCK`` (a symbolic link is refused) and then
  checked with ``fstat`` to be a regular file, so that a FIFO or a device in its place is
  refused at once, never waited on.

Inputs are read only from regular files, after ``fstat``, up to a cap: a FIFO or a device is
refused at once (never a read that waits forever) and a huge file is refused by its size.
Each refusal is an OSError whose ``str`` is one line, ``path: reason``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import IO, BinaryIO

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
LINK_REFUSED = "a symbolic link is in the way; canasta does not write through one (remove it)"


class InputFileError(OSError):
    """An input file refused before or while reading it; ``strerror`` says why in words."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(errno.EINVAL, reason, os.fspath(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


class InTheWayError(OSError):
    """Something canasta does not write through is where it writes: a symbolic link, a FIFO,
    a device, a directory.  ``str`` is one line: ``path: what is there``."""

    def __init__(self, path: str | os.PathLike[str], mode: int) -> None:
        if stat.S_ISLNK(mode):
            code, reason = errno.ELOOP, LINK_REFUSED
        else:
            code, reason = errno.EEXIST, (f"{_kind(mode)} is in the way, not a regular file;"
                                          " canasta writes regular files only (remove it)")
        super().__init__(code, reason, os.fspath(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def _kind(mode: int) -> str:
    return ("a symbolic link" if stat.S_ISLNK(mode) else
            "a directory" if stat.S_ISDIR(mode) else
            "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else
            "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else
            "a socket" if stat.S_ISSOCK(mode) else "not a regular file")


def os_message(exc: OSError) -> str:
    """One line for a failed file operation: ``path: reason``."""
    reason = exc.strerror or str(exc)
    return f"{exc.filename}: {reason}" if exc.filename else reason


def private_dir(path: Path) -> None:
    """``path`` as a directory (created owner-only if new); a file in its place is an error."""
    if path.exists() and not path.is_dir():
        raise OSError(errno.ENOTDIR, "not a directory", str(path))
    path.mkdir(parents=True, exist_ok=True, mode=0o700)


def _fresh_fd(path: Path, mode: int = 0o600) -> int:
    """A new file at ``path`` (see the module's docstring): owner-only unless ``mode`` says
    otherwise (it is then narrowed by the umask, as any new file's)."""
    try:
        return os.open(path, _CREATE, mode)
    except FileExistsError:
        pass
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        raise InTheWayError(path, st.st_mode)
    os.unlink(path)
    return os.open(path, _CREATE, mode)


def open_regular(path: Path, flags: int, mode: int = 0o600) -> int:
    """A descriptor of the regular file at ``path`` (created with ``mode`` if missing), open
    with ``flags`` (``os.O_WRONLY | os.O_APPEND``, ``os.O_RDWR``, ...): never through a
    symbolic link, never a FIFO or a device (refused without waiting on it or opening it), an
    InTheWayError if one of these is there.  Close-on-exec, blocking as usual once open; an
    owner-only ``mode`` narrows a wider mode the file had."""
    try:
        before = os.lstat(path)
    except FileNotFoundError:
        before = None
    if before is not None and not stat.S_ISREG(before.st_mode):
        raise InTheWayError(path, before.st_mode)  # a device is not even opened
    try:
        fd = os.open(path, flags | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     mode)
    except OSError as exc:
        # Put there since the lstat: a link (ELOOP), a FIFO without a reader (ENXIO), ...
        try:
            now: int | None = os.lstat(path).st_mode
        except OSError:
            now = None
        if now is not None and not stat.S_ISREG(now):
            raise InTheWayError(path, now) from None
        exc.filename = exc.filename or str(path)
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InTheWayError(path, st.st_mode)
        os.set_blocking(fd, True)
        if not mode & 0o077 and st.st_mode & 0o077:
            os.fchmod(fd, mode & 0o777)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_private(path: Path) -> IO[str]:
    """``path`` as a new owner-only file open for writing; its directory is created
    owner-only if it is new."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    return open(path, "w", encoding="utf-8",  # noqa: SIM115 - the caller closes it
                opener=lambda name, flags: _fresh_fd(Path(name)))


def write_private(path: Path, text: str | bytes, mode: int = 0o600) -> None:
    """``text`` in an owner-only file, on disk before this returns.  The file is written
    under a temporary name and then renamed: whoever reads ``path`` sees the old content or
    the new, never a part (a full disk leaves the old file as it was), and a symbolic link
    at ``path`` is replaced, never written through.  ``mode``: for a file meant to be shared
    (a starter bot's source), 0o666, which the umask narrows."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    data = text.encode("utf-8") if isinstance(text, str) else text
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = _fresh_fd(tmp, mode)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)  # replaces a symbolic link itself, never its target
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if exc.filename is None or exc.filename == str(tmp):
            exc.filename = str(path)
        raise


def open_append(path: Path) -> int:
    """A descriptor that appends to ``path`` (created if missing): not through a symbolic
    link, a regular file, owner-only (a wider mode is narrowed first); see ``open_regular``."""
    return open_regular(path, os.O_WRONLY | os.O_APPEND)


def private_database(path: Path) -> str:
    """``path``, made ready for ``sqlite3.connect``: an owner-only regular file (created
    empty if missing; its directory owner-only if new), never a symbolic link (an
    InTheWayError).  SQLite follows a link at the database's own name by itself, so the
    name is checked here; the files SQLite adds beside it (``-wal``, ``-shm``,
    ``-journal``) it opens with ``O_NOFOLLOW`` itself."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.close(open_regular(path, os.O_RDWR))
    return str(path)


def append_line(fd: int, line: bytes, path: Path) -> None:
    """Append one whole line and sync it; a write cut short (a full disk) is taken back, so
    that the file keeps every whole line written before and no part of this one."""
    start = os.lseek(fd, 0, os.SEEK_END)
    try:
        view = memoryview(line)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, start)
        exc.filename = exc.filename or str(path)
        raise


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def open_input(path: Path, cap: int, what: str, follow: bool = True) -> BinaryIO:
    """``path`` open for reading, if it is a regular file of at most ``cap`` bytes (else an
    InputFileError naming ``what`` is expected there).  ``follow=False`` also refuses a
    symbolic link (files in a directory canasta writes)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        before = os.stat(path, follow_symlinks=follow)  # a device is not even opened
        if stat.S_ISLNK(before.st_mode):
            raise InputFileError(path, f"a symbolic link, where {what} is expected")
        if not stat.S_ISREG(before.st_mode):
            raise InputFileError(path, f"{_kind(before.st_mode)}, not a regular file: {what}"
                                 " is read from a regular file only")
        fd = os.open(path, flags)
    except InputFileError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise InputFileError(path, f"a symbolic link, where {what} is expected") from None
        raise
    st = os.fstat(fd)
    if (st.st_dev, st.st_ino) != (before.st_dev, before.st_ino) or not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise InputFileError(path, "changed while it was being opened")
    if st.st_size > cap:
        os.close(fd)
        raise InputFileError(path, f"{_size(st.st_size)}, more than {what} can be"
                             f" ({_size(cap)} at most)")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_input(path: Path, cap: int, what: str, follow: bool = True) -> bytes:
    """The bytes of ``path`` (see ``open_input``); a file that grows past the cap while it
    is read is refused too."""
    with open_input(path, cap, what, follow) as f:
        data = f.read(cap + 1)
    if len(data) > cap:
        raise InputFileError(path, f"more than {what} can be ({_size(cap)} at most)")
    return data
