"""Running a tournament: games on a local process pool or a Dask cluster, bots kept alive per
worker, results appended per finished game so that a restart skips what is done."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..core import Ruleset
from ..core.errors import CanastaError
from ..hosting.referee import GameResult, Referee, TimeControl
from ..protocol.statuses import SeatStatus
from ..seats import SubprocessSeat, builtin_seat
from ..seats.base import Seat
from ..seats.box import DEFAULT_POLICY, BoxPolicy
from ..seats.contain import die_with_parent
from ..ui.commandline import program_command
from ..util.private_files import append_line, open_append, open_input, private_dir, write_private
from ..util.safetext import visible
from .failures import STDERR_TAIL, Replaying, replay_command, seat_reasons, write_failure
from .rows import row_problem
from .schedule import Format, Table, Task, schedule
from .stats import GameOutcome, Sprt, SprtTally
from .threes import encounter, encounters


@dataclass(frozen=True)
class Config:
    bots: dict[str, str]                 # name -> command line or builtin:NAME
    rules: dict[str, Any]
    time: dict[str, int] = field(default_factory=lambda: TimeControl().to_json())
    spin_us: int = 0                      # many games share the cores: do not spin
    reuse_bots: bool = False              # keep bot processes between games (trusted bots)
    box: BoxPolicy = field(default_factory=BoxPolicy)  # what bots may use
    records: bool = False                 # keep each game's record (tournament/records.py)
    # Record each game with a bot in memory, so that a failed game keeps its record (the
    # cost: ``canasta bench tournament --records-cost``).
    failure_records: bool = True

    def ruleset(self) -> Ruleset:
        return Ruleset.from_dict(self.rules)


# Worker side --------------------------------------------------------------------------------

# Bot processes kept alive between the games a worker plays.  Per thread: a Dask worker runs
# several games at once in threads, and a bot process must serve one game at a time.
_LOCAL = threading.local()
_ALL: list[SubprocessSeat] = []
_ALL_LOCK = threading.Lock()
_FINALIZER: list[bool] = []


def _close_bots() -> None:
    with _ALL_LOCK:
        seats = list(_ALL)
        _ALL.clear()
    for seat in seats:
        seat.close(grace=0.5)
    _LOCAL.__dict__.clear()


def _bot_seat(name: str, command: str, occurrence: int, box: BoxPolicy) -> SubprocessSeat:
    """This thread's long-lived process for this bot (a fresh one if the old one broke)."""
    cache: dict[tuple[str, int], SubprocessSeat] = _LOCAL.__dict__.setdefault("bots", {})
    key = (name, occurrence)
    seat = cache.get(key)
    if seat is None or not seat.usable:
        if seat is not None:
            seat.close(grace=0.2)
        with _ALL_LOCK:
            if not _FINALIZER:
                from multiprocessing import util
                util.Finalize(None, _close_bots, exitpriority=10)
                atexit.register(_close_bots)
                _FINALIZER.append(True)
        seat = SubprocessSeat(command, name=name, spin_us=0, box=box)
        cache[key] = seat
        with _ALL_LOCK:
            _ALL.append(seat)
    return seat


def play_tasks(tasks: list[Task], config: Config) -> list[dict[str, Any]]:
    """Play scheduled games one after the other (a worker's share of short games)."""
    return [play_task(task, config) for task in tasks]


def play_seated(task: Task, referee: Referee, fresh: list[SubprocessSeat]) -> GameResult:
    """Play ``task``'s game; the bots started for it alone (``fresh``) hear that their match
    was this one game, and are closed."""
    try:
        result = referee.play(task.index + 1, seed=task.seed)
        if fresh:
            referee.end_match([result])  # a fresh bot's match is this one game
    finally:
        for seat in fresh:
            seat.close(grace=0.5)
    return result


def task_row(task: Task, result: GameResult) -> dict[str, Any]:
    """A played game's row of games.jsonl (before its failures are added)."""
    return {"index": task.index, "key": task.key, "pair": list(task.pair), "deal": task.deal,
            "seating": list(task.seating), "seed": task.seed, "scores": list(result.scores),
            "winner": result.winner, "reason": result.reason, "hands": result.hands,
            "forfeit": result.forfeit,
            "failures": [dict(s["failures"]) for s in result.seats]}


