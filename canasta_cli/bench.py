"""Engine benchmark: random legal play, timed.  Lives outside the core because it reads the clock."""

from __future__ import annotations

import os
import random
import statistics
import time
from dataclasses import dataclass

from .core import Ruleset, apply, legal_moves, new_game


@dataclass(frozen=True)
class EngineBench:
    rules: str
    players: int
    hands: int
    decisions: int
    seconds: float
    mean_moves: float
    max_moves: int

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds else 0.0

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0


def bench_engine(rules: Ruleset, hands: int, seed: int = 0) -> EngineBench:
    """Play at least ``hands`` hands of uniformly random legal moves (whole games, new seeds)."""
    rng = random.Random(seed)
    played = decisions = total_moves = max_moves = 0
    game = 0
    start = time.perf_counter()
    while played < hands:
        state = new_game(rules, seed=seed * 100_003 + game)
        game += 1
        while not state.is_over and played + len(state.results) < hands:
            moves = legal_moves(state)
            n = len(moves)
            decisions += 1
            total_moves += n
            if n > max_moves:
                max_moves = n
            state = apply(state, moves[rng.randrange(n)])
        played += len(state.results)
    seconds = time.perf_counter() - start
    return EngineBench(rules.name, rules.players, played, decisions, seconds,
                       total_moves / decisions if decisions else 0.0, max_moves)


ECHO_BOT = ("import sys, json\n"
            "for line in sys.stdin:\n"
            "    if json.loads(line).get('type') == 'act':\n"
            "        sys.stdout.write('{\"type\":\"move\",\"id\":0,\"index\":0}\\n')\n"
            "        sys.stdout.flush()\n")


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

    @property
    def ratio(self) -> float:
        """The median of the per-round ratios (each round: a game, then its echo replay)."""
        if self.round_ratios:
            return float(statistics.median(self.round_ratios))
        return self.referee_median_ms / self.echo_median_ms if self.echo_median_ms else 0.0

    @property
    def ratio4(self) -> float:
        return self.referee_median_ms / self.echo4_median_ms if self.echo4_median_ms else 0.0

    @property
    def game_ratio(self) -> float:
        return self.subprocess_game_s / self.inprocess_game_s if self.inprocess_game_s else 0.0


def _percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0


def bench_protocol(bot: list[str], games: int = 3, seed: int = 0,
                   spin_us: int = 300) -> ProtocolBench:
    """Per-decision round trip through a subprocess bot, referee included, against the floor:
    the very same bytes written in the round trip (the request, after anything still queued
    for that bot; its events are normally sent while the request is built) written to a bare
    echo process that parses every JSON line and answers each request with a fixed line.

    Rounds alternate: one game through the referee, then its requests through the echo, and
    so on, so that machine drift touches both; the ratio is taken per round.  Then whole
    4-player games of subprocess bots against in-process random players."""

    from .core import CLASSIC
    from .referee import Referee
    from .seats import SubprocessSeat, builtin_seat
    from .seats.base import Message, Seat

    batches: list[tuple[int, bytes]] = []

    class Capturing(SubprocessSeat):
        def request(self, msg: Message, timeout: float) -> Message:
            if msg.get("type") == "act":
                from .protocol.messages import encode
                batches.append((int(msg["seat"]), bytes(self._out) + encode(msg)))
            return super().request(msg, timeout)

    rules = CLASSIC.with_options(max_hands=1)
    seats: list[Seat] = [Capturing(bot, name=f"bot{i}", spin_us=spin_us) for i in range(4)]
    ref = Referee(seats, rules)
    ref.start()
    trips: list[float] = []
    floor: list[float] = []
    floor4: list[float] = []
    ratios: list[float] = []
    sub_s = 0.0
    for g in range(games):
        batches.clear()
        before = len(ref.round_trips_ms)
        t0 = time.perf_counter()
        ref.play(g + 1, seed=seed + g)
        sub_s += time.perf_counter() - t0
        mine = ref.round_trips_ms[before:]
        echo = _echo_floor(list(batches), 1)
        trips += mine
        floor += echo
        floor4 += _echo_floor(list(batches), 4)
        if echo and mine:
            ratios.append(statistics.median(mine) / statistics.median(echo))
    ref.close()
    inproc = Referee([builtin_seat("builtin:random", i) for i in range(4)], rules)
    t0 = time.perf_counter()
    for g in range(games):
        inproc.play(g + 1, seed=seed + g)
    in_s = (time.perf_counter() - t0) / games
    return ProtocolBench(len(trips), _percentile(trips, 0.5), _percentile(trips, 0.9),
                         _percentile(floor, 0.5), _percentile(floor, 0.9), sub_s / games, in_s,
                         games, _percentile(floor4, 0.5), tuple(ratios))


