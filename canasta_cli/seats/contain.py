"""Keeping bot processes contained: whatever a bot starts ends with it, and with the referee.

On Linux each bot runs in its own PID and mount namespaces, started through util-linux's
``setpriv`` and ``unshare``:

* ``setpriv --pdeathsig KILL``: the launcher is killed when the referee dies, even by SIGKILL
  (the kernel's parent-death signal, no polling), and the namespace's first process is killed
  when the launcher dies;
* ``unshare --pid``: a small ``sh`` is the namespace's first process and waits for the bot;
  when the bot ends, so does that ``sh``, and the kernel then kills every process left in the
  namespace, so children that left the bot's process group (``setsid``, a double fork) end
  too.  (The bot is not the first process itself because that one ignores signals it has no
  handler for, which would change how a bot dies.)
* ``unshare --mount``: the bot's /proc shows only its own namespace (not the referee's command
  line, files or memory), and the directories the referee writes records, saves and results
  to appear empty.  The bot runs without capabilities, so it cannot undo that.

A user namespace makes this work without privileges.  Where any of it is missing (another
system, user namespaces turned off), bots run directly in their own process group with the
referee as a child subreaper: groups are still killed, but an escaped child can outlive a
killed referee; ``containment()`` says which is in force.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys

_FORCED: list[str] = []  # "none" forces plain process groups (tests of the fallback)


# The outer sh runs where unshare put it (its children go to the new PID namespace): it hands
# the bot's pipes over as fds 3-5, keeps none itself, and waits (a TERM only interrupts the
# wait).  The inner sh, the namespace's first process, dies with the outer one (setpriv),
# mounts a /proc of the namespace's own and empty, read-only file systems over the directories
# the referee hides (CANASTA_HIDE, one per line), gives the bot its pipes back as 0-2, keeps
# none itself, and starts the bot without any capability (so it cannot undo the mounts).
# So the bot alone holds its pipes: closing one is seen by the referee at once.
_OUTER = ('sp=$1 inner=$2; shift 2; exec 3<&0 4>&1 5>&2 </dev/null >/dev/null 2>/dev/null;'
          ' trap : TERM; "$sp" --pdeathsig KILL /bin/sh -c "$inner" bot "$sp" "$@" &'
          ' exec 3<&- 4>&- 5>&-; while :; do wait $!; s=$?;'
          ' kill -0 $! 2>/dev/null || exit $s; done')
_INNER = ('sp=$1; shift; mount -t proc proc /proc || exit 125; IFS="\n";'
          ' for d in $CANASTA_HIDE; do if [ -d "$d" ]; then'
          ' mount -t tmpfs -o size=4k,mode=0500,ro none "$d" || exit 125; fi; done;'
          ' unset IFS CANASTA_HIDE; "$sp" --bounding-set=-all --inh-caps=-all --'
          ' "$@" <&3 >&4 2>&5 3<&- 4>&- 5>&- & exec 3<&- 4>&- 5>&-; wait $!')
_PROBE = ("/bin/sh", "-c", 'test "$(readlink /proc/self)" -lt 20')  # a pid of the new namespace


@functools.cache
def _namespace_prefix() -> tuple[str, ...]:
    if not sys.platform.startswith("linux") or os.environ.get("CANASTA_NO_NAMESPACE"):
        return ()
    setpriv, unshare = shutil.which("setpriv"), shutil.which("unshare")
    if not setpriv or not unshare or not os.access("/bin/sh", os.X_OK):
        return ()
    prefix = (setpriv, "--pdeathsig", "KILL", unshare, "--user", "--map-root-user", "--pid",
              "--mount", "--propagation", "private", "--", "/bin/sh", "-c", _OUTER, "bot",
              setpriv, _INNER)
    try:
        done = subprocess.run([*prefix, *_PROBE], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return prefix if done.returncode == 0 else ()


def containment() -> str:
    """``pid-namespace`` or ``process-group``: how bot processes are kept together."""
    if _FORCED and _FORCED[0] == "none":
        return "process-group"
    return "pid-namespace" if _namespace_prefix() else "process-group"


_HIDDEN: set[str] = set()


def hide(*paths: str | os.PathLike[str]) -> None:
    """Keep these directories out of every bot's sight from now on (where a PID namespace is
    available: they appear empty to the bot).  The referee's records, saves and results."""
    for p in paths:
        os.makedirs(p, mode=0o700, exist_ok=True)  # it must exist to be covered
        _HIDDEN.add(os.path.realpath(p))


