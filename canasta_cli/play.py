"""``canasta play``: people at the table with bots, saved as they go, resumable."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from .core import Ruleset, parse_card_sequence
from .referee import GameResult, Referee, TimeControl
from .replay import RecordError, load_record
from .seats import make_seat
from .seats.base import Seat
from .seats.human import HumanSeat, SharedTable
from .ui.prompt import Terminal
from .ui.render import Style


def default_seats(players: int) -> list[str]:
    """You in seat 0; everyone else (your partner included) the built-in greedy player."""
    return ["human"] + ["builtin:greedy"] * (players - 1)


def save_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "canasta" / "games"


def new_save_path(directory: Path, seed: int) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return directory / f"game-{stamp}-seed{seed}.jsonl"


def make_table(ascii_only: bool, no_color: bool) -> SharedTable:
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    color = interactive and not no_color and "NO_COLOR" not in os.environ
    encoding = (getattr(sys.stdout, "encoding", "") or "").lower()
    ascii_only = ascii_only or "utf" not in encoding
    return SharedTable(Terminal(interactive), Style(color=color, ascii=ascii_only))


def build_seats(specs: list[str], seed: int, table: SharedTable, log_dir: Path) -> list[Seat]:
    seats: list[Seat] = []
    for i, spec in enumerate(specs):
        if spec == "human" or spec.startswith("human:"):
            seats.append(HumanSeat(table, name=spec))
        else:
            seats.append(make_seat(spec, i, seed, log_dir))
    return seats


def load_save(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], bool]:
    """The header, the moves so far, and whether the recorded game had already ended."""
    lines = load_record(path)
    header = lines[0]
    moves = [ln for ln in lines if ln["type"] == "move"]
    results = [ln for ln in lines if ln["type"] == "result"]
    finished = bool(results) and results[-1].get("reason") not in ("saved", "unfinished")
    return header, moves, finished


def run(specs: list[str], rules: Ruleset, seed: int, record: Path, table: SharedTable,
        time_control: TimeControl, dealer: int | None = None, decks: list[list[int]] | None = None,
        prefix: list[dict[str, Any]] | None = None) -> GameResult:
    # Bots' stderr logs sit beside the save, in a folder of their own per game.
    seats = build_seats(specs, seed, table, record.with_suffix(".logs"))
    referee = Referee(seats, rules, time_control)
    try:
        return referee.play(1, seed=seed, decks=decks, dealer=dealer, prefix=prefix,
                            record_file=record)
    finally:
        referee.close()


def resume_args(path: Path) -> dict[str, Any]:
    header, moves, finished = load_save(path)
    if finished:
        raise RecordError(f"{path}: that game is already over; replay it with canasta replay")
    try:
        rules = Ruleset.from_dict(header["rules"])
        decks = [parse_card_sequence(d, rules.decks) for d in header.get("decks", [])]
        return {"specs": list(header["seats"]), "rules": rules, "seed": int(header["seed"]),
                "dealer": int(header["dealer"]), "decks": decks, "prefix": moves}
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"{path}: bad header: {exc}") from None
