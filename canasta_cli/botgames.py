"""``canasta bot check --games N``: the bot in real games against built-in players, on each
ruleset asked for, in every seat in turn; the first game where it failed is reported with the
end of its stderr and a command that plays that game again exactly.

First the deals of the scripted checks (stacked decks that reach the rare decisions: a pile
refused, the partner's question, going out, red threes, the stock running out), each played
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
from typing import Any

from .botcheck import STACKED
from .core import (
    CLASSIC,
    PRESETS,
    apply,
    format_move,
    legal_moves,
    new_game,
    parse_deck_text,
    parse_move,
    preset,
)
from .core.cards import KIND_OF
from .core.moves import Discard, Draw, Move
from .match import run_match
from .protocol.statuses import SeatStatus
from .referee import Referee, TimeControl
from .seats import Seat, make_seat

OPPONENT = "builtin:greedy"


@dataclass
class GameFailure:
    rules: str
    game: int
    seat: int
    status: str
    reason: str
    stderr: str
    replay: str


def presets(choice: str) -> list[str]:
    """``all`` or one preset's name."""
    if choice == "all":
        return list(PRESETS)
    preset(choice)  # a RulesError for an unknown name
    return [choice]


def _scripted(deck: str, moves: list[str] | None) -> tuple[list[list[int]], list[dict[str, Any]]]:
    """A check's stacked deck and the moves that lead to its decision, as ``Referee.play``
    takes them (``decks`` and ``prefix``); no moves: played on as the exhausted-stock check
    does (draw, else the first discard) until the stock is gone."""
    rules = CLASSIC.with_options(max_hands=1)
    decks = parse_deck_text(deck, rules, dealer=3, seed=1)
    st = new_game(rules, seed=1, decks=decks, dealer=3)
    prefix = []
    for text in moves if moves is not None else iter(lambda: "", None):
        if moves is None:
            if not (st.stock or st.phase.value != "draw"):
                break
            legal = legal_moves(st)
            move: Move = Draw() if Draw() in legal else next(
                m for m in legal if isinstance(m, Discard))
        else:
            top = KIND_OF[st.pile[-1]] if st.pile else None
            move = parse_move(text, top_rank=top)
        prefix.append({"type": "move", "seat": st.actor, "move": format_move(move), "by": "bot"})
        st = apply(st, move)
    return decks, prefix


def _stacked(command: str, timeout_ms: int) -> tuple[int, GameFailure | None]:
    """The bot check's stacked deals (botcheck.STACKED), each played on to the end of the hand
    with the bot in seat 0 and built-in players in the others."""
    rules = CLASSIC.with_options(max_hands=1)
    played = 0
    for name, deck, moves in STACKED:
        decks, prefix = _scripted(deck, moves)
        logs = Path(tempfile.mkdtemp(prefix="canasta-check-"))
        seats: list[Seat] = [make_seat(f"bot={command}", 0, 1, logs, 0)]
        seats += [make_seat(f"opponent{i}={OPPONENT}", i, 1, None, 0) for i in range(1, 4)]
        referee = Referee(seats, rules, TimeControl(decision_ms=timeout_ms, bank_ms=0),
                          record_dir=logs)
        try:
            result = referee.play(1, seed=1, decks=decks, dealer=3, prefix=prefix)
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
        again = (f"cd {shlex.quote(os.getcwd())} && canasta bot ask {shlex.quote(command)}"
                 f" {shlex.quote(str(record))} --decision {step}")
        return played, GameFailure(f"classic, stacked: {name}", 1, 0, rep["status"],
                                   next(iter(rep["errors"]), rep["status"]), tail, again)
    return played, None


def play_games(command: str, games: int, rules_choice: str, timeout_ms: int,
               seed: int = 1) -> tuple[int, GameFailure | None]:
    """Games played, and the first failure (None: the bot never failed): the stacked deals
    first (classic), then ``games`` dealt games per preset.  The failing game's record and
    the bot's stderr log stay in the folder its replay line names."""
    played = 0
    if "classic" in presets(rules_choice):
        played, failure = _stacked(command, timeout_ms)
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
            result = run_match(specs, rules, 1, game_seed, logs, tc, spin_us=0, as_game=1)
            played += 1
            rep = result.games[0].seats[seat]
            if rep["status"] == SeatStatus.OK:
                shutil.rmtree(logs, ignore_errors=True)
            else:
                log = logs / f"seat{seat}.stderr.log"
                tail = log.read_bytes()[-4096:].decode("utf-8", "replace") if log.exists() \
                    else ""
                args = ["canasta", "match"]
                for spec in specs:
                    args += ["--seat", spec]
                args += ["--rules", name, "--set", "max_hands=1", "--seed", str(game_seed),
                         "--as-game", "1", "--decision-ms", str(timeout_ms), "--bank-ms", "0",
                         "--record", str(logs / "replay")]
                reason = next(iter(rep["errors"]), rep["status"])
                return played, GameFailure(name, g + 1, seat, rep["status"], reason, tail,
                                           f"cd {shlex.quote(os.getcwd())} && "
                                           + shlex.join(args))
    return played, None