def contained(argv: list[str], env: dict[str, str], cwd: str) -> list[str]:
    """The command line that runs ``argv`` contained (``argv`` itself where that is not
    available); ``env`` receives what the launcher needs.  A hidden directory that holds the
    bot's program, a file its command names, or its working directory stays visible."""
    if containment() == "process-group":
        return list(argv)
    program = shutil.which(argv[0], path=env.get("PATH")) if argv else None
    named = [a for a in argv if os.path.isfile(a)]
    own = [os.path.realpath(a) for a in [cwd, *named, *([program] if program else [])]
           if os.path.isabs(a)]
    hidden = [d for d in sorted(_HIDDEN)
              if "\n" not in d and not any(o == d or o.startswith(d + os.sep) for o in own)]
    if hidden:
        env["CANASTA_HIDE"] = "\n".join(hidden)
    return [*_namespace_prefix(), *argv]


_SUBREAPER: list[bool] = []


def become_subreaper() -> None:
    """Before the first bot starts (Linux): have orphaned descendants of bots reparent to
    this process, so that they are reaped here and not left as zombies under an init that may
    not reap (containers); and make this process non-dumpable, so that a bot running as the
    same user cannot open its memory, files or environment through /proc."""
    if _SUBREAPER or not sys.platform.startswith("linux"):
        return
    _SUBREAPER.append(True)
    with contextlib.suppress(OSError, AttributeError):
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE


def die_with_parent() -> None:
    """Ask the kernel to kill this process when its parent dies (tournament workers)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        import ctypes
        import signal
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG


# The sandbox -----------------------------------------------------------------------------------

class SandboxUnavailable(RuntimeError):
    """--sandbox was asked for and bubblewrap cannot be run here."""


_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
        "/etc/localtime", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group")


def require_sandbox() -> str:
    """bubblewrap's path, or SandboxUnavailable saying how to get it."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        raise SandboxUnavailable("--sandbox runs bots under bubblewrap, which is not installed"
                                 " (Debian/Ubuntu: apt install bubblewrap)")
    return bwrap


def _program_dirs(argv: list[str], path: str) -> list[str]:
    """The directories a bot needs to run: its program's (and the interpreter's install,
    for a virtual environment's or a pyenv's interpreter), and those of files it names."""
    dirs: list[str] = []
    program = argv[0] if os.sep in argv[0] else shutil.which(argv[0], path=path) or argv[0]
    if os.path.isabs(program):
        for p in (program, os.path.realpath(program)):
            top = os.path.dirname(os.path.dirname(p))  # .../bin/python -> the install
            if not any(top == s or top.startswith(s + os.sep) for s in _SYSTEM) and top != "/":
                dirs.append(top)
    for arg in argv[1:]:
        if os.path.isabs(arg) and os.path.isfile(arg):
            dirs.append(os.path.dirname(arg))
    return dirs


def sandboxed(argv: list[str], env: dict[str, str]) -> list[str]:
    """``argv`` under bubblewrap: system directories and the bot's own directory read-only,
    a private /tmp (its home and working directory), its own /proc (no other process), no
    network, no capability, and it dies with the referee."""
    bwrap = require_sandbox()
    cmd = [bwrap, "--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL",
           "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for d in _SYSTEM:
        if os.path.lexists(d):
            cmd += ["--ro-bind", d, d] if not os.path.islink(d) else ["--symlink",
                                                                       os.readlink(d), d]
    for f in _ETC:
        if os.path.exists(f):
            cmd += ["--ro-bind", f, f]
    for d in sorted(set(_program_dirs(argv, env.get("PATH", os.defpath)))):
        cmd += ["--ro-bind", d, d]
    env["HOME"] = env["TMPDIR"] = "/tmp"
    return [*cmd, "--chdir", "/tmp", "--", *argv]
