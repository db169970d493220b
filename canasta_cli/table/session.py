"""``canasta play``: people at the table with bots, saved as they go, resumable."""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core import Ruleset, parse_card_sequence
from ..core.errors import CanastaError
from ..core.reasons import GOES_ON, GameEnd
from ..hosting.records import RecordError, load_record, sealed_parts
from ..hosting.referee import GameResult, GameStart, Referee, TimeControl
from ..hosting.replay import replay
from ..seats import make_seat
from ..seats.base import Seat
from ..seats.box import DEFAULT_POLICY, BoxPolicy
from ..seats.human import HumanSeat, SharedTable
from ..ui.commandline import command_line
from ..ui.prompt import Terminal
from ..ui.render import Style
from ..util.private_files import read_input, write_private
from ..util.seat_names import is_person, split_name
from .history import record_game, stats_path
from .saves import FinishedGame


def default_seats(players: int, level: str = "hard") -> list[str]:
    """You in seat 0; everyone else (your partner included) a built-in player of ``level``:
    by default 'hard', the strongest that answers within a second."""
    return ["human"] + [f"builtin:{level}"] * (players - 1)


def save_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "canasta" / "games"


def secrets_dir() -> Path:
    """Where the seeds of unfinished saved games wait (owner-only; bots never see it: it is
    hidden from them, see seats/contain.py)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "canasta" / "secrets"


def new_save_path(directory: Path) -> Path:
    """A new save's name: when it was started, and a random tag (never the seed)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return directory / f"game-{stamp}-{secrets.token_hex(3)}.jsonl"


def secret_path(save: Path) -> Path:
    return secrets_dir() / f"{save.stem}-{secrets.token_hex(8)}.json"


def make_table(ascii_only: bool, no_color: bool, four_color: bool = False,
               plain: bool = False) -> SharedTable:
    """The terminal and the card style: colour only on a terminal, without NO_COLOR or
    --no-color; ``plain`` (or pipes) gives lines without any control code, for screen
    readers and scripts."""
    interactive = sys.stdin.isatty() and sys.stdout.isatty() and not plain
    color = interactive and not no_color and "NO_COLOR" not in os.environ
    encoding = (getattr(sys.stdout, "encoding", "") or "").lower()
    ascii_only = ascii_only or "utf" not in encoding
    return SharedTable(Terminal(interactive), Style(color=color, ascii=ascii_only,
                                                    four_color=four_color))


def settings_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "canasta" / "settings.json"


