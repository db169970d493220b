"""Tournaments on a Dask cluster no bot can reach: a real scheduler and worker on 127.0.0.1
with TLS certificates made by ``canasta cluster init``, plain and foreign clients refused, a
bot that tries the scheduler's port and the keys, and the client's check of what workers
send back."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

REASON = "needs the cluster extra: pip install 'canasta[cluster]'"
# Found, not imported: importing distributed costs every test process a second to collect,
# and only the one that runs these tests needs it.
if find_spec("distributed") is None or find_spec("cryptography") is None:
    pytest.skip(REASON, allow_module_level=True)

from test_signals import sigint_as_at_a_terminal  # noqa: E402

from canasta_cli.core import PRESETS  # noqa: E402
from canasta_cli.hosting.referee import TimeControl  # noqa: E402
from canasta_cli.tournament.cluster import ClusterError, DaskExecutor  # noqa: E402
from canasta_cli.tournament.cluster_worker import play_fresh  # noqa: E402
from canasta_cli.tournament.rows import row_problem, rows_problem  # noqa: E402
from canasta_cli.tournament.runner import (  # noqa: E402
    Config,
    InlineExecutor,
    TournamentPlan,
    play_tasks,
    run_tournament,
)
from canasta_cli.tournament.schedule import deal_seed, schedule  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
CANASTA = shutil.which("canasta", path=str(BIN)) or "canasta"
DASK = shutil.which("dask", path=str(BIN)) or "dask"
PROBE = ROOT / "tests" / "bots" / "cluster_probe.py"
GREEDY = f"{sys.executable} {ROOT / 'bots' / 'greedy_bot.py'}"
ONE_HAND = PRESETS["classic"].with_options(max_hands=1)
GAME = ["--games", "1", "--set", "max_hands=1"]


def canasta(*args: str, env: dict[str, str] | None = None,
            timeout: float = 240) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([CANASTA, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, check=False)
    assert "Traceback" not in done.stderr, done.stderr
    return done


@dataclass
class Cluster:
    address: str
    port: int
    certs: Path
    init_output: str
    groups: list[int]


def _start(argv: list[str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)


def _printed(output: str, program: str) -> list[str]:
    """The command line ``cluster init`` printed for ``dask scheduler`` or ``dask worker``."""
    line = next(x.strip() for x in output.splitlines() if x.strip().startswith(program))
    argv = shlex.split(line)
    return [DASK, *argv[1:]]


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    """The worker, then the scheduler: a worker told to close by both at once can hang in
    Dask's shutdown for the whole grace period."""
    for proc in reversed(procs):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=20)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # the group: whatever it started, too
        proc.wait(timeout=20)


def _processes() -> Iterator[tuple[int, int, int, str, str]]:
    """(pid, parent, group, state, name) of every process, zombies included."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                name, fields = f.read().rsplit(")", 1)
            state, ppid, group = fields.split()[:3]
            yield int(entry), int(ppid), int(group), state, name.split("(", 1)[1]
        except (OSError, ValueError):
            continue


def _group_members(pgid: int) -> list[tuple[int, int, str, str]]:
    """(pid, parent, state, name) of every process in group ``pgid``, zombies included."""
    return [(pid, ppid, state, name) for pid, ppid, group, state, name in _processes()
            if group == pgid]


def _wait_group_gone(pgid: int, seconds: float = 30.0) -> None:
    """Until no process of the group runs.  Its killed members are reaped by whoever
    adopted them: init, or this test process once a referee in it made it a child
    subreaper (then only this process can reap them, so it does)."""
    deadline = time.monotonic() + seconds
    while True:
        members = _group_members(pgid)
        for pid, parent, state, _ in members:
            if state == "Z" and parent == os.getpid():
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
        running = [m for m in members if m[2] not in ("Z", "X")]
        if not running:
            return
        assert time.monotonic() < deadline, f"process group {pgid} outlived the cluster: {running}"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A scheduler and a worker started with the commands ``cluster init`` prints (on
    127.0.0.1, a free port, no dashboard port of its own)."""
    base = tmp_path_factory.mktemp("cluster")
    certs = base / "certs"
    made = canasta("cluster", "init", str(certs))
    assert made.returncode == 0, made.stderr
    sched_file = base / "scheduler.json"
    scheduler = [a if a != "8786" else "0" for a in _printed(made.stdout, "dask scheduler")]
    procs = [_start([*scheduler, "--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0",
                     "--scheduler-file", str(sched_file)], base / "scheduler.log")]
    try:
        deadline = time.monotonic() + 120
        while not sched_file.exists() or not sched_file.read_text().strip().endswith("}"):
            assert procs[0].poll() is None, (base / "scheduler.log").read_text()
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.2)
        address = json.loads(sched_file.read_text())["address"]
        assert address.startswith("tls://127.0.0.1:")
        worker = [address if a == "tls://HOST:8786" else a
                  for a in _printed(made.stdout, "dask worker")]
        assert address in worker
        procs.append(_start([*worker, "--host", "127.0.0.1", "--nthreads", "2", "--no-nanny",
                             "--dashboard-address", "127.0.0.1:0",
                             "--local-directory", str(base / "worker")], base / "worker.log"))
        while "Registered to" not in (base / "worker.log").read_text():
            assert procs[1].poll() is None, (base / "worker.log").read_text()
            assert time.monotonic() < deadline, "the worker did not start"
            time.sleep(0.2)
        yield Cluster(address, int(address.rsplit(":", 1)[1]), certs, made.stdout,
                      [p.pid for p in procs])
    finally:
        _stop(procs)
    # Nothing the cluster started is left.  The group's members that the worker started
    # are killed with it but reaped by init, not by us: give that time, not luck.
    for pgid in (p.pid for p in procs):
        _wait_group_gone(pgid)