def play_task(task: Task, config: Config) -> dict[str, Any]:
    """Play one scheduled game; everything returned is JSON-ready."""
    rules = config.ruleset()
    seats: list[Seat] = []
    fresh: list[SubprocessSeat] = []
    seen: dict[str, int] = {}
    for i, name in enumerate(task.seating):
        command = config.bots[name]
        if command.startswith("builtin:"):
            seat: Seat = builtin_seat(command, task.seed + 7919 * i)
            seat.name = name
        elif config.reuse_bots:
            seat = _bot_seat(name, command, seen.get(name, 0), config.box)
        else:
            # A new process for every game: a bot never plays a deal it has already seen
            # (each deal is played once per seating).
            seat = SubprocessSeat(command, name=name, spin_us=0, box=config.box)
            fresh.append(seat)
        seen[name] = seen.get(name, 0) + 1
        seats.append(seat)
    bots = [s for s in seats if isinstance(s, SubprocessSeat)]
    if config.records or (bots and config.failure_records):  # a failed game keeps its record
        from .records import RecordingReferee
        referee: Referee = RecordingReferee(seats, rules, TimeControl(**config.time))
    else:
        referee = Referee(seats, rules, TimeControl(**config.time))
    result = play_seated(task, referee, fresh)
    row = task_row(task, result)
    statuses, reasons = seat_reasons(result.seats)
    if any(s != SeatStatus.OK for s in statuses):
        row["status"], row["why"] = statuses, reasons
        row["failed_seats"] = result.seats  # popped by the tournament (failures.py)
        row["stderr"] = {i: seat.stderr_tail(STDERR_TAIL) for i, seat in enumerate(seats)
                         if isinstance(seat, SubprocessSeat) and statuses[i] != SeatStatus.OK}
    if config.records or "status" in row:
        row["record"] = getattr(referee, "record_text", None)
    return row


def outcomes(row: dict[str, Any], rules: Ruleset) -> list[GameOutcome]:
    """A game as the comparisons it holds: one for a pairing, three at a table of three."""
    return encounters(row, rules) if len(row["pair"]) == 3 else [outcome(row, rules)]


def outcome(row: dict[str, Any], rules: Ruleset) -> GameOutcome:
    """A game from its pairing's point of view (at a table of three: its first two bots', the
    pair the SPRT compares)."""
    if len(row["pair"]) == 3:
        return encounter(row, rules, row["pair"][0], row["pair"][1])
    a, b = row["pair"]
    seating = row["seating"]

    def side_scores(bot: str) -> list[float]:
        sides = sorted({rules.side_of(s) for s, name in enumerate(seating) if name == bot})
        return [row["scores"][x] for x in sides]

    sa, sb = side_scores(a), side_scores(b)
    diff = sum(sa) / len(sa) - sum(sb) / len(sb)
    winner = row["winner"]
    if winner is None:
        result = 0.5
    else:
        owners = {name for s, name in enumerate(seating) if rules.side_of(s) == winner}
        result = 1.0 if owners == {a} else 0.0 if owners == {b} else 0.5
    return GameOutcome((a, b), row["deal"], diff, result)


# Executors ----------------------------------------------------------------------------------

class Executor(Protocol):
    def submit(self, fn: Callable[..., Any], *args: Any) -> Any: ...
    def wait_any(self, futures: list[Any]) -> tuple[list[Any], list[Any]]: ...
    def close(self) -> None: ...
    def abort(self) -> None: ...


class InlineExecutor:
    """Concurrency 1: the games run here, one after the other."""

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        fut: Future[Any] = Future()
        try:
            fut.set_result(fn(*args))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller through the future
            fut.set_exception(exc)
        return fut

    def wait_any(self, futures: list[Any]) -> tuple[list[Any], list[Any]]:
        return list(futures), []

    def close(self) -> None:
        _close_bots()

    def abort(self) -> None:
        _close_bots()


