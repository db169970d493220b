"""``canasta bench protocol``: the round trip through a subprocess bot against a bare echo."""

from __future__ import annotations

import json
import os
import select
import shlex
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Annotated

import typer

from ..cli.options import RulesOpt, fail, load_rules
from ..core import CLASSIC, Ruleset
from ..hosting.referee import Referee
from ..protocol.messages import ActRequest, encode
from ..protocol.statuses import SeatStatus
from ..seats import SubprocessSeat, builtin_seat
from ..seats.base import Message, Seat
from ..seats.subprocess_seat import STDERR_TAIL
from .example_bot import BotOpt, bench_bot, bots_dir
from .timed_bot import MARK

ECHO_BOT = ("import sys, json\n"
            "for line in sys.stdin:\n"
            "    if json.loads(line).get('type') == 'act':\n"
            "        sys.stdout.write('{\"type\":\"move\",\"id\":0,\"index\":0}\\n')\n"
            "        sys.stdout.flush()\n")

# The reference bot: it answers each request with a random listed index, read off the line
# with a regular expression (the request's id) and a count (its moves), and parses no JSON.
# Played through the same referee and box as the bot timed, it shows what the referee, the
# box and the machine's wake-ups cost a round trip; the rest of a bot's is its own reading.
BARE_BOT = ("import random, re, sys\n"
            "rng, rid = random.Random(0), re.compile(r'\"id\":(\\d+)')\n"
            "for line in sys.stdin:\n"
            "    if line.startswith('{\"type\":\"act\",'):\n"
            "        n = line.count('{\"index\":', line.rfind(',\"moves\":['))\n"
            "        sys.stdout.write('{\"type\":\"move\",\"id\":%s,\"index\":%d}\\n'\n"
            "                         % (rid.search(line)[1], rng.randrange(n)))\n"
            "        sys.stdout.flush()\n"
            "    elif line.startswith('{\"type\":\"hello\"'):\n"
            "        sys.stdout.write('{\"type\":\"ready\",\"protocol\":\"canasta/1.1\",'\n"
            "                         '\"name\":\"bare\"}\\n')\n"
            "        sys.stdout.flush()\n"
            "    elif line.startswith('{\"type\":\"bye\"'):\n"
            "        break\n")


@dataclass(frozen=True)
class ProtocolBench:
    decisions: int
    referee_median_ms: float
    referee_p90_ms: float
    echo_median_ms: float
    echo_p90_ms: float
    subprocess_game_s: float
    inprocess_game_s: float
    games: int
    echo4_median_ms: float
    round_ratios: tuple[float, ...] = ()  # per round: referee median / echo median
    round_ratios4: tuple[float, ...] = ()  # the same against one echo process per seat
    build_median_ms: float = 0.0  # making the request's bytes (the observation, the moves)
    exchange_median_ms: float = 0.0  # from writing them to holding the bot's answer
    rest_median_ms: float = 0.0  # the rest of the round trip: the referee's own bookkeeping
    idle_echo_median_ms: float = 0.0  # one echo per seat, each idle as long as its bot was
    # The round trips (and their written -> answer read parts) of requests to the bot that
    # answered the request before (a turn's next decision: the bot is awake), and to a bot
    # woken after other seats' turns (it slept, frozen, meanwhile).
    again_trip_ms: tuple[float, ...] = ()
    again_exchange_ms: tuple[float, ...] = ()
    woken_trip_ms: tuple[float, ...] = ()
    woken_exchange_ms: tuple[float, ...] = ()
    seat_errors: tuple[str, ...] = ()  # a seat's failure, for each seat that had one
    bare_median_ms: float = 0.0  # the round trip of the bare reference bot (``BARE_BOT``)
    bare_ratios: tuple[float, ...] = ()  # per round: its median / the echo's median
    bare_errors: tuple[str, ...] = ()  # a bare seat's failure (none, unless the box fails)

    @property
    def ratio(self) -> float:
        """The median of the per-round ratios (each round: a game, then its echo replay)."""
        if self.round_ratios:
            return float(statistics.median(self.round_ratios))
        return self.referee_median_ms / self.echo_median_ms if self.echo_median_ms else 0.0

    @property
    def ratio4(self) -> float:
        if self.round_ratios4:
            return float(statistics.median(self.round_ratios4))
        return self.referee_median_ms / self.echo4_median_ms if self.echo4_median_ms else 0.0

    @property
    def bare_ratio(self) -> float:
        return float(statistics.median(self.bare_ratios)) if self.bare_ratios else 0.0

    @property
    def game_ratio(self) -> float:
        return self.subprocess_game_s / self.inprocess_game_s if self.inprocess_game_s else 0.0


