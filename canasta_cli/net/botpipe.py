"""``canasta join --bot COMMAND``: a bot's stdin and stdout piped to a table connection.

The bot is started the way every bot is (``SubprocessSeat``: its own process group, contained
or sandboxed, a private home, its stderr drained to a log), and then only bytes are copied:
the server judges every line, as it would the bot's pipes.  Any bot that runs under
``canasta match`` runs here unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import ssl
from pathlib import Path

from ..seats.subprocess_seat import SubprocessSeat
from .client import JoinError
from .wire import HANDSHAKE_LINE, join_message


async def _handshake(host: str, port: int, token: str, tls: ssl.SSLContext | None
                     ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, dict[str, object],
                                bytes]:
    import json
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(
            host, port, ssl=tls, server_hostname=host if tls else None), 10)
    except (OSError, ssl.SSLError, TimeoutError) as exc:
        raise JoinError(f"cannot reach {host}:{port}: {exc}") from None
    writer.write(join_message(token, "bot"))
    buf = b""
    while b"\n" not in buf:
        try:
            chunk = await asyncio.wait_for(reader.read(HANDSHAKE_LINE), 10)
        except (OSError, ssl.SSLError, TimeoutError):
            chunk = b""
        if not chunk or len(buf) > HANDSHAKE_LINE:
            raise JoinError(f"{host}:{port} closed the connection during the handshake")
        buf += chunk
    first, _, rest = buf.partition(b"\n")
    try:
        welcome = json.loads(first)
    except ValueError:
        raise JoinError(f"{host}:{port} does not look like a canasta table") from None
    if not isinstance(welcome, dict) or welcome.get("type") != "welcome":
        reason = welcome.get("reason") if isinstance(welcome, dict) else None
        raise JoinError(f"refused: {str(reason)[:300]}")
    return reader, writer, welcome, rest


async def pipe(host: str, port: int, token: str, tls: ssl.SSLContext | None, command: str,
               sandbox: bool = False, stderr_log: Path | None = None,
               said: object = print) -> str:
    """Join, start the bot, copy both ways until either side ends; why it ended."""
    reader, writer, welcome, rest = await _handshake(host, port, token, tls)
    if callable(said):
        said(f"joined seat {welcome.get('seat')} ({welcome.get('name')}) as a bot: {command}")
    seat = SubprocessSeat(command, stderr_log=stderr_log, sandbox=sandbox)
    seat.launch()
    proc = seat.proc
    if proc is None or proc.stdin is None or proc.stdout is None:
        writer.close()
        raise JoinError(f"cannot start the bot: {getattr(seat, '_dead', None) or command}")
    stdin, stdout = proc.stdin.fileno(), proc.stdout.fileno()
    os.set_blocking(stdin, False)
    os.set_blocking(stdout, False)
    loop = asyncio.get_running_loop()
    bot_done = asyncio.Event()

    def bot_said() -> None:
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
                bot_done.set()
                return
            writer.write(chunk)

    loop.add_reader(stdout, bot_said)
    why = "the table closed the connection"
    try:
        chunk = rest
        down = asyncio.ensure_future(reader.read(65536))
        ended = asyncio.ensure_future(bot_done.wait())
        while True:
            if chunk:
                try:
                    await _to_bot(loop, stdin, chunk)
                except OSError:
                    why = "the bot closed its input"
                    break
            done, _ = await asyncio.wait({down, ended}, return_when=asyncio.FIRST_COMPLETED)
            if ended in done:
                why = "the bot ended"
                break
            try:
                chunk = down.result()
            except (OSError, ssl.SSLError):
                chunk = b""
            if not chunk:
                break
            down = asyncio.ensure_future(reader.read(65536))
        down.cancel()
        ended.cancel()
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
    return why


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