def _worker_init(parent: int) -> None:
    """A worker dies with the tournament (even a SIGKILLed one), and with it its bots; Ctrl-C
    is the tournament's to handle, not each worker's."""
    die_with_parent()
    if os.getppid() != parent:  # the tournament died before the line above took effect
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalExecutor:
    def __init__(self, workers: int) -> None:
        self.pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init,
                                        initargs=(os.getpid(),))

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        return self.pool.submit(fn, *args)

    def wait_any(self, futures: list[Any]) -> tuple[list[Any], list[Any]]:
        done, pending = wait(futures, return_when=FIRST_COMPLETED)
        return list(done), list(pending)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)

    def abort(self) -> None:
        """Stop now: the workers are killed, and their bots die with them."""
        for proc in list(getattr(self.pool, "_processes", {}).values()):
            with contextlib.suppress(OSError):
                proc.kill()
        self.pool.shutdown(wait=True, cancel_futures=True)


# The tournament loop --------------------------------------------------------------------------

@dataclass
class RunState:
    rows: dict[int, dict[str, Any]]
    stopped_by_sprt: str | None = None
    sprt_at: int | None = None


MAX_ROW = 1 << 14  # bytes in one games.jsonl line; a row is a few hundred


class ResultsError(CanastaError):
    """games.jsonl cannot be the results of this tournament; the message is one line."""


def _read_rows(path: Path, cap: int, warn: Callable[[str], None],
               rejected: list[bytes]) -> Iterator[tuple[int, object]]:
    """Each line of games.jsonl with its number, parsed (None: not a JSON object line); a
    line too long, not JSON or cut short by a crash is reported, set aside and skipped."""
    with open_input(path, cap, "the results of this tournament", follow=False) as f:
        no = 0
        while True:
            raw = f.readline(MAX_ROW + 1)
            if not raw:
                return
            no += 1
            if len(raw) > MAX_ROW:
                while raw and not raw.endswith(b"\n"):
                    raw = f.readline(MAX_ROW + 1)
                rejected.append(b'{"too long": true}')
                warn(f"{path}:{no}: a line over {MAX_ROW} bytes; that game is played again")
                continue
            if not raw.endswith(b"\n"):
                if raw.strip():
                    rejected.append(raw)
                    warn(f"{path}:{no}: a line cut short (an interrupted run); that game is"
                         " played again")
                return
            line = raw[:-1]
            if not line.strip():
                continue
            try:
                row = json.loads(line.decode("utf-8"), parse_constant=_no_constant)
            except (ValueError, RecursionError):
                rejected.append(line)
                warn(f"{path}:{no}: not a JSON line; that game is played again")
                continue
            yield no, row


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a number")


def load_done(path: Path, tasks: list[Task], rules: Ruleset,
              warn: Callable[[str], None] | None = None) -> dict[str, dict[str, Any]]:
    """The finished games of an earlier run.  Each row must be the scheduled game with its
    deal's seed (``rows.row_problem``); a row that is not, a second row for a game, and a
    last line torn by a crash are reported with their line numbers and left out (those games
    are played again, the rejected lines kept in games.rejected.jsonl).  The rows kept are
    written to a new owner-only games.jsonl, so that new rows start on a line of their own
    in a file that is canasta's own.  No row with its deal's seed, but some with another
    seed: the seed is not this file's (a ResultsError)."""
    done: dict[str, dict[str, Any]] = {}
    if not os.path.lexists(path):
        return done
    by_key = {t.key: t for t in tasks}
    rejected: list[bytes] = []
    notes: list[str] = []  # told once the file is known to be this tournament's
    other_seed = 0
    cap = MAX_ROW * (len(tasks) + 64)
    for no, row in _read_rows(path, cap, notes.append, rejected):
        key = row.get("key") if isinstance(row, dict) else None
        task = by_key.get(key) if isinstance(key, str) else None
        problem = row_problem(row, task, rules)
        if problem is None and key in done:
            problem = "a second row for the same game"
        if problem is not None or not isinstance(row, dict):
            if task is not None and isinstance(row, dict) and row.get("seed") != task.seed:
                other_seed += 1
            rejected.append(json.dumps(row, separators=(",", ":")).encode())
            notes.append(f"{path}:{no}: {problem}; that game is played again")
            continue
        done[row["key"]] = row
    if other_seed and not done:
        raise ResultsError(f"{path}: none of its rows has its deal's seed ({other_seed} have"
                           " another): the tournament's seed.json was changed or replaced, or"
                           " these are another tournament's results; restore seed.json, or"
                           " use another --out")
    if warn is not None:
        for note in notes:
            warn(note)
    if rejected:
        bad = path.with_name("games.rejected.jsonl")
        fd = open_append(bad)
        try:
            append_line(fd, b"\n".join(rejected) + b"\n", bad)
        finally:
            os.close(fd)
    write_private(path, b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n"
                                 for r in done.values()))
    return done


