"""One control group per bot: memory and process caps, a freezer for fair clocks, and a way
to kill every process a bot started, wherever it went.

The referee joins no group itself: each bot's launcher writes its own pid into the bot's
groups before it starts the bot (so nothing the bot forks can run outside them).  Groups are
made below the referee's own, so an outer limit (a container's, a test's) still holds.  Both
cgroup versions are handled: v1 (one hierarchy per controller: ``pids``, ``memory``,
``freezer``) and v2 (one hierarchy, where the referee's group must allow children).  Where the
user may not create groups, ``BotCgroup.create`` returns None and the caller falls back to
rlimits (see ``box.py``).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import threading
import time
from functools import cache

from ..util.processes import pid_alive

ROOT = "/sys/fs/cgroup"
_COUNTER = itertools.count()
_V1 = ("pids", "memory", "freezer")


def _own_paths() -> dict[str, str]:
    """Controller (or "" for v2) -> this process's group path, from /proc/self/cgroup."""
    out: dict[str, str] = {}
    with contextlib.suppress(OSError), open("/proc/self/cgroup", encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split(":", 2)
            if len(parts) != 3:
                continue
            for ctrl in parts[1].split(","):
                out[ctrl] = parts[2]
    return out


@cache
def layout() -> tuple[str, dict[str, str]] | None:
    """("v1", controller -> parent directory) or ("v2", {"": parent}) where bot groups can be
    made, or None."""
    own = _own_paths()
    if all(os.access(os.path.join(ROOT, c, own.get(c, "/").lstrip("/")), os.W_OK)
           for c in _V1) and all(c in own for c in _V1):
        parents = {c: os.path.join(ROOT, c, own[c].lstrip("/")) for c in _V1}
        if _probe(parents, "v1"):
            return "v1", parents
    if os.path.exists(os.path.join(ROOT, "cgroup.controllers")) and "" in own:
        parent = os.path.join(ROOT, own[""].lstrip("/"))
        with contextlib.suppress(OSError):
            with open(os.path.join(parent, "cgroup.subtree_control"), "w") as f:
                f.write("+pids +memory")
            if _probe({"": parent}, "v2"):
                return "v2", {"": parent}
    return None


def _probe(parents: dict[str, str], version: str) -> bool:
    name = f"canasta-probe-{os.getpid()}"
    made: list[str] = []
    try:
        for parent in parents.values():
            path = os.path.join(parent, name)
            os.mkdir(path)
            made.append(path)
        if version == "v2":
            return all(os.path.exists(os.path.join(made[0], f))
                       for f in ("pids.max", "memory.max", "cgroup.freeze"))
        return True
    except OSError:
        return False
    finally:
        for path in made:
            with contextlib.suppress(OSError):
                os.rmdir(path)


def available() -> bool:
    return layout() is not None


def sweep_stale() -> None:
    """End and remove the groups of bots whose referee died (a SIGKILLed run whose guard
    could not act): their processes are thawed and killed first."""
    found = layout()
    if found is None:
        return
    version, parents = found
    stale: dict[str, dict[str, str]] = {}
    for ctrl, parent in parents.items():
        with contextlib.suppress(OSError):
            for entry in os.listdir(parent):
                pid = entry.split("-")[2] if entry.startswith("canasta-bot-") else ""
                if pid.isdigit() and not pid_alive(int(pid)):
                    stale.setdefault(entry, {})[ctrl] = os.path.join(parent, entry)
    for dirs in stale.values():
        group = BotCgroup(version, dirs)
        group.frozen = True  # whatever it says: thaw, so that the kill can land
        group.kill(timeout=1.0)
        group.remove()


# The guard: a shell that waits for the end of a pipe only the referee holds.  When the
# referee dies, however it dies (SIGKILL included), the guard thaws the referee's bot groups
# (a frozen process cannot die), kills what is left in them and removes them.
_GUARD = ('read _; for d in "$@"; do for g in "$d"/canasta-bot-$P-*; do [ -d "$g" ] || continue;'
          ' echo THAWED >"$g/freezer.state" 2>/dev/null; echo 0 >"$g/cgroup.freeze" 2>/dev/null;'
          ' echo 1 >"$g/cgroup.kill" 2>/dev/null;'
          ' for p in $(cat "$g/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done;'
          ' done; done; sleep 1; for d in "$@"; do for g in "$d"/canasta-bot-$P-*; do'
          ' rmdir "$g" 2>/dev/null; done; done')
_GUARDED: list[int] = []


def _start_guard(parents: list[str]) -> None:
    if _GUARDED and _GUARDED[0] == os.getpid():
        return
    _GUARDED[:] = [os.getpid()]
    r, w = os.pipe()
    try:
        subprocess.Popen(["/bin/sh", "-c", _GUARD, "guard", *parents], stdin=r,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, close_fds=True,
                         env={"P": str(os.getpid()), "PATH": "/usr/bin:/bin"})
    except OSError:
        os.close(w)
        return
    finally:
        os.close(r)
    os.set_inheritable(w, False)  # the write end: held by this process alone, never closed


def _write(path: str, text: str) -> bool:
    try:
        with open(path, "w") as f:
            f.write(text)
        return True
    except OSError:
        return False


class _FrozenKeeper:
    """v1 only: one empty group kept frozen while this process has bot groups.  The v1
    freezer switches a kernel-wide check on with the first frozen group and off with the
    last, and either switch takes 120-140 us where a freeze or a thaw otherwise takes 5-10:
    two bots taking turns flipped it twice a turn.  The group is named like a bot's, so the
    guard and ``sweep_stale`` remove it with the others."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0
        self.path = ""
        self.pid = os.getpid()

    def hold(self, parent: str) -> None:
        with self.lock:
            if self.pid != os.getpid():  # a forked child: the parent's group is not its own
                self.users, self.path, self.pid = 0, "", os.getpid()
            self.users += 1
            if self.users > 1 or self.path:
                return
            path = os.path.join(parent, f"canasta-bot-{os.getpid()}-frozen")
            with contextlib.suppress(OSError):
                if not os.path.isdir(path):
                    os.mkdir(path)
                if _write(os.path.join(path, "freezer.state"), "FROZEN"):
                    self.path = path

    def release(self) -> None:
        with self.lock:
            if self.pid != os.getpid():
                return
            self.users = max(0, self.users - 1)
            if self.users or not self.path:
                return
            _write(os.path.join(self.path, "freezer.state"), "THAWED")
            with contextlib.suppress(OSError):
                os.rmdir(self.path)
            self.path = ""


_KEEPER = _FrozenKeeper()


class BotCgroup:
    """The groups of one bot process tree."""

    def __init__(self, version: str, dirs: dict[str, str]) -> None:
        self.version = version
        self.dirs = dirs
        self.frozen = False
        self._freezer = -1  # the freezer's control file, kept open: two writes per turn
        self._kept = False  # holds the frozen keeper (v1)

    @classmethod
    def create(cls, memory_bytes: int, procs: int) -> BotCgroup | None:
        found = layout()
        if found is None:
            return None
        version, parents = found
        _start_guard(list(parents.values()))
        name = f"canasta-bot-{os.getpid()}-{next(_COUNTER)}"
        dirs: dict[str, str] = {}
        try:
            for ctrl, parent in parents.items():
                path = os.path.join(parent, name)
                os.mkdir(path)
                dirs[ctrl] = path
        except OSError:
            BotCgroup(version, dirs).remove()
            return None
        group = cls(version, dirs)
        if version == "v1":
            ok = (_write(os.path.join(dirs["pids"], "pids.max"), str(procs))
                  and _write(os.path.join(dirs["memory"], "memory.limit_in_bytes"),
                             str(memory_bytes)))
            _write(os.path.join(dirs["memory"], "memory.swappiness"), "0")
        else:
            ok = (_write(os.path.join(dirs[""], "pids.max"), str(procs))
                  and _write(os.path.join(dirs[""], "memory.max"), str(memory_bytes)))
            _write(os.path.join(dirs[""], "memory.swap.max"), "0")
        if not ok:
            group.remove()
            return None
        if version == "v1":
            _KEEPER.hold(parents["freezer"])
            group._kept = True
        return group

    def join_files(self) -> list[str]:
        """The files a launcher writes its pid to, to enter every group."""
        return [os.path.join(d, "cgroup.procs") for d in self.dirs.values()]

    def pids(self) -> list[int]:
        path = self.dirs.get("pids" if self.version == "v1" else "")
        if path is None:
            return []
        try:
            with open(os.path.join(path, "cgroup.procs"), encoding="ascii") as f:
                return [int(p) for p in f.read().split()]
        except (OSError, ValueError):
            return []

    def unfreezable(self, pids: list[int]) -> None:
        """Keep ``pids`` (the box's own waiting processes, never the bot's) out of the
        freezer: each freeze and thaw would otherwise wake every one of them, and the bot's
        thawed process would queue behind them for the CPU.  Their memory and process caps
        stay.  v1 only: under v2 the groups are one, and leaving the freezer would be leaving
        the caps too."""
        where = self.dirs.get("freezer") if self.version == "v1" else None
        if where is None:
            return
        parent = os.path.join(os.path.dirname(where), "cgroup.procs")
        for pid in pids:
            _write(parent, str(pid))

    def _set_frozen(self, frozen: bool) -> None:
        if self._freezer < 0:
            where = self.dirs.get("freezer" if self.version == "v1" else "")
            if where is None:
                return
            path = os.path.join(where, "freezer.state" if self.version == "v1"
                                else "cgroup.freeze")
            try:
                self._freezer = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
            except OSError:
                return
        word = (b"FROZEN" if frozen else b"THAWED") if self.version == "v1" else \
            (b"1" if frozen else b"0")
        with contextlib.suppress(OSError):
            os.write(self._freezer, word)

    def freeze(self) -> None:
        if not self.frozen:
            self.frozen = True
            self._set_frozen(True)

    def thaw(self) -> None:
        if self.frozen:
            self.frozen = False
            self._set_frozen(False)

    def memory_failures(self) -> int:
        """How often the bot hit its memory cap (v1: failcnt; v2: oom_kill events)."""
        try:
            if self.version == "v1":
                with open(os.path.join(self.dirs["memory"], "memory.failcnt")) as f:
                    return int(f.read())
            with open(os.path.join(self.dirs[""], "memory.events")) as f:
                for line in f:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def kill(self, timeout: float = 2.0) -> set[int]:
        """SIGKILL every process in the groups (thawed first: v1 keeps a frozen process
        from dying); the pids it saw there."""
        self.thaw()
        if self.version == "v2" and "" in self.dirs:
            _write(os.path.join(self.dirs[""], "cgroup.kill"), "1")
        deadline = time.monotonic() + timeout
        seen: set[int] = set()
        while True:
            pids = self.pids()
            seen.update(pids)
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            if not pids or time.monotonic() > deadline:
                return seen
            time.sleep(0.005)

    def remove(self) -> None:
        if self._kept:
            self._kept = False
            _KEEPER.release()
        if self._freezer >= 0:
            with contextlib.suppress(OSError):
                os.close(self._freezer)
            self._freezer = -1
        for path in self.dirs.values():
            for _ in range(50):
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
        self.dirs = {}
