"""A bot as a subprocess: its own process group, protocol on stdin/stdout, stderr to a log.

Three threads per bot keep the referee from ever blocking on it: one writes (a bot that never
reads only fills a queue), one reads stdout into complete lines (refusing lines over the
limit), one drains stderr into a capped log file.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import signal
import subprocess
import threading
from pathlib import Path
from typing import IO, Any

from ..protocol.messages import MAX_LINE, ProtocolError, decode_line, encode
from .base import Message, Seat, SeatFailure

_EOF = ("eof", b"")
# Only what a program needs to run; nothing about the game (no seed, no deck) is ever passed.
_ENV_KEEP = ("PATH", "HOME", "LANG", "LANGUAGE", "TMPDIR", "TEMP", "TMP", "SYSTEMROOT",
             "PYTHONPATH", "VIRTUAL_ENV", "NODE_PATH", "TERM")


def bot_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in _ENV_KEEP or k.startswith("LC_")}
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


class SubprocessSeat(Seat):
    def __init__(self, command: str | list[str], name: str | None = None,
                 stderr_log: Path | None = None, stderr_limit: int = 1 << 20,
                 cwd: str | None = None) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("empty bot command")
        self.name = name or " ".join(self.argv)
        self.stderr_log = stderr_log
        self.stderr_limit = stderr_limit
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[tuple[str, bytes]] = queue.Queue()
        self._out: queue.Queue[bytes | None] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._dead: str | None = None
        self._stray: list[str] = []
        self._closed = False

    # Lifecycle ---------------------------------------------------------------------------
    def start(self, hello: Message, timeout: float) -> Message:
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True, env=bot_environment(), cwd=self.cwd, bufsize=0,
                close_fds=True)
        except OSError as exc:
            self._dead = f"cannot start {self.argv[0]!r}: {exc.strerror or exc}"
            raise SeatFailure("CRASHED", self._dead) from None
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self._spawn(self._read_stdout, self.proc.stdout)
        self._spawn(self._drain_stderr, self.proc.stderr)
        self._spawn(self._write_stdin, self.proc.stdin)
        reply = self.request(hello, timeout)
        if reply.get("type") != "ready":
            raise SeatFailure("PROTOCOL_ERROR",
                              f"expected 'ready' in answer to 'hello', got {reply.get('type')!r}")
        return reply

    def _spawn(self, target: Any, stream: IO[bytes]) -> None:
        t = threading.Thread(target=target, args=(stream,), daemon=True,
                             name=f"seat-{target.__name__}")
        t.start()
        self._threads.append(t)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self._dead is None

    # Messages ------------------------------------------------------------------------------
    def send(self, msg: Message) -> None:
        if self.alive:
            self._out.put(encode(msg))

    def request(self, msg: Message, timeout: float) -> Message:
        if not self.alive:
            raise SeatFailure("CRASHED", self._dead or "the bot is not running")
        self._drain_stray()
        self.send(msg)
        return self._next(timeout)

    def unsolicited(self) -> list[str]:
        self._drain_stray()
        out, self._stray = self._stray, []
        return out

    def _drain_stray(self) -> None:
        while True:
            try:
                kind, data = self._lines.get_nowait()
            except queue.Empty:
                return
            if kind == "line":
                self._stray.append(f"message out of turn: {data[:80]!r}")
            else:
                self._lines.put((kind, data))  # EOF or overflow: keep it for the next read
                return

    def _next(self, timeout: float) -> Message:
        try:
            kind, data = self._lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            raise SeatFailure("TIMEOUT", f"no answer within {timeout * 1000:.0f} ms") from None
        if kind == "eof":
            self._lines.put(_EOF)
            code = self._exit_code()
            self._dead = ("the bot exited" + (f" with code {code}" if code is not None else "")
                          + " (closed its output)")
            raise SeatFailure("CRASHED", self._dead)
        if kind == "overflow":
            self._dead = f"line longer than the {MAX_LINE}-byte limit"
            self._kill()
            raise SeatFailure("PROTOCOL_ERROR", self._dead)
        try:
            return decode_line(data)
        except ProtocolError as exc:
            raise SeatFailure("PROTOCOL_ERROR", str(exc)) from None

    def _exit_code(self) -> int | None:
        assert self.proc is not None
        try:
            return self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return None

    # Threads -------------------------------------------------------------------------------
    def _read_stdout(self, stream: IO[bytes]) -> None:
        buf = bytearray()
        overflow = False
        while True:
            try:
                chunk = stream.read(65536)
            except (OSError, ValueError):
                chunk = b""
            if not chunk:
                self._lines.put(_EOF)
                return
            if overflow:
                continue  # keep draining so that the bot never blocks on a full pipe
            buf += chunk
            while True:
                i = buf.find(b"\n")
                if i < 0:
                    break
                line = bytes(buf[:i])
                del buf[:i + 1]
                if len(line) > MAX_LINE:
                    overflow = True
                    break
                self._lines.put(("line", line))
            if overflow or len(buf) > MAX_LINE:
                overflow = True
                buf.clear()
                self._lines.put(("overflow", b""))

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

    def _write_stdin(self, stream: IO[bytes]) -> None:
        while True:
            data = self._out.get()
            if data is None:
                break
            try:
                view = memoryview(data)
                while view:
                    n = stream.write(view)
                    view = view[n or 0:]
                stream.flush()
            except (OSError, ValueError):
                break  # the bot is gone or closed its input: reads will report it
        with contextlib.suppress(OSError):
            stream.close()

    # Shutdown ------------------------------------------------------------------------------
    def close(self, grace: float = 1.0) -> None:
        """Polite ``bye``, then SIGTERM to the process group, then SIGKILL; always reaped."""
        if self._closed or self.proc is None:
            return
        self._closed = True
        proc = self.proc
        if proc.poll() is None and self._dead is None:
            self._out.put(encode({"type": "bye"}))
        self._out.put(None)
        if not _wait(proc, grace):
            self._signal(signal.SIGTERM)
            if not _wait(proc, grace):
                self._signal(signal.SIGKILL)
                proc.wait()
        self._signal(signal.SIGKILL)  # anything the bot left behind in its group
        for t in self._threads:
            t.join(timeout=grace)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
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