@dataclass(frozen=True)
class TournamentPlan:
    """One ``canasta tournament``: the bots, the schedule (format, deals, table, seed), the
    rules and clock, where it is kept (``out``), how wide it runs and the bots' box.
    ``box_args``: the box's options as given, for the replay lines of failed games."""

    bots: dict[str, str]  # name -> command line or builtin:NAME
    fmt: Format
    deals: int
    rules: Ruleset
    seed: int
    out: Path
    concurrency: int = 1
    sprt: Sprt | None = None
    time_control: TimeControl = TimeControl()
    reuse_bots: bool = False
    box: BoxPolicy = DEFAULT_POLICY
    records: bool = False
    box_args: tuple[str, ...] = ()
    table: Table = "pairs"

    def config(self) -> Config:
        return Config(self.bots, self.rules.to_dict(), self.time_control.to_json(),
                      reuse_bots=self.reuse_bots, box=self.box, records=self.records)


def run_tournament(plan: TournamentPlan, executor: Executor,
                   progress: Callable[[RunState, int, float], None] | None = None,
                   warn: Callable[[str], None] | None = None) -> RunState:
    """Play the plan's games on ``executor`` (resuming what ``out`` holds), writing each
    deal's rows once all its seatings are played; stops early when the SPRT decides."""
    private_dir(plan.out)
    tasks = schedule(list(plan.bots), plan.fmt, plan.deals, plan.rules, plan.seed, plan.table)
    games_path = plan.out / "games.jsonl"
    done = load_done(games_path, tasks, plan.rules, warn)
    state = RunState({t.index: {**done[t.key], "index": t.index} for t in tasks
                      if t.key in done})
    sink = _Sink(plan, tasks, games_path, open_append(games_path))
    sink.missing.subtract((t.pair, t.deal) for t in tasks if t.key in done)
    todo = [t for t in tasks if t.key not in done]
    try:
        _check_sprt(state, tasks, plan.rules, plan.sprt)
        _play(plan, executor, todo, _Progress(state, tasks, sink, progress))
    finally:
        os.close(sink.fd)
    return state


@dataclass
class _Progress:
    state: RunState
    tasks: list[Task]
    sink: _Sink
    report: Callable[[RunState, int, float], None] | None
    start: float = field(default_factory=time.monotonic)


