"""A bot as a subprocess: in its box, protocol on stdin/stdout, stderr to a bounded buffer.

The referee never blocks on a bot: writes are non-blocking (what a bot does not read waits in
a buffer), reads wait in ``poll`` with the deadline, lines over the limit are refused, and a
thread drains stderr into a bounded tail kept in memory (and a capped log file, when asked,
whose failures, a full disk say, cost nothing but the log).  Where the bot has a control group
and may not ponder, it is frozen whenever the referee is not waiting for it.
"""

from __future__ import annotations

import contextlib
import os
import select
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from collections import deque
from pathlib import Path
from typing import IO, Any

from ..protocol.messages import ActRequest, Asked, asked_id, encode
from ..protocol.replies import MAX_LINE, ProtocolError, decode_line
from ..protocol.statuses import SeatStatus
from ..util.private_files import open_append, os_message
from ..util.processes import processes, reap
from .base import Message, Seat, SeatFailure
from .box import DEFAULT_POLICY, BoxPolicy, BoxUnavailable, box_kind, boxed, bwrap_path, containment
from .cgroups import BotCgroup
from .contain import become_subreaper, box_helpers, hidden
from .launching import absolute_args, bot_environment, home_folder, unrunnable
from .sorting import STDOUT_HINT, ReplySorter

MAX_PENDING = 8 << 20  # bytes the referee keeps for a bot that does not read its input
READ_CHUNKS = 32  # of 64 KiB: at most 2 MiB read from a bot in one go
SPIN_FLOOR = 100e-6  # s: the shortest spin, however quick the bot usually is
QUICK_ANSWER = 0.002  # s: a bot slower than this is thinking; the others may then read news
STDERR_TAIL = 64 << 10  # bytes of a bot's latest stderr kept in memory
THAW_BACKLOG = 256 << 10  # a frozen bot with this much news waiting runs, to read it



def _reap_group(pgid: int, timeout: float = 1.0) -> None:
    """Reap this process's children in process group ``pgid`` (a killed bot's descendants)."""
    me = os.getpid()
    deadline = time.monotonic() + timeout
    while True:
        pending = [p.pid for p in processes() if p.ppid == me and p.pgid == pgid]
        reap(pending)
        if not pending or time.monotonic() > deadline:
            return
        time.sleep(0.01)