def _percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0


def bench_protocol(bot: list[str], games: int = 3, seed: int = 0,
                   spin_us: int = 300, rules: Ruleset = CLASSIC) -> ProtocolBench:
    """Per-decision round trip through a subprocess bot, referee included, against the floor:
    the very same bytes written in the round trip (the request, after anything still queued
    for that bot; its events are normally sent while the request is built) written to a bare
    echo process that parses every JSON line and answers each request with a fixed line.

    Rounds alternate: one game through the referee, then its requests through the echo, and
    so on, so that machine drift touches both; the ratio is taken per round.  Each round
    also plays the game's deal with the bare reference bot in every seat (``BARE_BOT``),
    through a referee and box of its own.  Then whole games of subprocess bots (one per
    seat) against in-process random players."""
    batches: list[tuple[int, bytes]] = []
    idles: list[float] = []  # per request: how long that bot had been idle (s)
    builds: list[float] = []
    exchanges: list[float] = []
    answered: dict[int, float] = {}
    again: list[bool] = []  # per request: the same seat as the request before
    last_seat = [-1]

    class Capturing(SubprocessSeat):
        def act(self, request: ActRequest, timeout: float) -> Message:
            t0 = time.perf_counter()
            idles.append(t0 - answered.get(request.seat, t0))
            again.append(request.seat == last_seat[0])
            last_seat[0] = request.seat
            wire = encode(request)  # made here, kept in the request: the seat reuses it
            t1 = time.perf_counter()
            batches.append((request.seat, bytes(self._out) + wire))
            t2 = time.perf_counter()
            try:
                return super().act(request, timeout)
            finally:
                answered[request.seat] = time.perf_counter()
                builds.append((t1 - t0) * 1000)
                exchanges.append((time.perf_counter() - t2) * 1000)

    rules = rules.with_options(max_hands=1)
    n = rules.players
    seats: list[Seat] = [Capturing(bot, name=f"bot{i}", spin_us=spin_us) for i in range(n)]
    ref = Referee(seats, rules)
    ref.start()
    bare = Referee([SubprocessSeat([sys.executable, "-c", BARE_BOT], name=f"bare{i}",
                                   spin_us=spin_us) for i in range(n)], rules)
    bare.start()
    bare_trips: list[float] = []
    bare_ratios: list[float] = []
    trips: list[float] = []
    floor: list[float] = []
    floor4: list[float] = []
    idle_floor: list[float] = []
    ratios: list[float] = []
    ratios4: list[float] = []
    sub_s = 0.0
    all_builds: list[float] = []
    all_exchanges: list[float] = []
    rest: list[float] = []
    split: dict[bool, tuple[list[float], list[float]]] = {True: ([], []), False: ([], [])}
    for g in range(games):
        batches.clear()
        idles.clear()
        answered.clear()
        builds.clear()
        exchanges.clear()
        again.clear()
        last_seat[0] = -1
        before = len(ref.round_trips_ms)
        t0 = time.perf_counter()
        ref.play(g + 1, seed=seed + g)
        sub_s += time.perf_counter() - t0
        mine = ref.round_trips_ms[before:]
        if len(mine) == len(builds):  # every decision answered: the parts pair up
            rest += [t - b - x for t, b, x in zip(mine, builds, exchanges, strict=True)]
            for same, t, x in zip(again, mine, exchanges, strict=True):
                split[same][0].append(t)
                split[same][1].append(x)
        all_builds += builds
        all_exchanges += exchanges
        echo = _echo_floor(list(batches), 1, spin_us)
        trips += mine
        floor += echo
        echo4 = _echo_floor(list(batches), n, spin_us)
        floor4 += echo4
        idle_floor += _echo_floor(list(batches), n, spin_us, list(idles))
        if echo and mine:
            ratios.append(statistics.median(mine) / statistics.median(echo))
            ratios4.append(statistics.median(mine) / statistics.median(echo4))
        before = len(bare.round_trips_ms)
        bare.play(g + 1, seed=seed + g)
        plain = bare.round_trips_ms[before:]
        bare_trips += plain
        if echo and plain:
            bare_ratios.append(statistics.median(plain) / statistics.median(echo))
    errors = [(i, r.errors[0] if r.errors else r.status) for i, r in enumerate(ref.reports)
              if r.status != SeatStatus.OK]
    seat_errors = (tuple(f"seat {i}: {e}" for i, e in errors)
                   if len({e for _, e in errors}) > 1 or len(errors) < n
                   else (f"every seat: {errors[0][1]}",) if errors else ())
    ref.close()
    bare_errors = tuple(f"seat {i}: {r.errors[0] if r.errors else r.status}"
                        for i, r in enumerate(bare.reports) if r.status != SeatStatus.OK)
    bare.close()
    inproc = Referee([builtin_seat("builtin:random", i) for i in range(n)], rules)
    t0 = time.perf_counter()
    for g in range(games):
        inproc.play(g + 1, seed=seed + g)
    in_s = (time.perf_counter() - t0) / games
    return ProtocolBench(len(trips), _percentile(trips, 0.5), _percentile(trips, 0.9),
                         _percentile(floor, 0.5), _percentile(floor, 0.9), sub_s / games, in_s,
                         games, _percentile(floor4, 0.5), tuple(ratios), tuple(ratios4),
                         _percentile(all_builds, 0.5), _percentile(all_exchanges, 0.5),
                         _percentile(rest, 0.5), _percentile(idle_floor, 0.5),
                         tuple(split[True][0]), tuple(split[True][1]), tuple(split[False][0]),
                         tuple(split[False][1]), seat_errors, _percentile(bare_trips, 0.5),
                         tuple(bare_ratios), bare_errors)