def _rows(out: Path) -> list[dict[str, Any]]:
    rows = [json.loads(x) for x in (out / "games.jsonl").read_text().splitlines()]
    return sorted(rows, key=lambda r: r["index"])


def test_cluster_init_writes_owner_only_certificates_and_the_commands(
        cluster: Cluster, tmp_path: Path) -> None:
    assert stat.S_IMODE(os.stat(cluster.certs).st_mode) == 0o700
    names = sorted(os.listdir(cluster.certs))
    assert names == ["ca.pem", "client.key", "client.pem", "node.key", "node.pem"]
    for name in names:
        assert stat.S_IMODE(os.stat(cluster.certs / name).st_mode) == 0o600
    text = cluster.init_output
    assert f"--cluster-tls {cluster.certs}" in text and "--tls-ca-file" in text
    assert "canasta tournament --cluster tls://HOST:8786" in text
    again = canasta("cluster", "init", str(cluster.certs))  # never over an existing set
    assert again.returncode == 2 and "already holds" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere")
    bad = canasta("cluster", "init", str(link))
    assert bad.returncode == 2 and not (tmp_path / "elsewhere").exists()


def test_a_tournament_through_the_tls_cluster_matches_the_local_pool(
        cluster: Cluster, tmp_path: Path) -> None:
    bots = ["--bot", "greedy=builtin:greedy", "--bot", "random=builtin:random",
            "--bot", f"gbot={GREEDY}", "--games", "2", "--set", "max_hands=1", "--seed", "7"]
    remote = canasta("tournament", *bots, "--cluster", cluster.address, "--records",
                     "--cluster-tls", str(cluster.certs), "--out", str(tmp_path / "remote"))
    assert remote.returncode == 0, remote.stderr
    local = canasta("tournament", *bots, "--concurrency", "2", "--out", str(tmp_path / "local"))
    assert local.returncode == 0, local.stderr
    rows = _rows(tmp_path / "remote")
    assert len(rows) == 12 and rows == _rows(tmp_path / "local")
    assert len(os.listdir(tmp_path / "remote" / "records")) == 12  # records come back too
    assert all(not any(f for f in r["failures"]) for r in rows)


