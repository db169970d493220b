"""Playing the ladder's deals: each reserved deal in every seating (as a tournament plays a
duplicate deal, ``tournament.runner.play_task``), on a process pool of ``concurrency``
workers; each finished deal is written at once, so an interrupted run loses only the deals
in progress (played again by the next run)."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from ..core import Ruleset
from ..tournament.runner import Config, outcome, play_task
from ..tournament.schedule import Task, seatings
from .failures import KEEP, from_row
from .store import Deal, Ladder, Master


def play_deal(deal: Deal, config: Config, box_args: tuple[str, ...] = ()
              ) -> tuple[float, float, int, list[dict[str, Any]]]:
    """(a's score on the deal: 1, 0.5 or 0; a's summed score difference; games where a seat
    failed; those games' failures, as ``failures.from_row`` keeps them)."""
    rules = config.ruleset()
    diff = 0.0
    failed = 0
    kept: list[dict[str, Any]] = []
    for i, seating in enumerate(seatings(rules, deal.a, deal.b)):
        task = Task(i, (deal.a, deal.b), deal.k, seating, deal.seed)
        row = play_task(task, config)
        diff += outcome(row, rules).diff
        failed += "status" in row
        kept += from_row(row, config.bots, rules, config.time, os.getcwd(), list(box_args))
    return (1.0 if diff > 0 else 0.0 if diff < 0 else 0.5), diff, failed, kept


@dataclass(frozen=True)
class LadderPlan:
    """One ``ladder run``: ``deals`` deals between the pairs that need them most, ``concurrency``
    at once, each game as ``config`` says (the bots, the rules kept in the file, the clock and
    the box); ``box_args`` are the box's options as given, for the replay lines of failed
    games, of which ``keep`` per bot are kept."""

    rules: Ruleset
    master: Master
    deals: int
    config: Config
    concurrency: int = 1
    box_args: tuple[str, ...] = ()
    keep: int = KEEP


def run_ladder(ladder: Ladder, plan: LadderPlan,
               progress: Callable[[int, Deal, float], None] | None = None) -> tuple[int, int]:
    """Play the plan's deals; returns how many were finished and in how many games a seat
    failed."""
    deals, concurrency, config, box_args = plan.deals, plan.concurrency, plan.config, plan.box_args
    master, keep = plan.master, plan.keep
    run = ladder.start_run()
    done = 0
    failed_games = 0
    reserved = 0
    pool = ProcessPoolExecutor(max_workers=concurrency) if concurrency > 1 else None
    flight: dict[Future[Any], Deal] = {}
    try:
        while done < deals:
            while reserved < deals and len(flight) < concurrency:
                deal = ladder.reserve(run, master)
                if deal is None:
                    break
                reserved += 1
                fut: Future[Any]
                if pool is None:
                    fut = Future()
                    fut.set_result(play_deal(deal, config, box_args))
                else:
                    fut = pool.submit(play_deal, deal, config, box_args)
                flight[fut] = deal
            if not flight:
                break
            finished, _ = wait(list(flight), return_when=FIRST_COMPLETED)
            for fut in finished:
                deal = flight.pop(fut)
                score, diff, failed, kept = fut.result()
                ladder.finish(deal, score, diff, failed, kept, keep)
                done += 1
                failed_games += failed
                if progress is not None:
                    progress(done, deal, score)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        ladder.release(run)
    return done, failed_games