@dataclass(frozen=True)
class InsideSplit:
    """One kind of request (to the bot that answered the one before, or to a bot woken after
    others' turns): how many, and the medians (ms) of the exchange's four parts as the bot's
    clock and the referee's split it."""

    requests: int
    wake_ms: float  # the seat asked (its bytes written) -> the first line the bot read
    events_ms: float  # the first line read -> the request's line read: the queued events
    work_ms: float  # the request read -> the answer written: the kit and choose
    back_ms: float  # the answer written -> the referee holds it
    exchange_ms: float  # the whole: written -> answer held


def bench_inside(games: int, seed: int = 0, spin_us: int = 300, rules: Ruleset = CLASSIC,
                 bot_file: Path | None = None) -> tuple[InsideSplit, InsideSplit, int]:
    """Games of a kit bot (``bot_file``, by default the example bot) timing itself
    (``timed_bot.py``: the same play, a clock read per line), each exchange split by the
    bot's and the referee's readings of the one monotonic clock.  Returns the splits for
    awake and woken bots, and how many exchanges had their parts out of order (0 unless the
    two clocks differ)."""
    sent: dict[int, tuple[int, int, bool]] = {}
    last = [-1]

    class Stamped(SubprocessSeat):
        def act(self, request: ActRequest, timeout: float) -> Message:
            encode(request)  # its bytes made first: the exchange is timed as in the bench
            same, last[0] = request.seat == last[0], request.seat
            t = time.monotonic_ns()
            try:
                return super().act(request, timeout)
            finally:
                sent[request.id] = (t, time.monotonic_ns(), same)

    timed = str(Path(__file__).with_name("timed_bot.py"))
    bot = [sys.executable, timed, str(bot_file or bots_dir() / "random_bot.py")]
    rules = rules.with_options(max_hands=1)
    seats = [Stamped(bot, name=f"timed{i}", spin_us=spin_us) for i in range(rules.players)]
    ref = Referee(list(seats), rules)
    ref.start()
    try:
        for g in range(games):
            last[0] = -1
            ref.play(g + 1, seed=seed + g)
    finally:
        ref.close()
    parts: dict[bool, list[tuple[float, ...]]] = {True: [], False: []}
    disorder = 0
    for seat in seats:
        for line in seat.stderr_tail(STDERR_TAIL).splitlines():
            for rid, first, read, answered in _kit_times(line):
                if rid not in sent:
                    continue
                t, held, same = sent[rid]
                # News sent before the request (while another bot thought) may have been read
                # before it was written: the wake-up then counts from the write to the request.
                first = max(first, t) if first < t <= read else first
                stamps = (t, first, read, answered, held)
                if any(b < a for a, b in pairwise(stamps)):
                    disorder += 1
                    continue
                parts[same].append(tuple((b - a) / 1e6 for a, b in pairwise(stamps))
                                   + ((held - t) / 1e6,))
    splits = tuple(InsideSplit(len(rows), *(_percentile([r[k] for r in rows], 0.5)
                                            for k in range(5)))
                   for rows in (parts[True], parts[False]))
    return splits[0], splits[1], disorder