def _play(plan: TournamentPlan, executor: Executor, todo: list[Task], run: _Progress) -> None:
    config = plan.config()
    tasks = iter(todo)
    left = len(todo)
    in_flight: list[Any] = []
    while run.state.stopped_by_sprt is None:
        while len(in_flight) < plan.concurrency * 2:
            # Short games go to the workers a few at a time, so that handing out tasks and
            # taking back results does not cost the parent a core; near the end one at a
            # time, so that no worker is left with a queue while another idles.
            size = 1 if plan.concurrency == 1 else max(1, min(8, left // (4 * plan.concurrency)))
            chunk = _take(tasks, size)
            if not chunk:
                break
            left -= len(chunk)
            in_flight.append(executor.submit(play_tasks, chunk, config))
        if not in_flight:
            break
        finished, in_flight = executor.wait_any(in_flight)
        for fut in finished:
            for row in fut.result():
                run.sink.take(row, run.state)
        _check_sprt(run.state, run.tasks, plan.rules, plan.sprt)
        if run.report:
            run.report(run.state, len(run.tasks), time.monotonic() - run.start)


class _Sink:
    """Where finished rows go: a deal's rows reach games.jsonl only once all its seatings are
    played (until then its seed, in a finished row, would tell the bots of the other seatings
    the cards), with the records and failure reports of its games."""

    def __init__(self, plan: TournamentPlan, tasks: list[Task], path: Path, fd: int) -> None:
        self.plan, self.path, self.fd = plan, path, fd
        self.missing = Counter((t.pair, t.deal) for t in tasks)
        self.waiting: dict[tuple[tuple[str, ...], int], list[dict[str, Any]]] = {}
        self.texts: dict[int, str] = {}  # records of games whose deal is not complete yet
        self.failed: dict[int, tuple[list[dict[str, Any]], dict[int, str]]] = {}

    def take(self, row: dict[str, Any], state: RunState) -> None:
        text = row.pop("record", None)
        if text:
            self.texts[row["index"]] = text
        if "failed_seats" in row:
            self.failed[row["index"]] = (row.pop("failed_seats"),
                                         {int(k): v for k, v in row.pop("stderr").items()})
        state.rows[row["index"]] = row
        group = (tuple(str(x) for x in row["pair"]), int(row["deal"]))
        self.waiting.setdefault(group, []).append(row)
        self.missing[group] -= 1
        if self.missing[group] == 0:
            for r in sorted(self.waiting.pop(group), key=lambda r: r["index"]):
                self._write(r)

    def _write(self, r: dict[str, Any]) -> None:
        plan, out = self.plan, self.plan.out
        if r["index"] in self.texts:
            from .records import write_record
            write_record(out, r["index"], self.texts.pop(r["index"]))
        if r["index"] in self.failed:
            seats_, tails = self.failed.pop(r["index"])
            where = str(out.resolve() / "replays" / f"game-{r['index'] + 1:04d}")
            how = Replaying(plan.bots, plan.rules, plan.time_control.to_json(), plan.box_args,
                            program=program_command())
            write_failure(out, r, seats_, tails, replay_command(how, r, where))
        _append(self.fd, r, self.path)


def _take(it: Iterator[Task], n: int) -> list[Task]:
    out = []
    for _ in range(max(0, n)):
        try:
            out.append(next(it))
        except StopIteration:
            break
    return out


def _append(sink: int, row: dict[str, Any], path: Path) -> None:
    append_line(sink, json.dumps(row, separators=(",", ":")).encode() + b"\n", path)


def _check_sprt(state: RunState, tasks: list[Task], rules: Ruleset, sprt: Sprt | None) -> None:
    """Decide on the games in schedule order only, so the stopping point does not depend on
    which games happened to finish first."""
    if sprt is None or state.stopped_by_sprt:
        return
    tally = SprtTally(sprt.unit)
    for t in tasks:
        row = state.rows.get(t.index)
        if row is None:
            return
        o = outcome(row, rules)
        last_of_deal = t.index + 1 == len(tasks) or tasks[t.index + 1].deal != t.deal
        tally.add(o.diff, o.result, last_of_deal)
        if last_of_deal:
            verdict = sprt.decide(tally.wins, tally.losses)
            if verdict:
                state.stopped_by_sprt, state.sprt_at = verdict, t.index
                return


def counted_rows(state: RunState) -> list[dict[str, Any]]:
    rows = [state.rows[i] for i in sorted(state.rows)]
    if state.sprt_at is not None:
        rows = [r for r in rows if r["index"] <= state.sprt_at]
    return rows


def default_concurrency() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def stderr_progress(rules: Ruleset) -> Callable[[RunState, int, float], None]:
    """Games done, rate, time left and running standings, on one refreshed line (a line every
    few seconds when stderr is not a terminal)."""
    tty = sys.stderr.isatty()
    last = [0.0]

    def show(state: RunState, total: int, elapsed: float) -> None:
        n = len(state.rows)
        now = time.monotonic()
        if not tty and now - last[0] < 5 and n < total:
            return
        last[0] = now
        rate = n / elapsed if elapsed > 0 else 0.0
        left = (total - n) / rate if rate > 0 else float("inf")
        width = 24
        bar = "#" * int(width * n / total) + "-" * (width - int(width * n / total))
        pts: dict[str, float] = {}
        for row in state.rows.values():
            for o in outcomes(row, rules):
                pts[o.pair[0]] = pts.get(o.pair[0], 0.0) + o.result
                pts[o.pair[1]] = pts.get(o.pair[1], 0.0) + 1 - o.result
        table = "  ".join(f"{visible(k)} {v:g}"
                          for k, v in sorted(pts.items(), key=lambda kv: -kv[1]))
        line = (f"[{bar}] {n}/{total} games  {rate:.1f}/s  ETA {left:.0f}s  | {table}"
                if left != float("inf") else f"[{bar}] {n}/{total} games | {table}")
        sys.stderr.write(("\r" if tty else "") + line + ("" if tty else "\n"))
        sys.stderr.flush()

    return show