def _echo_floor(batches: list[tuple[int, bytes]], processes: int) -> list[float]:
    """Round trips of the captured request batches through bare echo processes: one process
    for all seats, or one per seat (as in a match, where each bot idles between its turns)."""
    import subprocess
    import sys
    echoes = [subprocess.Popen([sys.executable, "-c", ECHO_BOT], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, bufsize=0) for _ in range(processes)]
    times: list[float] = []
    for seat, batch in batches:
        echo = echoes[seat % processes]
        assert echo.stdin and echo.stdout
        t = time.perf_counter()
        echo.stdin.write(batch)
        echo.stdout.readline()
        times.append((time.perf_counter() - t) * 1000)
    for echo in echoes:
        assert echo.stdin
        echo.stdin.close()
        echo.wait()
    return times


@dataclass(frozen=True)
class TournamentRun:
    concurrency: int
    seconds: float
    cpu: float        # CPU seconds used by this process and its children
    load: float       # 1-minute load average at the end of the run

    @property
    def cores(self) -> float:
        """Cores kept busy on average: a game that already keeps u cores busy at concurrency
        1 cannot run more than 2/u times faster on two cores."""
        return self.cpu / self.seconds if self.seconds else 0.0


@dataclass(frozen=True)
class TournamentBench:
    games: int
    runs: list[TournamentRun]  # in the order they ran: 1, 2, 1, 2...

    def rate(self, run: TournamentRun) -> float:
        return self.games / run.seconds if run.seconds else 0.0

    def speedups(self) -> list[float]:
        """Per round, games/s at concurrency 2 over games/s at 1 (runs taken in pairs)."""
        out = []
        for a, b in zip(self.runs[::2], self.runs[1::2], strict=True):
            out.append(self.rate(b) / self.rate(a) if self.rate(a) else 0.0)
        return out


def _cpu_seconds() -> float:
    import resource
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def bench_tournament(bot: list[str], deals: int = 20, seed: int = 0, hands: int = 1,
                     rounds: int = 3, reuse_bots: bool = False) -> TournamentBench:
    """Games per second of a two-bot tournament (``hands``-hand games) at concurrency 1 and
    2, interleaved (1, 2, 1, 2...) so that machine drift touches both alike, each run from
    scratch, with the CPU time it took and the load average."""
    import shlex
    import tempfile
    from pathlib import Path

    from .core import CLASSIC
    from .tournament.runner import Executor, InlineExecutor, LocalExecutor, run_tournament

    command = " ".join(shlex.quote(a) for a in bot)
    bots = {"a": command, "b": command}
    rules = CLASSIC.with_options(max_hands=hands)
    runs: list[TournamentRun] = []
    games = 0
    for _ in range(rounds):
        for k in (1, 2):
            with tempfile.TemporaryDirectory() as tmp:
                executor: Executor = LocalExecutor(k) if k > 1 else InlineExecutor()
                c0 = _cpu_seconds()
                t0 = time.perf_counter()
                try:
                    state = run_tournament(bots, "round-robin", deals, rules, seed, Path(tmp),
                                           executor, k, reuse_bots=reuse_bots)
                finally:
                    executor.close()
                runs.append(TournamentRun(k, time.perf_counter() - t0, _cpu_seconds() - c0,
                                          os.getloadavg()[0]))
                games = len(state.rows)
    return TournamentBench(games, runs)