def python_bot_file(bot: list[str]) -> Path | None:
    """The bot file of a ``--bot`` that runs a Python file (``python3 BOT.py``, or
    ``BOT.py`` itself with a Python shebang): what ``--inside`` can time; None otherwise."""
    words = bot[1:] if bot and Path(bot[0]).name.startswith("python") else bot
    if len(words) != 1 or not words[0].endswith(".py"):
        return None
    path = Path(words[0])
    if not path.is_file():
        return None
    if words is bot:  # run as a program: only if it is a Python script
        with path.open("rb") as f:
            head = f.readline(200)
        if not (head.startswith(b"#!") and b"python" in head):
            return None
    return path.resolve()


def _kit_times(line: str) -> list[tuple[int, int, int, int]]:
    """The timed bot's stamps from its stderr line (none from any other line, or from one
    cut short)."""
    if not line.startswith(MARK):
        return []
    try:
        rows = json.loads(line[len(MARK):])
    except ValueError:
        return []
    if not isinstance(rows, list):
        return []
    return [tuple(r) for r in rows
            if isinstance(r, list) and len(r) == 4 and all(type(x) is int for x in r)]


def _echo_floor(batches: list[tuple[int, bytes]], processes: int,
                spin_us: int = 300, idles: list[float] | None = None) -> list[float]:
    """Round trips of the captured request batches through bare echo processes: one process
    for all seats, or one per seat (as in a match, where each bot idles between its turns).
    The answer is awaited as the referee awaits a bot's (``SubprocessSeat``): polled without
    sleeping for ``spin_us``, then waited for in ``poll``, and read in one chunk.  With
    ``idles``, each request waits (untimed) as long as its bot had been idle: what waking a
    process that slept costs this machine, apart from any bot's or referee's work."""
    echoes = [subprocess.Popen([sys.executable, "-c", ECHO_BOT], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, bufsize=0) for _ in range(processes)]
    polls = []
    for echo in echoes:
        assert echo.stdout is not None
        os.set_blocking(echo.stdout.fileno(), False)
        p = select.poll()
        p.register(echo.stdout.fileno(), select.POLLIN)
        polls.append(p)
    spin = spin_us / 1e6
    times: list[float] = []
    for n, (seat, batch) in enumerate(batches):
        if idles is not None and n < len(idles):
            time.sleep(min(idles[n], 0.005))
        echo, p = echoes[seat % processes], polls[seat % processes]
        assert echo.stdin and echo.stdout
        out, got = echo.stdin.fileno(), b""
        t = time.perf_counter()
        view = memoryview(batch)
        while view:
            view = view[os.write(out, view):]
        while not got.endswith(b"\n"):
            waited = time.perf_counter() - t
            if p.poll(0 if waited < spin else 1000):
                got += os.read(echo.stdout.fileno(), 1 << 16)
        times.append((time.perf_counter() - t) * 1000)
    for echo in echoes:
        assert echo.stdin
        echo.stdin.close()
        echo.wait()
    return times


def register(bench_app: typer.Typer) -> None:
    bench_app.command("protocol")(bench_protocol_cmd)