def test_plain_and_foreign_clients_are_refused(cluster: Cluster, tmp_path: Path) -> None:
    from distributed import Client
    from distributed.security import Security

    with pytest.raises((OSError, TimeoutError)):
        Client(f"tcp://127.0.0.1:{cluster.port}", timeout=10, set_as_default=False)
    other = tmp_path / "other"
    assert canasta("cluster", "init", str(other)).returncode == 0
    foreign = Security(tls_ca_file=str(other / "ca.pem"), tls_client_cert=str(other / "client.pem"),
                       tls_client_key=str(other / "client.key"), require_encryption=True)
    with pytest.raises((OSError, TimeoutError)):
        Client(cluster.address, security=foreign, timeout=10, set_as_default=False)
    own = Security(tls_ca_file=str(cluster.certs / "ca.pem"),
                   tls_client_cert=str(cluster.certs / "client.pem"),
                   tls_client_key=str(cluster.certs / "client.key"), require_encryption=True)
    with Client(cluster.address, security=own, timeout=30, set_as_default=False) as client:
        assert len(client.scheduler_info()["workers"]) == 1  # the certificates do get in

    # From the command line: one line each, and nothing left half-done.
    short = {"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "5s"}
    cases = [
        (["--cluster", "notanaddress"], "expected a scheduler address"),
        (["--cluster", "tls://[::1]:99999", "--cluster-tls", str(cluster.certs)],
         "expected a scheduler address"),
        (["--cluster-tls", str(cluster.certs)], "go with --cluster"),
        (["--cluster", cluster.address, "--cluster-tls", str(cluster.certs), "--unboxed"],
         "keep them boxed"),
        (["--cluster", f"tcp://127.0.0.1:{cluster.port}"], "--cluster-insecure"),
        (["--cluster", cluster.address], "needs --cluster-tls"),
        (["--cluster", cluster.address, "--cluster-tls", str(tmp_path / "none")], "no ca.pem"),
        (["--cluster", f"tcp://127.0.0.1:{cluster.port}", "--cluster-insecure"],
         "cannot connect"),
        (["--cluster", cluster.address, "--cluster-tls", str(other)], "cannot connect"),
    ]
    for i, (args, message) in enumerate(cases):
        done = canasta("tournament", "--bot", "a=builtin:random", "--bot", "b=builtin:random",
                       *GAME, *args, "--out", str(tmp_path / f"o{i}"), env=short)
        assert done.returncode == 2, (args, done.stderr)
        assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def _probe(cluster: Cluster, mode: str, *dirs: Path) -> str:
    return " ".join([sys.executable, str(PROBE), "127.0.0.1", str(cluster.port), mode,
                     *map(str, dirs)])


def test_the_probe_gets_in_where_nothing_stops_it(cluster: Cluster) -> None:
    """Outside any seat the probe reaches the port and reads the keys: so where it plays
    without a crash below, it was stopped."""
    for mode, dirs in (("network", []), ("cluster", [cluster.certs])):
        done = subprocess.run(shlex.split(_probe(cluster, mode, *dirs)), capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL, check=False)
        got = json.loads(done.stderr.split("PROBE ", 1)[1].splitlines()[0])
        assert done.returncode == 3 and got["won"] and got["tcp"] == "connected", done.stderr
        # Without a certificate of the cluster the scheduler ends the TLS session.
        assert got["tls"].startswith("SSLError"), got
        assert bool(got["files"]) == (mode == "cluster")


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_a_sandboxed_bot_cannot_reach_the_scheduler(cluster: Cluster, tmp_path: Path) -> None:
    probe = _probe(cluster, "network")
    out = tmp_path / "out"
    done = canasta("tournament", "--sandbox", "--cluster", cluster.address, "--cluster-tls",
                   str(cluster.certs), "--bot", f"probe={probe}", "--bot", "r=builtin:random",
                   *GAME, "--out", str(out))
    assert done.returncode == 0, done.stderr
    rows = _rows(out)
    assert len(rows) == 2 and all(not any(f for f in r["failures"]) for r in rows), rows
    # What it got, through the same seat path (a match keeps the bot's stderr).
    rec = tmp_path / "rec"
    match = canasta("match", "--sandbox", "--seat", probe, "--seat", "builtin:random",
                    "--seat", "builtin:random", "--seat", "builtin:random", "--games", "1",
                    "--set", "max_hands=1", "--record", str(rec))
    assert match.returncode == 0, match.stderr
    log = (rec / "seat0.stderr.log").read_text()
    got = json.loads(log.split("PROBE ", 1)[1].splitlines()[0])
    assert got["won"] is False and got["tcp"] != "connected" and got["tls"] is None, got


def test_a_bot_on_a_worker_sees_neither_the_keys_nor_the_seed(cluster: Cluster,
                                                             tmp_path: Path) -> None:
    """With the default box: no network at all (so no TLS session either), and the
    certificates and the running tournament's --out (its seed.json) out of sight."""
    out = tmp_path / "out"
    probe = _probe(cluster, "any", cluster.certs, out)
    done = canasta("tournament", "--cluster", cluster.address, "--cluster-tls",
                   str(cluster.certs), "--bot", f"probe={probe}", "--bot", "r=builtin:random",
                   "--games", "2", "--set", "max_hands=1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert (out / "seed.json").exists()
    rows = _rows(out)
    assert len(rows) == 4 and all(not any(f for f in r["failures"]) for r in rows), rows


# The client's check of what workers send back ---------------------------------------------

def _config() -> tuple[list[Any], Config]:
    tasks = schedule(["a", "b"], "round-robin", 2, ONE_HAND, 99)
    return tasks, Config({"a": "builtin:greedy", "b": "builtin:random"}, ONE_HAND.to_dict())


def test_a_result_must_be_the_scheduled_game() -> None:
    tasks, config = _config()
    rows = play_tasks(tasks, config)
    assert rows_problem(rows, tasks, ONE_HAND) is None
    good = rows[0]
    wrong: dict[str, dict[str, Any]] = {
        "seat": {**good, "seating": list(reversed(good["seating"]))},
        "deal": {**good, "deal": good["deal"] + 1},
        "seed": {**good, "seed": good["seed"] ^ 1},
        "index": {**good, "index": 5},
        "key": {**good, "key": tasks[1].key},
        "pair": {**good, "pair": ["b", "a"]},
        "scores": {**good, "scores": good["scores"][:1]},
        "winner": {**good, "winner": 7},
        "bool": {**good, "hands": True},
        "failures": {**good, "failures": [{"CRASHED": "many"}] * 4},
        "extra": {**good, "note": "x"},
        "missing": {k: v for k, v in good.items() if k != "reason"},
        "reason": {**good, "reason": "\x1b]0;title\x07"},
        "record": {**good, "record": 5},
    }
    for what, row in wrong.items():
        assert row_problem(row, tasks[0], ONE_HAND) is not None, what
    assert row_problem({**good, "record": '{"type":"header"}\n'}, tasks[0], ONE_HAND) is None
    assert row_problem(good, tasks[1], ONE_HAND) is not None  # another game's row
    assert rows_problem(rows[:1], tasks, ONE_HAND) is not None
    assert rows_problem("rows", tasks, ONE_HAND) is not None


class _Future:
    def __init__(self, key: str, value: Any) -> None:
        self.key, self.value = key, value

    def result(self) -> Any:
        return self.value

    def done(self) -> bool:
        return True


class _FakeClient:
    """Two workers; the liars swap the seating of every row they return."""

    def __init__(self, liars: set[str]) -> None:
        self.liars = liars
        self.placed: dict[str, str] = {}
        self.sent: list[tuple[Any, ...]] = []

    def scheduler_info(self, n_workers: int = 5) -> dict[str, Any]:
        return {"workers": {"tls://w1:1": {}, "tls://w2:2": {}}}

    def submit(self, fn: Any, *args: Any, pure: bool = True, workers: list[str] | None = None,
               allow_other_workers: bool = True) -> _Future:
        assert fn is play_fresh and not pure
        self.sent.append(args)
        worker = sorted(workers or self.scheduler_info()["workers"])[0]
        tasks, config = args[0], args[1]
        rows = play_tasks(tasks, replace(config))
        if worker in self.liars:
            rows = [{**r, "seating": list(reversed(r["seating"]))} for r in rows]
        key = f"k{len(self.sent)}"
        self.placed[key] = worker
        return _Future(key, rows)

    def who_has(self, future: _Future) -> dict[str, list[str]]:
        return {future.key: [self.placed[future.key]]}


def test_a_lying_worker_is_caught_and_its_games_played_elsewhere() -> None:
    tasks, config = _config()
    warnings: list[str] = []
    fake = _FakeClient({"tls://w1:1"})
    ex = DaskExecutor("", warn=warnings.append, client=fake)
    share = ex.submit(play_tasks, tasks[:2], config)
    rows = share.result()
    assert rows_problem(rows, tasks[:2], ONE_HAND) is None and rows == play_tasks(tasks[:2],
                                                                                  config)
    assert len(fake.sent) == 2 and ex.distrusted == {"tls://w1:1"}
    assert len(warnings) == 1 and "tls://w1:1" in warnings[0] and "seating" in warnings[0]
    later = ex.submit(play_tasks, tasks[2:], config)  # the liar gets no more games
    assert later.result() == play_tasks(tasks[2:], config) and len(fake.sent) == 3

    everyone = DaskExecutor("", client=_FakeClient({"tls://w1:1", "tls://w2:2"}))
    with pytest.raises(ClusterError, match="no worker left"):
        everyone.submit(play_tasks, tasks[:1], config).result()


def test_workers_get_the_deal_seeds_of_their_games_only(tmp_path: Path) -> None:
    """What the runner hands an executor: the games (each with its deal's seed) and the
    configuration; never the master seed."""
    master = 123456789
    sent: list[tuple[Any, ...]] = []

    class Recording(InlineExecutor):
        def submit(self, fn: Any, *args: Any) -> Any:
            sent.append(args)
            return super().submit(fn, *args)

    run_tournament(TournamentPlan({"a": "builtin:greedy", "b": "builtin:random"}, "round-robin",
                                  2, ONE_HAND, master, tmp_path), Recording())
    assert sent
    for tasks, config in sent:
        assert str(master) not in json.dumps(asdict(config))
        for t in tasks:
            assert t.seed == deal_seed(master, t.pair, t.deal) != master


class _Failing(_FakeClient):
    def submit(self, fn: Any, *args: Any, **kw: Any) -> Any:
        class Broken(_Future):
            def result(self) -> Any:
                raise RuntimeError("the games process ended with status 1:\nsecond line")
        return Broken("k", None)


def test_a_share_that_fails_on_the_worker_stops_with_one_line() -> None:
    tasks, config = _config()
    with pytest.raises(ClusterError) as caught:
        DaskExecutor("", client=_Failing(set())).submit(play_tasks, tasks[:1], config).result()
    assert "status 1" in str(caught.value) and "\n" not in str(caught.value)


def test_a_patched_game_function_in_the_worker_process_plays_no_game(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Code that changed the worker process's referee (here: every game a draw for seat 0's
    side) changes nothing: each share is played by a fresh interpreter."""
    import canasta_cli.tournament.runner as runner
    tasks = schedule(["g", "r"], "round-robin", 1, ONE_HAND, 5)
    config = Config({"g": GREEDY, "r": "builtin:random"}, ONE_HAND.to_dict())
    honest = play_fresh(tasks, config, [], "t")
    real = runner.play_task

    def rigged(task: Any, cfg: Config) -> dict[str, Any]:
        return {**real(task, cfg), "winner": 0, "scores": [9999, 0]}

    monkeypatch.setattr(runner, "play_task", rigged)
    assert runner.play_tasks(tasks, config)[0]["scores"] == [9999, 0]  # the patch is live here
    assert play_fresh(tasks, config, [], "t") == honest
    assert all(r["scores"] != [9999, 0] for r in honest)


def test_a_share_that_starts_after_its_tournament_was_stopped_plays_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A share queued on the worker, or whose thread started late, when the stop came: no
    games process is started for it (it would play on for as long as its bots allow)."""
    from canasta_cli.tournament import cluster_worker
    started: list[Any] = []

    def popen(*args: Any, **kw: Any) -> Any:
        started.append(args)
        raise AssertionError("a games process was started")

    monkeypatch.setattr(subprocess, "Popen", popen)
    tasks = schedule(["g", "r"], "round-robin", 1, ONE_HAND, 5)
    run = "stopped-" + os.urandom(4).hex()
    assert cluster_worker.stop_games(run) == 0
    for bots in ({"g": GREEDY, "r": "builtin:random"},
                 {"g": "builtin:greedy", "r": "builtin:random"}):
        with pytest.raises(cluster_worker.GamesFailed, match="stopped"):
            play_fresh(tasks, Config(bots, ONE_HAND.to_dict()), [], run)
    assert started == []
    assert run not in cluster_worker._RUNNING
    monkeypatch.undo()
    assert play_fresh(tasks, Config({"g": "builtin:greedy", "r": "builtin:random"},
                                    ONE_HAND.to_dict()), [], run + "-other")  # others play


def test_a_stop_while_a_games_process_is_starting_ends_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stop comes after the games process was started but before the worker listed it:
    the stop waits for the listing, and ends it."""
    from canasta_cli.tournament import cluster_worker
    real = subprocess.Popen
    stops: list[int] = []
    stopper: list[threading.Thread] = []
    run = "starting-" + os.urandom(4).hex()

    def popen(*args: Any, **kw: Any) -> Any:
        proc = real(*args, **kw)
        stopper.append(threading.Thread(target=lambda: stops.append(
            cluster_worker.stop_games(run))))
        stopper[0].start()
        stopper[0].join(0.5)  # it cannot finish before this process is listed
        return proc

    monkeypatch.setattr(subprocess, "Popen", popen)
    tasks = schedule(["g", "r"], "round-robin", 1, ONE_HAND, 5)
    # A bot that never answers, with two minutes a decision: the game cannot end by itself
    # before the stop, however the threads are scheduled.
    silent = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'broken.py'} noread"
    time_control = TimeControl(decision_ms=120_000, bank_ms=0).to_json()
    with pytest.raises(cluster_worker.GamesFailed, match="status"):
        play_fresh(tasks, Config({"g": silent, "r": "builtin:random"}, ONE_HAND.to_dict(),
                                 time_control), [], run)
    stopper[0].join(30)
    assert stops == [1]


def _games_processes(worker: int) -> list[int]:
    """The worker's games processes now running."""
    found = []
    for pid, ppid, _, _, _ in _processes():
        if ppid != worker:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if b"canasta_cli.tournament.cluster_worker" in cmdline:
            found.append(pid)
    return found


def test_an_interrupted_tournament_stops_its_games_on_the_workers(cluster: Cluster,
                                                                  tmp_path: Path) -> None:
    worker = cluster.groups[1]
    # A bot that never answers after its handshake, with a minute per decision: its game
    # would hold the games process for a minute.
    slow = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'broken.py'} noread"
    proc = subprocess.Popen([CANASTA, "tournament", "--cluster", cluster.address,
                             "--cluster-tls", str(cluster.certs), "--bot", f"slow={slow}",
                             "--bot", "r=builtin:random", *GAME, "--decision-ms", "120000",
                             "--bank-ms", "0", "--out", str(tmp_path / "o")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=sigint_as_at_a_terminal)
    try:
        deadline = time.monotonic() + 60
        while not _games_processes(worker):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert b"Traceback" not in err, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    deadline = time.monotonic() + 30
    while _games_processes(worker):
        assert time.monotonic() < deadline, "games processes left running on the worker"
        time.sleep(0.1)


_LIAR: list[str] = []  # the first worker that plays a share lies about every share
_LIAR_LOCK = threading.Lock()


def _lying_play(tasks: list[Any], config: Config, hidden: list[str], run: str) -> Any:
    from distributed import get_worker
    rows = play_tasks(tasks, config)
    with _LIAR_LOCK:
        if not _LIAR:
            _LIAR.append(get_worker().address)
    if get_worker().address in _LIAR:
        rows = [{**r, "deal": r["deal"] + 1} for r in rows]
    return rows


def test_a_lying_worker_of_a_real_cluster_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same with Dask itself: who ran a share, and keeping a worker out."""
    from distributed import Client, LocalCluster

    import canasta_cli.tournament.cluster as cluster_module
    tasks, config = _config()
    warnings: list[str] = []
    monkeypatch.setattr(cluster_module, "play_fresh", _lying_play)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=None) as lc, Client(lc, set_as_default=False) as client:
        ex = DaskExecutor("", warn=warnings.append, client=client)
        try:
            shares = [ex.submit(play_tasks, [t], config) for t in tasks]
            rows = [r for s in shares for r in s.result()]
            liar = list(_LIAR)
        finally:
            _LIAR.clear()
    assert rows == play_tasks(tasks, config)
    assert len(liar) == 1 and ex.distrusted == set(liar) and warnings
    assert all(liar[0] in w and "'deal'" in w for w in warnings)


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A directory outside /tmp (which every box replaces with its own)."""
    if not os.access("/var/tmp", os.W_OK):
        pytest.skip("/var/tmp is not writable")
    path = Path(tempfile.mkdtemp(prefix="canasta-test-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_the_games_process_hides_what_it_is_told_in_the_namespace_box(outside_tmp: Path) -> None:
    """Where bubblewrap is missing, bots see the user's files but for the hidden directories:
    the games process hides the ones the client and the worker name."""
    from canasta_cli.seats import box
    policy = box.BoxPolicy(mode="namespaces")
    if box.box_kind(policy) != "namespaces":
        pytest.skip("no namespace box here")
    secret = outside_tmp / "certs"
    secret.mkdir()
    (secret / "node.key").write_text("-----BEGIN PRIVATE KEY-----\n")
    probe = f"{sys.executable} {PROBE} 127.0.0.1 9 cluster {secret}"
    tasks = schedule(["p", "r"], "round-robin", 1, ONE_HAND, 3)
    config = Config({"p": probe, "r": "builtin:random"}, ONE_HAND.to_dict(), box=policy)
    seen = play_fresh(tasks, config, [], "t")
    assert all(any(f for f in r["failures"]) for r in seen)  # it read the key, so it stopped
    hidden = play_fresh(tasks, config, [str(secret)], "t")
    assert not any(f for r in hidden for f in r["failures"]), hidden