def load_settings() -> dict[str, Any]:
    """The saved preferences (``--four-color`` / ``--two-color``); none if unreadable."""
    try:
        data = json.loads(read_input(settings_path(), 10_000, "a settings file"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_setting(key: str, value: Any) -> None:
    data = load_settings()
    data[key] = value
    write_private(settings_path(), json.dumps(data, indent=2) + "\n")  # never through a link


def build_seats(specs: list[str], seed: int, table: SharedTable, log_dir: Path,
                box: BoxPolicy = DEFAULT_POLICY) -> list[Seat]:
    seats: list[Seat] = []
    for i, spec in enumerate(specs):
        if is_person(spec):
            seats.append(HumanSeat(table, name=spec))
        else:
            seats.append(make_seat(spec, i, seed, log_dir, box=box))
    return seats


def load_secret(path: Path, lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The seed, dealer and decks of a saved game: its reveal line, its secret file, or (a
    save from before saves were sealed) its header."""
    parts = sealed_parts(lines)
    if parts is not None:
        return parts
    name = str(lines[0].get("secret", ""))
    where = secrets_dir() / name
    if not name or "/" in name or not where.is_file():
        raise RecordError(f"{path}: the seed of this unfinished game is kept in {where}, which"
                          " is missing")
    try:
        secret = json.loads(read_input(where, 1 << 20, "a saved game's seed", follow=False)
                            .decode("utf-8"))
    except OSError as exc:
        raise RecordError(f"{where}: cannot read the saved game's seed: {exc.strerror}"
                          ) from None
    except (ValueError, RecursionError) as exc:
        raise RecordError(f"{where}: cannot read the saved game's seed:"
                          f" {str(exc)[:80]}") from None
    if not isinstance(secret, dict):
        raise RecordError(f"{where}: not a saved game's seed")
    return secret


def load_save(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], bool,
                                   dict[str, Any]]:
    """The header, the moves so far, whether the recorded game had already ended, and its
    seed and decks.  A last line torn by a crash is left out; the moves must replay."""
    lines = load_record(path, torn_ok=True)
    header = lines[0]
    moves = [ln for ln in lines if ln["type"] == "move"]
    results = [ln for ln in lines if ln["type"] == "result"]
    finished = bool(results) and results[-1].get("reason") not in GOES_ON
    secret = load_secret(path, lines)
    check = replay(lines, secret)
    bad = [m for m in check.mismatches if "move" in m]
    if bad:
        raise RecordError(f"{path}: {bad[0]}; the save is left as it is")
    return header, moves, finished, secret


@dataclass(frozen=True)
class GameSetup:
    """Everything a game of ``canasta play`` starts from: a new game's, or a save's."""
    specs: list[str]                     # one seat spec per player, seat 0 first
    rules: Ruleset
    seed: int
    dealer: int | None = None            # the first dealer (None: the seed decides)
    decks: list[list[int]] | None = None  # stacked decks, one per hand, from --deck
    prefix: list[dict[str, Any]] | None = None  # a save's moves so far, replayed first
    secret: Path | None = None           # a save's sealed-seed file
    scores: list[int] | None = None      # the cumulative scores the game starts from
    hand_no: int = 1                     # the number of the first hand dealt


def run(setup: GameSetup, record: Path, table: SharedTable, time_control: TimeControl,
        box: BoxPolicy = DEFAULT_POLICY) -> GameResult:
    # Bots' stderr logs sit beside the save, in a folder of their own per game.
    seats = build_seats(setup.specs, setup.seed, table, record.with_suffix(".logs"), box)
    for seat in seats:
        if isinstance(seat, HumanSeat) and setup.prefix:
            seat.replaying = True  # earlier hands' tables were shown before the save
    referee = Referee(seats, setup.rules, time_control)
    try:
        referee.start()
        for i, rep in enumerate(referee.reports):
            if not rep.alive:  # no silent default moves for a bot that never started
                why = rep.errors[0] if rep.errors else rep.status
                raise SeatStartError(f"seat {i} ({setup.specs[i]}) could not start: {why}")
        start = GameStart(setup.decks, setup.dealer, setup.prefix, setup.scores, setup.hand_no)
        return referee.play(1, setup.seed, start, record, setup.secret or secret_path(record))
    finally:
        referee.close()


@dataclass(frozen=True)
class Display:
    """How the table is drawn (``make_table``)."""

    ascii_only: bool = False
    no_color: bool = False
    four_color: bool = False
    plain: bool = False


@dataclass(frozen=True)
class TablePlan:
    """One game of ``canasta play``: its setup (new or from a save), where it is saved, how
    the table is drawn, the box its bot programs run in, whether 'undo' is offered even with
    programs or other people at the table."""

    setup: GameSetup
    record: Path
    display: Display = Display()
    box: BoxPolicy = DEFAULT_POLICY
    undo: bool = False
    resumed: bool = False


def play(plan: TablePlan) -> GameResult:
    """Play the plan's game at this terminal; at its end (or on Ctrl-C) say how to resume or
    replay it, in lines that can be copied whole, and count a finished game in the
    statistics (``canasta stats``)."""
    d = plan.display
    table = make_table(d.ascii_only, d.no_color, d.four_color, d.plain)
    if plan.resumed:
        table.terminal.show(f"Resuming {plan.record} ({len(plan.setup.prefix or [])} moves so"
                            " far).")
    table.undo = plan.undo or undo_by_default(plan.setup.specs)
    result = run(plan.setup, plan.record, table, TimeControl(), plan.box)
    if result.reason == GameEnd.SAVED:
        table.terminal.raw(f"Game saved to {plan.record}")
        table.terminal.raw(f"Resume with: {resume_command(plan.record)}")
    else:
        table.terminal.raw(f"Replay it with: {replay_command(plan.record)}")
        for seat in people(plan.setup.specs):
            table.terminal.raw(f"Review it with: {review_command(plan.record, seat)}")
    _count(plan.record, result.reason)
    return result


def _count(record: Path, reason: str) -> None:
    """A finished game goes into the statistics; a store that cannot be written is said,
    and the game stays recorded."""
    if reason in GOES_ON or not record.exists():
        return
    try:
        record_game(record)
    except (OSError, sqlite3.Error, RecordError) as exc:
        print(f"note: the statistics in {stats_path()} were not updated: {exc}", file=sys.stderr)


class SeatStartError(CanastaError):
    """A bot seat of ``canasta play`` did not start: the game is not begun."""


def resume_command(record: Path | str, *options: str) -> str:
    """The command that resumes ``record`` (a save, ``last`` or a number canasta games
    gives), with ``options`` (``--save-dir DIR``), as it can be typed here."""
    return command_line("play", "--resume", str(record), *options)


def replay_command(record: Path, seat: int | None = None) -> str:
    """The command that replays ``record`` (from ``seat``'s view, step by step), as it can
    be typed here."""
    view = ["--seat", str(seat), "--step"] if seat is not None else []
    return command_line("replay", *view, str(record))


def review_command(record: Path, seat: int) -> str:
    """The command that reviews ``seat``'s decisions in ``record`` (``canasta review``), as
    it can be typed here."""
    return command_line("review", str(record), "--seat", str(seat))


class NotYourSeat(CanastaError):
    """An unfinished game asked for from a seat other than its one person's."""


def own_seat(specs: list[str], seat: int | None, shown: str = "shown") -> int | None:
    """The seat an unfinished save may be ``shown`` from (replayed, reviewed): its one
    person's.  With no seat asked, that one (None where several people share the save: then
    no hand is shown); any other seat is refused, since its hand is still hidden."""
    humans = people(specs)
    if seat is None:
        return humans[0] if len(humans) == 1 else None
    if humans == [seat]:
        return seat
    raise NotYourSeat(f"this game is not over: it is {shown} only from its player's own seat"
                      + (f" (--seat {humans[0]})" if len(humans) == 1 else
                         ", and several people share it: from no seat until it ends"))


def people(specs: list[str]) -> list[int]:
    """The seats of ``specs`` where a person plays."""
    commands = [split_name(s)[1] for s in specs]
    return [i for i, c in enumerate(commands) if is_person(c)]


def resume_setup(path: Path) -> GameSetup:
    """The setup of the unfinished game saved in ``path``, or a RecordError."""
    header, moves, finished, secret = load_save(path)
    if finished:
        raise FinishedGame(path)
    try:
        rules = Ruleset.from_dict(header["rules"])
        decks = [parse_card_sequence(d, rules.decks) for d in secret.get("decks", [])]
        specs = [str(x) for x in header["seats"]]
        if len(specs) != rules.players:
            raise ValueError(f"{len(specs)} seats for {rules.players} players")
        secret_name = header.get("secret")
        start = header.get("start") or {}
        return GameSetup(specs=specs, rules=rules, seed=int(secret["seed"]),
                         scores=start.get("scores"), hand_no=int(start.get("hand_no", 1)),
                         dealer=int(header.get("dealer", secret.get("dealer", 0))),
                         decks=decks, prefix=moves,
                         secret=secrets_dir() / str(secret_name) if secret_name else None)
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise RecordError(f"{path}: bad header: {exc}") from None


def undo_by_default(specs: list[str]) -> bool:
    """'undo' needs no --undo when one person plays with built-in players only: nobody
    else at the table could object to a meld taken back."""
    commands = [split_name(s)[1] for s in specs]
    people = [c for c in commands if is_person(c)]
    return len(people) == 1 and all(c.startswith("builtin:") for c in commands
                                    if c not in people)


def programs(specs: list[str]) -> list[str]:
    """The seats of a save that would start a program (not a person, not a built-in)."""
    commands = [split_name(s)[1] for s in specs]
    return [c for c in commands if not (c == "human" or c.startswith(("human:", "builtin:")))]