class SubprocessSeat(Seat):
    """Talks to the bot on the caller's thread with non-blocking pipes and ``poll``, so a
    round trip costs two system calls and no thread hand-off; only stderr has a thread.

    Each line the bot writes is sorted when it is read (``sorting.ReplySorter``).
    """

    # Bytes of the bot's stderr copied to its log; bytes a bot may leave unread before it is
    # refused (``MAX_PENDING``).  Class-wide, set on an instance where a test needs another.
    stderr_limit = 1 << 20
    pending_limit = MAX_PENDING
    cwd: str | None = None  # the bot's working folder (None: its private home in the box)

    def __init__(self, command: str | list[str], name: str | None = None,
                 stderr_log: Path | None = None, spin_us: int = 300,
                 box: BoxPolicy = DEFAULT_POLICY) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("empty bot command")
        self.name = name or " ".join(self.argv)
        self.stderr_log = stderr_log
        self.box = box  # the box this bot runs in: the command's plan carries it here
        # Poll without sleeping this long before blocking: a quick bot's answer is then picked
        # up at once instead of after a scheduler wake-up (0 turns it off).
        self.spin = spin_us / 1e6
        # How long this bot usually takes to answer (a moving average, seconds): a bot that
        # thinks for longer than the spin is not spun for, since that would only burn a core.
        self.typical = 0.0
        self._reset()

    def _reset(self) -> None:
        """The state of one bot process."""
        self.proc: subprocess.Popen[bytes] | None = None
        self._out = bytearray()      # waiting to be written to the bot
        self._in = bytearray()       # read from the bot, not yet a whole line
        self._lines: deque[bytes] = deque()
        self._eof = False
        self._threads: list[threading.Thread] = []
        self._dead: str | None = None
        self._dead_status = SeatStatus.CRASHED
        self._sorter = ReplySorter()
        self._closed = False
        self._poll: select.poll | None = None
        self._home = ""
        self._group: BotCgroup | None = None
        self._freeze = False  # freeze the bot whenever nothing is asked of it
        self._tail = bytearray()  # the latest stderr, at most STDERR_TAIL bytes
        self._tail_dropped = 0

    # Lifecycle ---------------------------------------------------------------------------
    def launch(self) -> None:
        """Start the process without waiting for it (so that several bots start at once);
        a failure to start is kept and raised by ``start``."""
        if self.proc is not None or self._dead is not None:
            return
        with contextlib.suppress(SeatFailure):
            self._spawn()

    def start(self, hello: Message, timeout: float) -> Message:
        if self.proc is None and self._dead is not None and not self._closed:
            raise SeatFailure(SeatStatus.CRASHED, self._dead)  # launch() could not start it
        if self.proc is None or not self.alive or self.started:
            if self.proc is not None:
                self.close(grace=0.0)  # never two processes for one seat
                self._reset()
            self._spawn()
        try:
            reply = self._await(hello, timeout, "ready")
        except SeatFailure as f:
            self._stop(f.status, f.reason)  # a bot that failed its handshake is not kept
            raise
        self._release_helpers()
        return reply

    def _release_helpers(self) -> None:
        """Once the bot runs, the box's two waiting processes (bubblewrap's, or the namespace
        launcher's shells) leave its freezer: then a freeze or a thaw wakes the bot's own
        processes only (four wake-ups fewer per change of turn)."""
        if not (self._freeze and self._group is not None and self.proc is not None):
            return
        policy = self.box
        if box_kind(policy) == "bubblewrap":
            program = bwrap_path()
        elif containment(policy) == "pid-namespace":
            program = "/bin/sh"  # shell/ns_outer.sh and ns_inner.sh; the bot is the next generation
        else:
            return  # no launcher of its own: the first process is the bot
        if program:
            self._group.unfreezable(box_helpers(self.proc.pid, program))

    def _spawn(self) -> None:
        become_subreaper()
        _reap_strays()  # what earlier boxes left dying
        _SEATS.add(self)
        problem = unrunnable(self.argv[0], self.cwd)
        if problem:
            self._dead = f"cannot start {self.argv[0]!r}: {problem}"
            raise SeatFailure(SeatStatus.CRASHED, self._dead)
        log = self._open_log()
        try:
            self._spawn_logged(log)
        except BaseException:
            if log is not None:
                os.close(log)
            raise

    def _open_log(self) -> int | None:
        """The stderr log's descriptor, opened here (not in the draining thread) so that a
        log that cannot be written is said: appended to, never through a symbolic link, never
        a FIFO or a device (``private_files.open_append``).  ``/dev/stderr`` is this
        program's own stderr (``canasta join --bot``'s default) and ``/dev/null`` no log."""
        if self.stderr_log is None or str(self.stderr_log) == "/dev/null":
            return None
        if str(self.stderr_log) == "/dev/stderr":
            return os.dup(2)
        try:
            return open_append(self.stderr_log)
        except OSError as exc:
            self._dead = f"cannot write its stderr log {os_message(exc)}"
            raise SeatFailure(SeatStatus.CRASHED, self._dead) from None

    def _spawn_logged(self, log: int | None) -> None:
        # An absolute path for each file the command names (they were relative to the
        # referee's directory); a private home, inside the box or, unboxed, a fresh folder.
        base = self.cwd or os.getcwd()
        policy = self.box
        env = bot_environment()
        argv = absolute_args(self.argv, base)
        if box_kind(policy) == "none":
            self._home = tempfile.mkdtemp(prefix="canasta-bot-", dir=home_folder())
            env["HOME"] = env["TMPDIR"] = self._home
        self._group = BotCgroup.create(policy.memory_bytes(), policy.procs)
        self._freeze = self._group is not None and not policy.ponder
        if self._group is not None:
            _GROUPED.add(self)
        try:
            command = boxed(argv, env, policy, self.cwd, hidden(), self._group)
        except BoxUnavailable as exc:
            self._dead = str(exc)
            self._release_group()
            raise SeatFailure(SeatStatus.CRASHED, self._dead) from None
        try:
            self.proc = subprocess.Popen(
                command, stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                env=env, cwd=self.cwd or self._home or "/", bufsize=0, close_fds=True)
        except OSError as exc:
            self._release_group()
            self._dead = f"cannot start {self.argv[0]!r}: {exc.strerror or exc}"
            raise SeatFailure(SeatStatus.CRASHED, self._dead) from None
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        os.set_blocking(self.proc.stdin.fileno(), False)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._poll = select.poll()  # registering costs no system call; each wait is one poll()
        self._poll.register(self.proc.stdout.fileno(), select.POLLIN)
        self._poll.register(self.proc.stdin.fileno(), 0)  # errors only: the bot closed its input
        t = threading.Thread(target=self._drain_stderr, args=(self.proc.stderr, log),
                             daemon=True, name="seat-stderr")
        t.start()
        self._threads.append(t)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self._dead is None and not self._closed

    # Messages ------------------------------------------------------------------------------
    def send(self, msg: Message) -> None:
        if self.alive:
            self._out += encode(msg)
            if len(self._out) >= 65536:
                self._flush()

    def flush(self) -> None:
        if self.alive:
            self._flush()

    def request(self, msg: Message, timeout: float) -> Message:
        return self._await(msg, timeout, "move")

    def act(self, request: ActRequest, timeout: float) -> Message:
        return self._await(request, timeout, "move")  # only its bytes go down the pipe

    def _await(self, msg: Asked, timeout: float, answer: str) -> Message:
        """Send ``msg`` and return the bot's answer (a message of type ``answer``), or raise
        SeatFailure.  The bot runs only meanwhile, when it may not ponder."""
        if not self.alive:
            raise SeatFailure(self._dead_status, self._dead or "the bot is not running")
        try:
            return self._exchange(msg, timeout, answer)
        finally:
            # Frozen only once another seat is asked (``hold_idle_bots``): the decisions of a
            # turn then cost no freezer write, and the write overlaps the next bot's reading.
            # Only where another bot could run meanwhile.
            if self._freeze and self._group is not None and self.alive and len(_GROUPED) > 1:
                _IDLE_BY_THREAD.bots[:] = [self]
            elif self in _IDLE_BY_THREAD.bots:
                _IDLE_BY_THREAD.bots.clear()

    def _exchange(self, msg: Asked, timeout: float, answer: str) -> Message:
        """Lines that are not the answer are sorted out on the way."""
        deadline = time.monotonic() + max(0.0, timeout)
        rid = asked_id(msg)
        self._sort_waiting()  # lines read before this request were not answers to it
        self._out += encode(msg)
        self._flush()
        if self._group is not None:
            # After the write: the thawed bot finds its request at once (one wake-up, not two).
            self._group.thaw()
        hold_idle_bots(keep=self)  # the bot that answered last: frozen while this one reads
        self._sorter.note_asked(rid)
        sent = time.monotonic()
        self._first_wait(sent, deadline)
        return self._answer(rid, answer, sent, deadline, timeout)

    def _first_wait(self, sent: float, deadline: float) -> None:
        """Spin for a quick bot's answer (``spin_for``); where others may run meanwhile
        (``while_waiting``), sleep a moment first, then let them."""
        spin = self.spin_for()
        if spin and not self._out and self.alive:
            assert self.proc is not None and self.proc.stdout is not None
            assert self._poll is not None
            until = min(deadline, sent + spin)
            while not self._lines and not self._eof and self._dead is None \
                    and time.monotonic() < until:
                events = self._poll.poll(0)
                if events:
                    self._handle(events)
        if self.while_waiting is not None and not self._lines and self._dead is None:
            if time.monotonic() - sent < QUICK_ANSWER and not self._out and not self._eof:
                # Not spun for: sleep a moment first, for the same reason.
                left = deadline - time.monotonic()
                if left > 0:
                    self._pump(min(left, QUICK_ANSWER - (time.monotonic() - sent)))
            if not self._lines:
                self.while_waiting()

    def _answer(self, rid: Any, answer: str, sent: float, deadline: float, timeout: float
                ) -> Message:
        """The bot's answer to request ``rid``, other lines sorted out on the way; a failure
        (a bad line, a dead bot, the deadline passed) as a ``SeatFailure``."""
        others = 0  # lines read meanwhile that were not the answer
        while True:
            while self._lines:
                line = self._lines.popleft()
                try:
                    reply = decode_line(line)
                except ProtocolError as exc:
                    raise SeatFailure(SeatStatus.PROTOCOL_ERROR, f"{exc}{STDOUT_HINT}") from None
                if self._sorter.is_answer(reply, rid, answer):
                    if answer == "move":
                        self.answered_in(time.monotonic() - sent)
                    return reply
                others += 1
                if time.monotonic() > deadline:
                    break
            if self._dead is not None:
                raise SeatFailure(self._dead_status, self._dead)
            if self._eof:
                self._stop(SeatStatus.CRASHED, self._exit_text())
                raise SeatFailure(SeatStatus.CRASHED, self._dead or "")
            left = deadline - time.monotonic()
            if left <= 0:
                raise SeatFailure(SeatStatus.TIMEOUT, f"no answer within {timeout * 1000:.0f} ms"
                                  f"{_silent_hint(len(self._in), others)}")
            self._pump(left)

    def spin_for(self) -> float:
        """How long to poll for the answer before sleeping: a few of the bot's usual answers
        at most, since an answer that late is not coming at once (the bot was preempted, or
        thinks) and the core is better given up; 0 for a bot that usually takes longer."""
        if not self.spin or self.typical >= self.spin:
            return 0.0
        return min(self.spin, max(SPIN_FLOOR, 4 * self.typical))

    def answered_in(self, took: float) -> None:
        """One more answer time in the moving average: one slow answer (a bot preempted on a
        busy machine) moves it by a quarter of the spin at most, so a quick bot stays spun
        for, while a bot that keeps taking twice the spin soon is not."""
        self.typical += (min(took, 2 * self.spin) - self.typical) / 8

    def _sort_waiting(self) -> None:
        """Lines that came in while nothing was asked."""
        if self.alive and self._poll is not None:
            events = self._poll.poll(0)  # cheaper than a read that fails with EAGAIN
            if events:
                self._handle(events)
        self._sorter.sort(self._lines)

    def unsolicited(self) -> list[str]:
        self._sort_waiting()
        return self._sorter.unsolicited()

    def late(self) -> list[str]:
        return self._sorter.late()

    # I/O -----------------------------------------------------------------------------------
    def _flush(self) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        while self._out and self._dead is None:
            try:
                n = os.write(self.proc.stdin.fileno(), self._out)
            except BlockingIOError:
                if self._group is not None and self._group.frozen:
                    if len(self._out) > THAW_BACKLOG:
                        self._group.thaw()  # let it read: a frozen bot cannot
                    return
                if len(self._out) > self.pending_limit:
                    self._stop(SeatStatus.TIMEOUT, f"stopped reading its input ({len(self._out)} bytes"
                               " waiting)")
                return  # the bot is not reading: keep the rest for later, never wait
            except OSError:
                self._input_closed()
                return
            del self._out[:n]

    def _input_closed(self) -> None:
        """The bot's input is closed: it exited (its output ends too), or it closed it."""
        assert self.proc is not None and self.proc.stdout is not None
        self._read(self.proc.stdout.fileno())
        self._stop(SeatStatus.CRASHED, self._exit_text() if self._eof else "the bot closed its input")

    def _stop(self, status: SeatStatus, reason: str) -> None:
        """The bot is out: remember why and end its processes now."""
        if self._dead is None:
            self._dead, self._dead_status = reason, status
        self._out.clear()
        self._kill()

    def _pump(self, timeout: float) -> None:
        """Write what is pending and read what has arrived, waiting at most ``timeout``."""
        assert self.proc is not None and self.proc.stdout is not None and self._poll is not None
        self._flush()
        if self._dead is not None:
            return
        assert self.proc.stdin is not None
        stdin_fd = self.proc.stdin.fileno()
        want_write = bool(self._out)
        if want_write:
            self._poll.modify(stdin_fd, select.POLLOUT)
        try:
            events = self._poll.poll(timeout * 1000)
        finally:
            if want_write:
                self._poll.modify(stdin_fd, 0)
        self._handle(events)

    def _handle(self, events: list[tuple[int, int]]) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        assert self.proc.stdin is not None
        for fd, mask in events:
            if fd == self.proc.stdout.fileno():
                self._read(fd)
            elif mask & (select.POLLERR | select.POLLHUP):
                self._input_closed()
            else:
                self._flush()

    def _read(self, fd: int) -> None:
        """Read what is there, a bounded amount per call, so that a bot that writes without
        end cannot keep the referee in here."""
        for _ in range(READ_CHUNKS):
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self._eof = True
                return
            self._in += chunk
            start = 0
            while True:
                i = self._in.find(b"\n", start)
                if i < 0 or i - start > MAX_LINE:
                    break
                self._lines.append(bytes(self._in[start:i]))
                start = i + 1
            if start:
                del self._in[:start]
            if len(self._in) > MAX_LINE:
                self._in.clear()
                self._stop(SeatStatus.PROTOCOL_ERROR, f"line longer than the {MAX_LINE}-byte limit")
                return
            if len(chunk) < 1 << 16 and self._lines:
                return  # drained: spare the system call that would only say so

    def _exit_text(self) -> str:
        """Why the bot's output ended, once it has (it may still be running)."""
        assert self.proc is not None
        try:
            code = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return "the bot closed its output"
        over = ""
        if self._group is not None and self._group.memory_failures():
            over = f" (it reached its memory cap of {self.box.memory_mb} MB)"
        with contextlib.suppress(ValueError):
            if code < 0:
                return f"the bot was killed by {signal.Signals(-code).name}{over}"
            if code > 128 and containment(self.box) == "pid-namespace":  # the waiting sh's way to say it
                return f"the bot was killed by {signal.Signals(code - 128).name}{over}"
        return f"the bot exited with code {code} (closed its output){over}"


    def _drain_stderr(self, stream: IO[bytes], log_fd: int | None) -> None:
        """Keep the latest stderr in memory; copy the first ``stderr_limit`` bytes to the log
        (``log_fd``, which this closes), if there is one, as long as writing it works (a full
        disk ends the copy, never the draining: a bot must never block on its stderr)."""
        written = dropped = 0
        log: IO[bytes] | None = None
        if log_fd is not None:
            try:
                log = os.fdopen(log_fd, "ab")
            except OSError:
                os.close(log_fd)
        while True:
            try:
                chunk = stream.read(65536)
            except (OSError, ValueError):
                chunk = b""
            if not chunk:
                break
            self._tail += chunk
            if len(self._tail) > STDERR_TAIL:
                self._tail_dropped += len(self._tail) - STDERR_TAIL
                del self._tail[:-STDERR_TAIL]
            room = max(self.stderr_limit - written, 0)
            if log is not None and room:
                try:
                    log.write(chunk[:room])
                    log.flush()
                except OSError:
                    with contextlib.suppress(OSError):
                        log.close()
                    log = None
            written += min(len(chunk), room)
            dropped += len(chunk) - min(len(chunk), room)
        if log is not None:
            with contextlib.suppress(OSError):
                if dropped:
                    log.write(f"\n[canasta: {dropped} more bytes of stderr dropped]\n".encode())
                log.close()

    def stderr_tail(self, limit: int = 4096) -> str:
        """The end of what the bot wrote to stderr (at most ``limit`` bytes), for reports."""
        tail = bytes(self._tail[-limit:])
        return tail.decode("utf-8", errors="replace")

    # Shutdown ------------------------------------------------------------------------------
    def close(self, grace: float = 1.0) -> None:
        """Polite ``bye``, then SIGTERM to the process group, then SIGKILL; always reaped."""
        if self._closed or self.proc is None:
            return
        self._closed = True
        proc = self.proc
        if self._group is not None:
            self._group.thaw()
        if proc.poll() is None and self._dead is None:
            self._out += encode({"type": "bye"})
            self._flush()
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                if not self._out:
                    proc.stdin.close()
        if not _wait(proc, grace):
            self._signal(signal.SIGTERM)
            if not _wait(proc, grace):
                self._signal(signal.SIGKILL)
                proc.wait()
        self._signal(signal.SIGKILL)  # anything the bot left behind in its group
        self._release_group()
        _reap_group(proc.pid)
        _reap_strays()
        for t in self._threads:
            t.join(timeout=grace)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        if self._home:
            shutil.rmtree(self._home, ignore_errors=True)

    def _kill(self) -> None:
        self._signal(signal.SIGKILL)

    def _release_group(self) -> None:
        """Kill whatever is still in the bot's control groups, then remove them."""
        _GROUPED.discard(self)
        if self in _IDLE_BY_THREAD.bots:
            _IDLE_BY_THREAD.bots.clear()
        if self._group is not None:
            self._group.kill()
            self._group.remove()
            self._group = None


    def _signal(self, sig: int) -> None:
        if self.proc is None:
            return
        if sig == signal.SIGKILL and self._group is not None:
            self._group.kill(timeout=0.0)
        elif self._group is not None:
            self._group.thaw()  # a frozen bot cannot act on a polite signal
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)


