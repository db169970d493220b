"""``canasta bot check --games N``: the bot in real games against built-in players, on each
ruleset asked for, in every seat in turn; the first game where it failed is reported with the
end of its stderr and a command that plays that game again exactly.

First the stacked deals of each preset that has them (``rare_deals``: on classic the scripted
checks' deals, on two-player and cut-throat the draw of two and the partnerships), each played
on to the end of the hand (its failure is shown with a ``bot ask`` command for the decision).
Then dealt games, short (one hand each: ``max_hands=1``) so that N games reach many first
decisions of a hand (pile offers, refusals, red threes, the two-player draw of two, the
questions to a partner where there are partners); seeds are fixed (``seed`` + game number),
so a rerun plays the same games.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..core import PRESETS, preset
from ..hosting.match import MatchPlan, run
from ..hosting.referee import GameStart, Referee, TimeControl
from ..protocol.statuses import SeatStatus
from ..seats import Seat, make_seat
from ..seats.box import DEFAULT_POLICY, BoxPolicy
from ..ui.commandline import command_line
from .rare_deals import rare_presets, stacked_deals

OPPONENT = "builtin:greedy"


@dataclass
class GameFailure:
    rules: str
    game: int
    seat: int
    status: str
    reason: str
    stderr: str
    replay: str  # the command to copy: plays the game again, or asks the bot the decision
    asks: bool = False  # replay is a ``bot ask`` of the failing decision


def presets(choice: str) -> list[str]:
    """``all`` or one preset's name."""
    if choice == "all":
        return list(PRESETS)
    preset(choice)  # a RulesError for an unknown name
    return [choice]


def _stacked(command: str, timeout_ms: int, name: str, box: BoxPolicy
             ) -> tuple[int, GameFailure | None]:
    """The preset's stacked deals (``rare_deals``), each played on to the end of the hand
    with the bot in seat 0 and built-in players in the others."""
    played = 0
    for deal in stacked_deals(name):
        rules = deal.rules
        logs = Path(tempfile.mkdtemp(prefix="canasta-check-"))
        seats: list[Seat] = [make_seat(f"bot={command}", 0, 1, logs, 0, box)]
        seats += [make_seat(f"opponent{i}={OPPONENT}", i, 1, None, 0)
                  for i in range(1, rules.players)]
        referee = Referee(seats, rules, TimeControl(decision_ms=timeout_ms, bank_ms=0),
                          record_dir=logs)
        try:
            result = referee.play(1, deal.seed, GameStart(deal.decks, deal.dealer, deal.prefix))
            referee.end_match([result])
        finally:
            referee.close()
        played += 1
        rep = result.seats[0]
        if rep["status"] == SeatStatus.OK:
            shutil.rmtree(logs, ignore_errors=True)
            continue
        record = logs / "game-0001.jsonl"
        step = 1
        for line in record.read_text(encoding="utf-8").splitlines():
            kind = json.loads(line).get("type")
            if kind == "failure":
                break
            step += kind == "move"
        log = logs / "seat0.stderr.log"
        tail = log.read_bytes()[-4096:].decode("utf-8", "replace") if log.exists() else ""
        again = (f"cd {shlex.quote(os.getcwd())} && "
                 + command_line("bot", "ask", command, str(record), "--decision", str(step)))
        return played, GameFailure(f"{name}, stacked: {deal.name}", 1, 0, rep["status"],
                                   next(iter(rep["errors"]), rep["status"]), tail, again,
                                   asks=True)
    return played, None


def play_games(command: str, games: int, rules_choice: str, timeout_ms: int,
               seed: int = 1, box: BoxPolicy = DEFAULT_POLICY) -> tuple[int, GameFailure | None]:
    """Games played, and the first failure (None: the bot never failed): the stacked deals
    first (classic), then ``games`` dealt games per preset.  The failing game's record and
    the bot's stderr log stay in the folder its replay line names."""
    played = 0
    for name in presets(rules_choice):
        if name in rare_presets():
            count, failure = _stacked(command, timeout_ms, name, box)
            played += count
            if failure is not None:
                return played, failure
    for name in presets(rules_choice):
        rules = preset(name).with_options(max_hands=1)
        for g in range(games):
            seat = g % rules.players
            specs = [f"opponent{i}={OPPONENT}" for i in range(rules.players)]
            specs[seat] = f"bot={command}"
            game_seed = seed + g
            logs = Path(tempfile.mkdtemp(prefix="canasta-check-"))
            tc = TimeControl(decision_ms=timeout_ms, bank_ms=0)
            result = run(MatchPlan(tuple(specs), rules, 1, game_seed, logs, tc, spin_us=0,
                                   box=box, as_game=1))
            played += 1
            rep = result.games[0].seats[seat]
            if rep["status"] == SeatStatus.OK:
                shutil.rmtree(logs, ignore_errors=True)
            else:
                log = logs / f"seat{seat}.stderr.log"
                tail = log.read_bytes()[-4096:].decode("utf-8", "replace") if log.exists() \
                    else ""
                args = ["match"]
                for spec in specs:
                    args += ["--seat", spec]
                args += ["--rules", name, "--set", "max_hands=1", "--seed", str(game_seed),
                         "--as-game", "1", "--decision-ms", str(timeout_ms), "--bank-ms", "0",
                         "--record", str(logs / "replay")]
                reason = next(iter(rep["errors"]), rep["status"])
                return played, GameFailure(name, g + 1, seat, rep["status"], reason, tail,
                                           f"cd {shlex.quote(os.getcwd())} && "
                                           + command_line(*args))
    return played, None
