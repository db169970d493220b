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
from dataclasses import dataclass, field
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
from ..seats.base import Message
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


@dataclass
class _Capture:
    """What the timed bot's seats note of each request of a game (cleared each round)."""

    batches: list[tuple[int, bytes]] = field(default_factory=list)
    # per request: how long that bot had been idle (s)
    idles: list[float] = field(default_factory=list)
    builds: list[float] = field(default_factory=list)
    exchanges: list[float] = field(default_factory=list)
    answered: dict[int, float] = field(default_factory=dict)
    # per request: the same seat as the request before
    again: list[bool] = field(default_factory=list)
    last_seat: int = -1

    def clear(self) -> None:
        self.batches.clear()
        self.idles.clear()
        self.answered.clear()
        self.builds.clear()
        self.exchanges.clear()
        self.again.clear()
        self.last_seat = -1


class _Capturing(SubprocessSeat):
    """A seat of the bot timed: each request's bytes (the very ones written) and the times
    of its parts go to ``capture``."""

    capture: _Capture

    def act(self, request: ActRequest, timeout: float) -> Message:
        c = self.capture
        t0 = time.perf_counter()
        c.idles.append(t0 - c.answered.get(request.seat, t0))
        c.again.append(request.seat == c.last_seat)
        c.last_seat = request.seat
        wire = encode(request)  # made here, kept in the request: the seat reuses it
        t1 = time.perf_counter()
        c.batches.append((request.seat, bytes(self._out) + wire))
        t2 = time.perf_counter()
        try:
            return super().act(request, timeout)
        finally:
            c.answered[request.seat] = time.perf_counter()
            c.builds.append((t1 - t0) * 1000)
            c.exchanges.append((time.perf_counter() - t2) * 1000)


@dataclass
class _Rounds:
    """The rounds of ``bench_protocol`` and what they gather: each a game through ``ref``
    (its seats noting into ``capture``), its requests through the echo, then the deal
    through ``bare`` (the bare bot in every seat)."""

    ref: Referee
    bare: Referee
    capture: _Capture
    players: int
    spin_us: int
    trips: list[float] = field(default_factory=list)
    floor: list[float] = field(default_factory=list)
    floor4: list[float] = field(default_factory=list)
    idle_floor: list[float] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)
    ratios4: list[float] = field(default_factory=list)
    sub_s: float = 0.0
    builds: list[float] = field(default_factory=list)
    exchanges: list[float] = field(default_factory=list)
    rest: list[float] = field(default_factory=list)
    split: dict[bool, tuple[list[float], list[float]]] = field(
        default_factory=lambda: {True: ([], []), False: ([], [])})
    bare_trips: list[float] = field(default_factory=list)
    bare_ratios: list[float] = field(default_factory=list)

    def play(self, g: int, seed: int) -> None:
        """Round ``g``: the game, its requests through the echo, the deal of the bare bots."""
        c, ref, n, spin_us = self.capture, self.ref, self.players, self.spin_us
        c.clear()
        before = len(ref.round_trips_ms)
        t0 = time.perf_counter()
        ref.play(g + 1, seed=seed + g)
        self.sub_s += time.perf_counter() - t0
        mine = ref.round_trips_ms[before:]
        if len(mine) == len(c.builds):  # every decision answered: the parts pair up
            self.rest += [t - b - x for t, b, x in zip(mine, c.builds, c.exchanges, strict=True)]
            for same, t, x in zip(c.again, mine, c.exchanges, strict=True):
                self.split[same][0].append(t)
                self.split[same][1].append(x)
        self.builds += c.builds
        self.exchanges += c.exchanges
        echo = _echo_floor(list(c.batches), 1, spin_us)
        self.trips += mine
        self.floor += echo
        echo4 = _echo_floor(list(c.batches), n, spin_us)
        self.floor4 += echo4
        self.idle_floor += _echo_floor(list(c.batches), n, spin_us, list(c.idles))
        if echo and mine:
            self.ratios.append(statistics.median(mine) / statistics.median(echo))
            self.ratios4.append(statistics.median(mine) / statistics.median(echo4))
        before = len(self.bare.round_trips_ms)
        self.bare.play(g + 1, seed=seed + g)
        plain = self.bare.round_trips_ms[before:]
        self.bare_trips += plain
        if echo and plain:
            self.bare_ratios.append(statistics.median(plain) / statistics.median(echo))

    def bench(self, games: int, in_s: float, seat_errors: tuple[str, ...],
              bare_errors: tuple[str, ...]) -> ProtocolBench:
        trips, floor, split = self.trips, self.floor, self.split
        return ProtocolBench(len(trips), _percentile(trips, 0.5), _percentile(trips, 0.9),
                             _percentile(floor, 0.5), _percentile(floor, 0.9),
                             self.sub_s / games, in_s, games, _percentile(self.floor4, 0.5),
                             tuple(self.ratios), tuple(self.ratios4),
                             _percentile(self.builds, 0.5), _percentile(self.exchanges, 0.5),
                             _percentile(self.rest, 0.5), _percentile(self.idle_floor, 0.5),
                             tuple(split[True][0]), tuple(split[True][1]),
                             tuple(split[False][0]), tuple(split[False][1]), seat_errors,
                             _percentile(self.bare_trips, 0.5), tuple(self.bare_ratios),
                             bare_errors)


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
    capture = _Capture()
    rules = rules.with_options(max_hands=1)
    n = rules.players
    seats = [_Capturing(bot, name=f"bot{i}", spin_us=spin_us) for i in range(n)]
    for seat in seats:
        seat.capture = capture
    ref = Referee(list(seats), rules)
    ref.start()
    bare = Referee([SubprocessSeat([sys.executable, "-c", BARE_BOT], name=f"bare{i}",
                                   spin_us=spin_us) for i in range(n)], rules)
    bare.start()
    rounds = _Rounds(ref, bare, capture, n, spin_us)
    for g in range(games):
        rounds.play(g, seed)
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
    return rounds.bench(games, in_s, seat_errors, bare_errors)


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
    _print_round_trips(b)
    bot_file = python_bot_file(command) if bot else None
    if inside and bot and bot_file is None:
        typer.echo(f"inside the bot: not timed: --inside times a Python bot file built on"
                   f" canasta_kit.run (--bot 'python3 BOT.py'), not {bot!r}")
    elif inside:
        _print_inside(inside, seed, spin_us, ruleset, bot_file)
        load_after = os.getloadavg()[0]
    typer.echo(f"load average {load_before:.2f} before, {load_after:.2f} after")
    typer.echo(f"one-hand {ruleset.players}-player game: subprocess bots {b.subprocess_game_s * 1000:.0f} ms,"
               f" in-process {b.inprocess_game_s * 1000:.0f} ms, ratio {b.game_ratio:.1f}x")


def _print_round_trips(b: ProtocolBench) -> None:
    """The figures of ``bench_protocol``: the round trips against the echo floors and the
    bare bot, and where the round trip goes."""
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


def _print_inside(games: int, seed: int, spin_us: int, rules: Ruleset,
                 bot_file: Path | None) -> None:
    """The exchange split by ``games`` games of the bot timing itself (``bench_inside``)."""
    awake, woken, disorder = bench_inside(games, seed, spin_us, rules, bot_file)
    who = bot_file.name if bot_file else "the example bot"
    typer.echo(f"inside the bot ({games} more games of {who} timing itself by the"
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