_GROUPED: weakref.WeakSet[SubprocessSeat] = weakref.WeakSet()  # bots with a group, this process


class _Idle(threading.local):
    """Per thread, as a referee runs on one: the bot that answered last, not yet frozen."""

    def __init__(self) -> None:
        self.bots: list[SubprocessSeat] = []  # at most one


_IDLE_BY_THREAD = _Idle()


def hold_idle_bots(keep: SubprocessSeat | None = None) -> None:
    """Freeze the bot left running after its last answer (unless it is ``keep``, the bot now
    asked): called as soon as another seat is asked, so that no idle bot takes CPU from the
    one thinking.  A bot asked for several decisions in a row is not frozen in between."""
    idle_bots = _IDLE_BY_THREAD.bots
    if idle_bots and idle_bots[0] is not keep:
        idle = idle_bots.pop()
        if idle._group is not None and idle.alive:
            idle._group.freeze()
_SEATS: weakref.WeakSet[SubprocessSeat] = weakref.WeakSet()  # every bot this process started


def _reap_strays() -> None:
    """Reap this process's zombie children that no seat will wait for: a box's own processes
    that outlived their parent are handed to this process (a child subreaper), dead or
    dying, and would otherwise stay zombies for as long as the referee runs."""
    me = os.getpid()
    waited = {s.proc.pid for s in list(_SEATS) if s.proc is not None and s.proc.returncode is None}
    reap([p.pid for p in processes()
          if p.state == "Z" and p.ppid == me and p.pid not in waited])


def _silent_hint(partial: int, others: int = 0) -> str:
    """What a timeout means, said with it: a bot that wrote part of a line (bytes with no
    newline after them) most likely did not flush; one that wrote nothing took too long."""
    if partial:
        return (f"; it wrote {partial} bytes with no newline after them: did the bot flush"
                " stdout? End each message with a newline and flush (a bot's output is"
                " buffered when it is a pipe)")
    if others:
        return (f": the bot took too long (it wrote {others} line{'s' * (others > 1)}, none"
                " of them the answer)")
    return ": the bot took too long (it wrote nothing)"


def _wait(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    try:
        proc.wait(timeout=timeout)
        return True
    except subprocess.TimeoutExpired:
        return False
