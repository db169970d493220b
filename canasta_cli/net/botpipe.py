"""``canasta join --bot COMMAND``: a bot's stdin and stdout piped to a table connection.

The bot is started the way every bot is (``SubprocessSeat``: its own process group, contained
or sandboxed, a private home, its stderr drained to a log), and then only bytes are copied:
the server judges every line, as it would the bot's pipes.  Any bot that runs under
``canasta match`` runs here unchanged.  The table's own lines (its welcome or refusal) are
read as the person's client reads them: bounded, and made safe before they are shown.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..protocol.replies import ProtocolError, decode_line
from ..seats.base import Message
from ..seats.box import DEFAULT_POLICY, BoxPolicy
from ..seats.subprocess_seat import SubprocessSeat
from .client import Backoff, Busy, JoinError, refusal, safe
from .wire import HANDSHAKE_LINE, join_message


async def _handshake(host: str, port: int, token: str, tls: ssl.SSLContext | None
                     ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, Message, bytes]:
    """Connect and join: the streams, the table's welcome (made safe to show) and what
    came after it; JoinError (Busy: the table is busy, try again) if that failed."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(
            host, port, ssl=tls, server_hostname=host if tls else None), 10)
    except (OSError, ssl.SSLError, TimeoutError) as exc:
        raise JoinError(f"cannot reach {host}:{port}: {exc}") from None
    try:
        writer.write(join_message(token, "bot"))
        first, rest = await _first_line(reader, f"{host}:{port}")
        try:
            welcome = safe(decode_line(first))
        except ProtocolError:
            raise JoinError(f"{host}:{port} does not look like a canasta table") from None
        if welcome.get("type") == "refused":
            raise refusal(welcome)
        if welcome.get("type") != "welcome":
            raise JoinError(f"{host}:{port} does not look like a canasta table")
    except JoinError:
        writer.close()
        raise
    return reader, writer, welcome, rest


async def _first_line(reader: asyncio.StreamReader, where: str) -> tuple[bytes, bytes]:
    """The table's first line (at most ``HANDSHAKE_LINE`` bytes) and what came after it."""
    buf = b""
    while b"\n" not in buf:
        try:
            chunk = await asyncio.wait_for(reader.read(HANDSHAKE_LINE), 10)
        except (OSError, ssl.SSLError, TimeoutError):
            chunk = b""
        if len(buf) > HANDSHAKE_LINE:
            raise JoinError(f"{where} does not look like a canasta table (its first line is"
                            f" over {HANDSHAKE_LINE} bytes)")
        if not chunk:
            raise JoinError(f"{where} closed the connection during the handshake")
        buf += chunk
    first, _, rest = buf.partition(b"\n")
    return first, rest


async def _join(host: str, port: int, token: str, tls: ssl.SSLContext | None,
                retry_s: float, said: Callable[[str], object]
                ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, Message, bytes]:
    """``_handshake``, tried again while the table says it is busy, for up to ``retry_s``."""
    backoff = Backoff(retry_s)
    told = False
    while True:
        try:
            return await _handshake(host, port, token, tls)
        except Busy as exc:
            pause = backoff.next()
            if pause is None:
                raise Busy(f"{exc} (still busy after {retry_s:g} s)") from None
        if not told:
            said(f"the table is busy; trying again for up to {retry_s:g} s...")
            told = True
        await asyncio.sleep(pause)


@dataclass(frozen=True)
class BotAtTable:
    """A bot program to seat at a served table: where (``host``, ``port``, TLS or not), with
    which seat's ``token``, the bot's ``command`` and its box, where its stderr goes, and how
    long to keep trying while the table is busy (``retry_s``)."""

    host: str
    port: int
    token: str
    tls: ssl.SSLContext | None
    command: str
    box: BoxPolicy = DEFAULT_POLICY
    stderr_log: Path | None = None
    retry_s: float = 60.0


async def pipe(plan: BotAtTable, said: Callable[[str], object] = print) -> str:
    """Join (for up to ``retry_s`` while the table is busy), start the bot, copy both ways
    until either side ends; why it ended."""
    reader, writer, welcome, rest = await _join(plan.host, plan.port, plan.token, plan.tls,
                                                plan.retry_s, said)
    said(f"joined seat {welcome.get('seat')} ({welcome.get('name')}) as a bot: {plan.command}")
    seat = SubprocessSeat(plan.command, stderr_log=plan.stderr_log, box=plan.box)
    seat.launch()
    proc = seat.proc
    if proc is None or proc.stdin is None or proc.stdout is None:
        writer.close()
        raise JoinError(f"cannot start the bot: {getattr(seat, '_dead', None) or plan.command}")
    stdin, stdout = proc.stdin.fileno(), proc.stdout.fileno()
    os.set_blocking(stdin, False)
    os.set_blocking(stdout, False)
    loop = asyncio.get_running_loop()
    bot_done = asyncio.Event()
    loop.add_reader(stdout, _bot_said, loop, stdout, writer, bot_done)
    try:
        return await _copy(reader, rest, loop, stdin, bot_done)
    finally:
        loop.remove_reader(stdout)
        with contextlib.suppress(Exception):
            await writer.drain()
        writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer.wait_closed(), 2)
        with contextlib.suppress(Exception):
            await asyncio.to_thread(proc.wait, 1.0)  # a bot that heard bye exits by itself
        await asyncio.to_thread(seat.close)


def _bot_said(loop: asyncio.AbstractEventLoop, stdout: int, writer: asyncio.StreamWriter,
              done: asyncio.Event) -> None:
    """The bot's stdout, as it comes, onto the connection (on the loop: no thread)."""
    while True:
        try:
            chunk = os.read(stdout, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            loop.remove_reader(stdout)
            done.set()
            return
        writer.write(chunk)


async def _copy(reader: asyncio.StreamReader, chunk: bytes, loop: asyncio.AbstractEventLoop,
                stdin: int, bot_done: asyncio.Event) -> str:
    """The table's bytes to the bot's stdin (``chunk``: those read with the welcome) until
    either side ends; why it ended."""
    why = "the table closed the connection"
    down = asyncio.ensure_future(reader.read(65536))
    ended = asyncio.ensure_future(bot_done.wait())
    try:
        while True:
            if chunk:
                try:
                    await _to_bot(loop, stdin, chunk)
                except OSError:
                    return "the bot closed its input"
            done, _ = await asyncio.wait({down, ended}, return_when=asyncio.FIRST_COMPLETED)
            if ended in done:
                return "the bot ended"
            try:
                chunk = down.result()
            except (OSError, ssl.SSLError):
                chunk = b""
            if not chunk:
                return why
            down = asyncio.ensure_future(reader.read(65536))
    finally:
        down.cancel()
        ended.cancel()


async def _to_bot(loop: asyncio.AbstractEventLoop, fd: int, data: bytes) -> None:
    """Write to the bot's stdin without blocking the loop; waits while the pipe is full
    (TCP then holds what the table sends)."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            ready = loop.create_future()
            loop.add_writer(fd, ready.set_result, None)
            try:
                await ready
            finally:
                loop.remove_writer(fd)
