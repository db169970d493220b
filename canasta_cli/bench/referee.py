"""``canasta bench referee``: what the referee costs over the bare engine, in-process.

Four built-in random players play through the referee (events, requests, replies, time
checks; no record), and the bare engine plays exactly the same moves (``legal_moves`` then
``apply`` at each decision).  Rounds alternate A B A B so that machine drift touches both.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from ..cli.options import RulesOpt, SetOpt, load_rules
from ..core import Ruleset, apply, legal_moves, new_game, parse_move
from ..core.cards import KIND_OF
from ..hosting.referee import Referee
from ..seats import builtin_seat
from .engine import peak_memory_mb


@dataclass(frozen=True)
class RefereeRound:
    referee_s: float
    engine_s: float

    @property
    def ratio(self) -> float:
        return self.referee_s / self.engine_s if self.engine_s else 0.0


def _referee_games(rules: Ruleset, seeds: list[int], record_dir: Path | None) -> float:
    ref = Referee([builtin_seat("builtin:random", i) for i in range(rules.players)], rules,
                  record_dir=record_dir)
    ref.start()
    t0 = time.perf_counter()
    for g, seed in enumerate(seeds):
        ref.play(g + 1, seed=seed)
    took = time.perf_counter() - t0
    ref.close()
    return took


def _recorded_moves(rules: Ruleset, seeds: list[int]) -> list[list[str]]:
    with tempfile.TemporaryDirectory() as tmp:
        _referee_games(rules, seeds, Path(tmp))
        out = []
        for g in range(len(seeds)):
            with (Path(tmp) / f"game-{g + 1:04d}.jsonl").open() as lines:  # a line at a time
                # Interned: a long game repeats a few hundred move texts many times over.
                out.append([sys.intern(json.loads(x)["move"]) for x in lines if '"type":"move"' in x])
        return out


def _engine_games(rules: Ruleset, seeds: list[int], games: list[list[str]]) -> float:
    parsed = []
    for seed, texts in zip(seeds, games, strict=True):
        st = new_game(rules, seed=seed, hand_log=True)  # one hand held, as the referee does
        moves = []
        for text in texts:  # parse (not timed): the engine plays moves, not texts
            move = parse_move(text, top_rank=KIND_OF[st.pile[-1]] if st.pile else None)
            move = next(m for m in legal_moves(st) if m == move)
            moves.append(move)
            st = apply(st, move)
        parsed.append(moves)
    t0 = time.perf_counter()
    for seed, moves in zip(seeds, parsed, strict=True):
        st = new_game(rules, seed=seed, hand_log=True)
        for move in moves:
            legal_moves(st)
            st = apply(st, move)
    return time.perf_counter() - t0


def bench_referee(rules: Ruleset, games: int, rounds: int, seed: int = 0,
                  echo: Callable[[str], object] = print) -> list[RefereeRound]:
    seeds = [seed + g for g in range(games)]
    moves = _recorded_moves(rules, seeds)
    out = []
    for r in range(rounds):
        a = _referee_games(rules, seeds, None)
        b = _engine_games(rules, seeds, moves)
        rnd = RefereeRound(a, b)
        out.append(rnd)
        echo(f"round {r + 1}: referee {a:.3f} s, bare engine {b:.3f} s, ratio {rnd.ratio:.2f},"
             f" load {os.getloadavg()[0]:.2f}")
    ratios = sorted(x.ratio for x in out)
    echo(f"referee / bare engine, {games} games of {rules.name} x {rounds} rounds: median"
         f" {statistics.median(ratios):.2f} (min {ratios[0]:.2f}, max {ratios[-1]:.2f});"
         f" decisions {sum(len(m) for m in moves)}")
    return out


def register(bench_app: typer.Typer) -> None:
    bench_app.command("referee")(bench_referee_cmd)


def bench_referee_cmd(
    rules: RulesOpt = "classic",
    set_: SetOpt = None,
    games: Annotated[int, typer.Option(help="Games per round.", min=1)] = 20,
    rounds: Annotated[int, typer.Option(help="Rounds (referee, engine, referee...).", min=1)]
    = 7,
    seed: int = 0,
) -> None:
    """In-process games of four built-in random players through the referee, against the
    bare engine playing the very same moves; interleaved rounds, the median ratio and spread."""
    r = load_rules(rules, set_ or ["max_hands=5"])
    typer.echo(f"load average at start: {os.getloadavg()[0]:.2f}")
    bench_referee(r, games, rounds, seed, typer.echo)
    typer.echo(f"peak memory {peak_memory_mb():.1f} MB; load average {os.getloadavg()[0]:.2f}")
