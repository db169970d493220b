"""``canasta bot ask`` from a transcript (``match --transcript DIR``: ``DIR/seatN.jsonl``).

A transcript is one seat's whole conversation, every message as the referee sent it and every
answer as the bot gave it, over all the games of a match.  So the bot is brought to a
decision by sending it those messages again, in order (the protocol's wire form of each is
its compact JSON, so the bytes are the game's): the handshake, every earlier game, then the
chosen game up to its K-th ``act``, whose answer, time and stderr are reported.  Its answers
to the earlier requests are read and compared with the transcript's, never played.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..protocol.messages import encode
from ..seats.base import SeatFailure
from ..seats.box import DEFAULT_POLICY, BoxPolicy
from ..seats.subprocess_seat import SubprocessSeat
from ..util.private_files import open_input, read_input
from .ask import MAX_MS, STDERR_SHOWN, Asked, AskError, timed

MAX_TRANSCRIPT = 1 << 27  # bytes: a long match's transcript is a few MiB
MAX_LINE = 1 << 22


def is_transcript(path: Path) -> bool:
    """Whether the file's first line is a transcript's (``{"from": ..., "msg": ...}``).  A
    file that cannot be read so (a FIFO, a device, too large, nested too deep) is not: the
    record reader then says why, in one line."""
    try:
        with open_input(path, MAX_TRANSCRIPT, "a transcript") as f:
            first = f.readline(MAX_LINE)
        line = json.loads(first)
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(line, dict) and "from" in line and "msg" in line


def load_transcript(path: Path) -> list[tuple[str, Any]]:
    """The (who, message) lines of a transcript; damage is an AskError naming the line."""
    try:
        data = read_input(path, MAX_TRANSCRIPT, "a transcript")
    except OSError as exc:
        raise AskError(f"cannot read {path}: {exc.strerror}") from None
    out: list[tuple[str, Any]] = []
    for no, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            if len(raw) > MAX_LINE:
                raise ValueError("too long")
            line = json.loads(raw)
            if not isinstance(line, dict) or line.get("from") not in ("referee", "bot",
                                                                      "failure"):
                raise ValueError("not a transcript line")
        except RecursionError:
            raise AskError(f"{path}:{no}: JSON nested too deeply") from None
        except ValueError as exc:
            raise AskError(f"{path}:{no}: {str(exc)[:120]}") from None
        out.append((line["from"], line.get("msg")))
    return out


def _target(lines: list[tuple[str, Any]], game: int | None, decision: int) -> tuple[int, int]:
    """The index of the chosen ``act`` and its game."""
    current = None
    counts: dict[int, int] = {}
    first = None
    for i, (who, msg) in enumerate(lines):
        if who != "referee" or not isinstance(msg, dict):
            continue
        if msg.get("type") == "game_start" and isinstance(msg.get("game"), int):
            current = msg["game"]
            first = current if first is None else first
            counts.setdefault(current, 0)
        elif msg.get("type") == "act" and current is not None:
            counts[current] += 1
            if current == (game if game is not None else first) and counts[current] == decision:
                return i, current
    chosen = game if game is not None else first
    if chosen is None:
        raise AskError("the transcript holds no game")
    if chosen not in counts:
        raise AskError(f"the transcript holds no game {chosen} (games:"
                       f" {', '.join(map(str, counts))})")
    raise AskError(f"game {chosen} of the transcript has {counts[chosen]} decisions of this"
                   f" seat, not {decision}")


def ask_transcript(command: str, lines: list[tuple[str, Any]], decision: int,
                   game: int | None = None, seat: int | None = None,
                   box: BoxPolicy = DEFAULT_POLICY) -> Asked:
    """Put the ``decision``-th request of ``game`` (default: the transcript's first game) to
    the bot ``command``, after everything the seat heard before it."""
    hello = next((m for w, m in lines if w == "referee" and isinstance(m, dict)
                  and m.get("type") == "hello"), None)
    if hello is None:
        raise AskError("the transcript has no hello (it must start at the handshake)")
    mine = hello.get("seat")
    if seat is not None and seat != mine:
        raise AskError(f"this transcript is seat {mine}'s, not seat {seat}'s")
    index, chosen = _target(lines, game, decision)
    budget, startup = _clock(hello.get("time"))
    bot = SubprocessSeat(command, name=str(hello.get("name") or "bot"), spin_us=0, box=box)
    earlier: list[str] = []
    asked: Asked | None = None
    count = 0
    try:
        for i, (who, msg) in enumerate(lines[:index + 1]):
            if who != "referee" or not isinstance(msg, dict):
                continue
            kind = msg.get("type")
            if kind == "hello":
                try:
                    bot.start(msg, startup)
                except SeatFailure as f:
                    raise AskError(f"the bot failed its handshake: {f.status}: {f.reason}"
                                   ) from None
                bot.started = True
            elif kind == "act" or (kind == "error" and msg.get("retry")):
                count += kind == "act" and msg.get("game") == chosen
                reply, failure, ms = timed(bot.request, msg, budget)
                recorded = _recorded(lines, i)
                if i == index:
                    asked = Asked(int(mine or 0), decision, 0, encode(msg), recorded, reply,
                                  failure, ms, earlier=earlier, game=chosen)
                    break
                if failure is not None:
                    raise AskError(f"the bot failed at request {msg.get('id')} of game"
                                   f" {msg.get('game')}, before the one asked for: {failure}")
                said = json.dumps(reply, separators=(",", ":"))
                if recorded and said != recorded and len(earlier) < 10:
                    earlier.append(f"request {msg.get('id')} (game {msg.get('game')}): now"
                                   f" {said}, in the game {recorded}")
            elif kind == "bye":
                break
            else:
                bot.send(msg)
    finally:
        bot.close(grace=0.5)
    assert asked is not None  # _target found the act
    asked.stderr = bot.stderr_tail(STDERR_SHOWN)
    return asked


def _clock(given: object) -> tuple[float, float]:
    """The seconds a request and the handshake may take, from the hello's ``time`` (an
    object of milliseconds; none at all: the defaults)."""
    if given is not None and not isinstance(given, dict):
        raise AskError(f"the transcript's hello gives its time as {str(given)[:30]}, not an"
                       " object of milliseconds")
    clock: dict[str, Any] = given or {}
    ms = {k: clock.get(k, default) for k, default in (("decision_ms", 0), ("bank_ms", 0),
                                                       ("margin_ms", 0), ("startup_ms", 10000))}
    for k, v in ms.items():
        if type(v) is not int or not 0 <= v <= MAX_MS:
            raise AskError(f"the transcript's hello gives {k} as {str(v)[:30]}, not a whole"
                           f" number of milliseconds from 0 to {MAX_MS:,}")
    return (ms["decision_ms"] + ms["bank_ms"] + ms["margin_ms"]) / 1000, ms["startup_ms"] / 1000


def _recorded(lines: list[tuple[str, Any]], i: int) -> str:
    """The bot's answer to request ``i`` in the transcript (the next bot or failure line)."""
    for who, msg in lines[i + 1:]:
        if who == "bot":
            return msg if isinstance(msg, str) else json.dumps(msg, separators=(",", ":"))
        if who == "failure":
            return f"(no answer: {msg})"
        if who == "referee":
            break
    return ""