def bench_protocol_cmd(
    bot: BotOpt = "",
    games: Annotated[int, typer.Option(help="One-hand games to time (one round each).", min=1)]
    = 15,
    seed: int = 0,
    spin_us: Annotated[int, typer.Option(
        help="Microseconds the referee polls before sleeping (0: sleep at once).", min=0)] = 300,
    rules: RulesOpt = "classic",
    inside: Annotated[int, typer.Option(
        help="Games more of the bot timing itself, to split the exchange into the wake-up,"
        " the queued events, the kit's work and the way back (0: none).  For a Python bot"
        " built on canasta_kit.run: the example bot, or --bot 'python3 BOT.py'.",
        min=0, max=10)] = 3,
) -> None:
    """Round trip per decision through a subprocess bot vs a bare JSON echo (one bot per
    seat of the preset); game times."""
    ruleset = load_rules(rules, None)
    command = bench_bot(bot)
    if command[0].startswith("builtin:"):
        raise fail(f"--bot {bot} plays in-process, and this bench times a subprocess bot: pass"
                   f" a command, e.g. --bot 'canasta bot run {command[0][len('builtin:'):]}'")
    load_before = os.getloadavg()[0]
    b = bench_protocol(command, games, seed, spin_us, ruleset)
    if not b.decisions:
        raise fail("the bot answered no request, so there is no round trip to time ("
                   + "; ".join(b.seat_errors or ("no seat reported a failure",))
                   + f"): try it with canasta bot check {shlex.quote(shlex.join(command))}")
    load_after = os.getloadavg()[0]
    typer.echo(f"decisions measured: {b.decisions} ({b.games} games, {os.cpu_count()} CPUs)")
    if b.seat_errors:  # the referee played default moves for them: fewer, other round trips
        typer.echo("the bot failed in these games (its failed requests are not timed): "
                   + "; ".join(b.seat_errors))
    typer.echo(f"round trip, referee + bot:  median {b.referee_median_ms:.3f} ms"
               f"  p90 {b.referee_p90_ms:.3f} ms")
    typer.echo(f"bare JSON-line echo floor:  median {b.echo_median_ms:.3f} ms"
               f"  p90 {b.echo_p90_ms:.3f} ms")
    rs = sorted(b.round_ratios)
    typer.echo(f"ratio, median of {len(rs)} interleaved rounds (a game, then its echo):"
               f" {b.ratio:.2f}x (min {rs[0]:.2f}, max {rs[-1]:.2f})")
    r4 = sorted(b.round_ratios4)
    typer.echo(f"echo floor with one echo process per seat, as in a match: median"
               f" {b.echo4_median_ms:.3f} ms, ratio {b.ratio4:.2f}x"
               + (f" (min {r4[0]:.2f}, max {r4[-1]:.2f})" if r4 else ""))
    typer.echo(f"where the round trip goes (medians): request bytes made {b.build_median_ms:.3f}"
               f" ms, written -> answer read {b.exchange_median_ms:.3f} ms (the bot's wake-up"
               f" and work, the freezer), the referee's rest {b.rest_median_ms:.3f} ms; the"
               f" echo's written -> answer read {b.echo_median_ms:.3f} ms")
    typer.echo(f"echo floor with one echo per seat, each idle as long as its bot was before each"
               f" request (the machine's cost of waking a process that slept): median"
               f" {b.idle_echo_median_ms:.3f} ms, ratio"
               f" {b.referee_median_ms / b.idle_echo_median_ms if b.idle_echo_median_ms else 0:.2f}x")
    if b.bare_ratios:
        rb = sorted(b.bare_ratios)
        typer.echo(f"a bare bot through the same referee and box (it reads the request's id"
                   f" and counts its moves, no JSON; the same deals): median"
                   f" {b.bare_median_ms:.3f} ms, ratio {b.bare_ratio:.2f}x (min {rb[0]:.2f},"
                   f" max {rb[-1]:.2f}): the referee's, the box's and the wake-ups' share; the"
                   f" rest of the bot's round trip is its own reading and answering")
    if b.bare_errors:
        typer.echo("the bare bot failed (its failed requests are not timed): "
                   + "; ".join(b.bare_errors))
    for label, trips, parts in (
            ("to the bot that answered the request before (awake)", b.again_trip_ms,
             b.again_exchange_ms),
            ("to a bot woken after other seats' turns (it slept)", b.woken_trip_ms,
             b.woken_exchange_ms)):
        if trips:
            typer.echo(f"requests {label}: {len(trips)}, round trip median"
                       f" {_percentile(list(trips), 0.5):.3f} ms, written -> answer read median"
                       f" {_percentile(list(parts), 0.5):.3f} ms")
    bot_file = python_bot_file(command) if bot else None
    if inside and bot and bot_file is None:
        typer.echo(f"inside the bot: not timed: --inside times a Python bot file built on"
                   f" canasta_kit.run (--bot 'python3 BOT.py'), not {bot!r}")
    elif inside:
        awake, woken, disorder = bench_inside(inside, seed, spin_us, ruleset, bot_file)
        who = bot_file.name if bot_file else "the example bot"
        typer.echo(f"inside the bot ({inside} more games of {who} timing itself by the"
                   " referee's monotonic clock), medians:")
        if not awake.requests and not woken.requests:
            typer.echo("  no stamps came back: the bot does not play through canasta_kit.run,"
                       " or it failed (see its stderr with canasta match)")
        for label, part in (("awake", awake), ("woken", woken)):
            if not part.requests:
                continue
            typer.echo(f"  {label}, {part.requests} requests: asked -> first line read"
                       f" {part.wake_ms:.3f} ms, the queued events {part.events_ms:.3f} ms,"
                       f" the kit's work (request read -> answer written) {part.work_ms:.3f}"
                       f" ms, answer written -> held by the referee {part.back_ms:.3f} ms;"
                       f" the exchange {part.exchange_ms:.3f} ms")
        if awake.requests or woken.requests:
            typer.echo(f"  exchanges whose clock readings were out of order: {disorder}")
        load_after = os.getloadavg()[0]
    typer.echo(f"load average {load_before:.2f} before, {load_after:.2f} after")
    typer.echo(f"one-hand {ruleset.players}-player game: subprocess bots {b.subprocess_game_s * 1000:.0f} ms,"
               f" in-process {b.inprocess_game_s * 1000:.0f} ms, ratio {b.game_ratio:.1f}x")
