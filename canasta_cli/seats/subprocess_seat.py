"""A bot as a subprocess: its own process group, protocol on stdin/stdout, stderr to a log.

The referee never blocks on a bot: writes are non-blocking (what a bot does not read waits in
a buffer), reads wait in ``select`` with the deadline, lines over the limit are refused, and a
thread drains stderr into a capped log file.
"""

from __future__ import annotations

import contextlib
import os
import select
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from ..protocol.messages import MAX_LINE, ProtocolError, decode_line, encode
from .base import Message, Seat, SeatFailure

# Only what a program needs to run; nothing about the game (no seed, no deck) is ever passed.
_ENV_KEEP = ("PATH", "HOME", "LANG", "LANGUAGE", "TMPDIR", "TEMP", "TMP", "SYSTEMROOT",
             "PYTHONPATH", "VIRTUAL_ENV", "NODE_PATH", "TERM")


_SUBREAPER: list[bool] = []


def _become_subreaper() -> None:
    """Have orphaned descendants of bots reparent to this process (Linux), so that the
    grandchildren a bot leaves behind are reaped here, not left as zombies under an init that
    may not reap (containers)."""
    if _SUBREAPER or not sys.platform.startswith("linux"):
        return
    _SUBREAPER.append(True)
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def _reap_group(pgid: int, timeout: float = 1.0) -> None:
    """Reap this process's children in process group ``pgid`` (a killed bot's descendants)."""
    me = os.getpid()
    deadline = time.monotonic() + timeout
    while True:
        pending = []
        try:
            entries = os.listdir("/proc")
        except OSError:
            return
        for entry in entries:
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me and int(fields[2]) == pgid:
                pending.append(int(entry))
        for pid in pending:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)
        if not pending or time.monotonic() > deadline:
            return
        time.sleep(0.01)


def bot_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in _ENV_KEEP or k.startswith("LC_")}
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


class SubprocessSeat(Seat):
    """Talks to the bot on the caller's thread with non-blocking pipes and ``poll``, so a
    round trip costs two system calls and no thread hand-off; only stderr has a thread."""

    wire_only = True

    def __init__(self, command: str | list[str], name: str | None = None,
                 stderr_log: Path | None = None, stderr_limit: int = 1 << 20,
                 cwd: str | None = None, spin_us: int = 300) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("empty bot command")
        self.name = name or " ".join(self.argv)
        self.stderr_log = stderr_log
        self.stderr_limit = stderr_limit
        self.cwd = cwd
        # Poll without sleeping this long before blocking: a quick bot's answer is then picked
        # up at once instead of after a scheduler wake-up (0 turns it off).
        self.spin = spin_us / 1e6
        self.proc: subprocess.Popen[bytes] | None = None
        self._out = bytearray()      # waiting to be written to the bot
        self._in = bytearray()       # read from the bot, not yet a whole line
        self._lines: list[bytes] = []
        self._eof = False
        self._stdin_open = True
        self._threads: list[threading.Thread] = []
        self._dead: str | None = None
        self._stray: list[str] = []
        self._closed = False
        self._poll: select.poll | None = None

    # Lifecycle ---------------------------------------------------------------------------
    def start(self, hello: Message, timeout: float) -> Message:
        _become_subreaper()
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True, env=bot_environment(), cwd=self.cwd, bufsize=0,
                close_fds=True)
        except OSError as exc:
            self._dead = f"cannot start {self.argv[0]!r}: {exc.strerror or exc}"
            raise SeatFailure("CRASHED", self._dead) from None
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        os.set_blocking(self.proc.stdin.fileno(), False)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._poll = select.poll()  # registering costs no system call; each wait is one poll()
        self._poll.register(self.proc.stdout.fileno(), select.POLLIN)
        t = threading.Thread(target=self._drain_stderr, args=(self.proc.stderr,), daemon=True,
                             name="seat-stderr")
        t.start()
        self._threads.append(t)
        reply = self.request(hello, timeout)
        if reply.get("type") != "ready":
            raise SeatFailure("PROTOCOL_ERROR",
                              f"expected 'ready' in answer to 'hello', got {reply.get('type')!r}")
        return reply

    @property
    def alive(self) -> bool:
        return self.proc is not None and self._dead is None

    # Messages ------------------------------------------------------------------------------
    def send(self, msg: Message) -> None:
        if self.alive and self._stdin_open:
            self._out += encode(msg)
            if len(self._out) >= 65536:
                self._flush()

    def flush(self) -> None:
        if self.alive:
            self._flush()

    def request(self, msg: Message, timeout: float) -> Message:
        if not self.alive:
            raise SeatFailure("CRASHED", self._dead or "the bot is not running")
        deadline = time.monotonic() + max(0.0, timeout)
        self._take_strays()  # lines read earlier were not asked for (``unsolicited`` reads)
        self.send(msg)
        self._flush()
        if self.spin and not self._out:
            assert self.proc is not None and self.proc.stdout is not None
            assert self._poll is not None
            fd = self.proc.stdout.fileno()
            until = min(deadline, time.monotonic() + self.spin)
            while not self._lines and not self._eof and self._dead is None \
                    and time.monotonic() < until:
                if self._poll.poll(0):
                    self._read(fd)
        while not self._lines:
            if self._eof:
                code = self._exit_code()
                self._dead = ("the bot exited" + (f" with code {code}" if code is not None
                                                  else "") + " (closed its output)")
                raise SeatFailure("CRASHED", self._dead)
            if self._dead is not None:
                raise SeatFailure("PROTOCOL_ERROR", self._dead)
            left = deadline - time.monotonic()
            if left <= 0:
                raise SeatFailure("TIMEOUT", f"no answer within {timeout * 1000:.0f} ms")
            self._pump(left)
        line = self._lines.pop(0)
        try:
            return decode_line(line)
        except ProtocolError as exc:
            raise SeatFailure("PROTOCOL_ERROR", str(exc)) from None

    def unsolicited(self) -> list[str]:
        if self.alive and self.proc is not None and self.proc.stdout is not None:
            self._read(self.proc.stdout.fileno())
            self._take_strays()
        out, self._stray = self._stray, []
        return out

    def _take_strays(self) -> None:
        """Lines nobody asked for: keep a few as evidence, count the rest (a flood stays cheap)."""
        if not self._lines:
            return
        for line in self._lines[:3]:
            self._stray.append(f"message out of turn: {line[:80]!r}")
        if len(self._lines) > 3:
            self._stray.append(f"... and {len(self._lines) - 3} more messages out of turn")
        self._lines.clear()

    # I/O -----------------------------------------------------------------------------------
    def _flush(self) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        while self._out and self._stdin_open:
            try:
                n = os.write(self.proc.stdin.fileno(), self._out)
            except BlockingIOError:
                return  # the bot is not reading: keep the rest for later, never wait
            except OSError:
                self._stdin_open = False  # it closed its input or exited: reads will tell
                self._out.clear()
                return
            del self._out[:n]

    def _pump(self, timeout: float) -> None:
        """Write what is pending and read what has arrived, waiting at most ``timeout``."""
        assert self.proc is not None and self.proc.stdout is not None and self._poll is not None
        self._flush()
        fd_out = self.proc.stdout.fileno()
        stdin_fd = self.proc.stdin.fileno() if self.proc.stdin else -1
        want_write = bool(self._out) and self._stdin_open
        if want_write:
            self._poll.register(stdin_fd, select.POLLOUT)
        try:
            events = self._poll.poll(timeout * 1000)
        finally:
            if want_write:
                self._poll.unregister(stdin_fd)
        for fd, _mask in events:
            if fd == stdin_fd:
                self._flush()
            elif fd == fd_out:
                self._read(fd_out)

    def _read(self, fd: int) -> None:
        while True:
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
            while True:
                i = self._in.find(b"\n")
                if i < 0:
                    break
                if i > MAX_LINE:
                    break
                self._lines.append(bytes(self._in[:i]))
                del self._in[:i + 1]
            if len(self._in) > MAX_LINE:
                self._in.clear()
                self._dead = f"line longer than the {MAX_LINE}-byte limit"
                self._kill()
                return
            if len(chunk) < 1 << 16 and self._lines:
                return  # drained: spare the system call that would only say so

    def _exit_code(self) -> int | None:
        assert self.proc is not None
        try:
            return self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return None

    def _drain_stderr(self, stream: IO[bytes]) -> None:
        written = dropped = 0
        log = open(self.stderr_log, "ab") if self.stderr_log else None  # noqa: SIM115
        try:
            while True:
                try:
                    chunk = stream.read(65536)
                except (OSError, ValueError):
                    chunk = b""
                if not chunk:
                    break
                room = self.stderr_limit - written
                if log is not None and room > 0:
                    log.write(chunk[:room])
                    log.flush()
                written += min(len(chunk), max(room, 0))
                dropped += max(0, len(chunk) - max(room, 0))
            if log is not None and dropped:
                log.write(f"\n[canasta: {dropped} more bytes of stderr dropped]\n".encode())
        finally:
            if log is not None:
                log.close()

    # Shutdown ------------------------------------------------------------------------------
    def close(self, grace: float = 1.0) -> None:
        """Polite ``bye``, then SIGTERM to the process group, then SIGKILL; always reaped."""
        if self._closed or self.proc is None:
            return
        self._closed = True
        proc = self.proc
        if proc.poll() is None and self._dead is None and self._stdin_open:
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
        _reap_group(proc.pid)
        for t in self._threads:
            t.join(timeout=grace)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def _kill(self) -> None:
        self._signal(signal.SIGKILL)

    def _signal(self, sig: int) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)


def _wait(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    try:
        proc.wait(timeout=timeout)
        return True
    except subprocess.TimeoutExpired:
        return False
