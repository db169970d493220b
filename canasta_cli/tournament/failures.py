"""Games where a seat failed, kept so that the failure can be debugged.

For each game where a seat ended with a status (CRASHED, TIMEOUT, PROTOCOL_ERROR,
ILLEGAL_MOVE), the tournament writes ``OUT/failures/game-NNNN.json`` (each seat's status,
reason, first errors and the last part of its stderr, and a command that replays exactly that
game) and keeps the game's record in ``OUT/records/`` even without ``--records``.  Like the
records, a failure file is written only when the deal's rows land in ``games.jsonl``: it holds
the deal's seed.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core import Ruleset, preset
from ..protocol.statuses import SeatStatus
from ..util.private_files import write_private
from ..util.seat_names import split_name

FAILURES = "failures"
STDERR_TAIL = 4096  # bytes of each failing bot's stderr kept with its failure
MAX_REASON = 300    # characters of a reason kept in a games.jsonl row


def failure_path(out: Path, index: int) -> Path:
    return out / FAILURES / f"game-{index + 1:04d}.json"


def seat_reasons(seats: list[dict[str, Any]]) -> tuple[list[str], list[str | None]]:
    """Each seat's status and, for a seat that failed, why (its first error, shortened)."""
    statuses = [str(s["status"]) for s in seats]
    reasons: list[str | None] = []
    for s in seats:
        errors = [str(e) for e in s.get("errors", [])]
        if s["status"] == SeatStatus.OK or not errors:
            reasons.append(None)
            continue
        first = next((e for e in errors if e.startswith(f"{s['status']}: ")), errors[0])
        status, sep, why = first.partition(": ")
        reasons.append((why if sep and status.isupper() else first)[:MAX_REASON])
    return statuses, reasons


def failed(row: dict[str, Any]) -> bool:
    """Did a seat of this games.jsonl row end with a status?"""
    return any(s != SeatStatus.OK for s in row.get("status") or [])


def rules_options(rules: Ruleset) -> list[str]:
    """``--rules NAME`` and the ``--set`` options that make ``rules`` on a command line."""
    try:
        base = preset(rules.name)
    except Exception:  # noqa: BLE001 - a custom name: every option is given
        base = preset("classic")
    args = ["--rules", base.name]
    mine, theirs = rules.to_dict(), base.to_dict()
    for key, value in mine.items():
        if key != "name" and theirs.get(key) != value:
            text = str(value).lower() if isinstance(value, bool) else str(value)
            args += ["--set", f"{key}={text}"]
    return args


@dataclass(frozen=True)
class Replaying:
    """What a replay line of a tournament's (or a ladder's) game needs besides the game's row:
    the bots, rules and clock it ran with, the box's options as given, the folder it ran in
    (bot command lines are read from there) and how canasta is named
    (``ui.commandline.program_command``: as it can be typed)."""

    bots: dict[str, str]
    rules: Ruleset
    time: dict[str, int]
    box_args: tuple[str, ...] = ()
    cwd: str | None = None
    program: str = "canasta"


def replay_command(how: Replaying, row: dict[str, Any], record_dir: str | None = None) -> str:
    """A ``canasta match`` command line that plays this game again exactly: the same deal
    (its seed), seating, rules, time control, game number and built-in players' seeds."""
    bots, time = how.bots, how.time
    args = ["match"]
    for name in row["seating"]:
        # A name a seat spec cannot carry (split_name) is left out: the bots then hear the
        # command line as that seat's name, the one difference from the game.
        named = split_name(f"{name}={bots[name]}")[0] == name
        args += ["--seat", f"{name}={bots[name]}" if named else bots[name]]
    args += rules_options(how.rules)
    args += ["--seed", str(row["seed"]), "--as-game", str(int(row["index"]) + 1),
             "--decision-ms", str(time.get("decision_ms", 1000)),
             "--bank-ms", str(time.get("bank_ms", 10000))]
    args += how.box_args
    args += ["--record", record_dir or f"replay-game-{int(row['index']) + 1:04d}"]
    # Bot command lines are read from the folder the tournament ran in.
    return f"cd {shlex.quote(how.cwd or os.getcwd())} && {how.program} {shlex.join(args)}"


def write_failure(out: Path, row: dict[str, Any], seats: list[dict[str, Any]],
                  stderr: dict[int, str], command: str) -> Path:
    """``OUT/failures/game-NNNN.json`` for this game."""
    detail = []
    for i, s in enumerate(seats):
        detail.append({"seat": i, "name": s["name"], "status": s["status"],
                       "reason": row["why"][i], "errors": s.get("errors", [])[:5],
                       "failures": s.get("failures", {}),
                       "stderr_tail": stderr.get(i)})
    doc = {"game": int(row["index"]) + 1, "key": row["key"], "seed": row["seed"],
           "seating": row["seating"], "seats": detail, "replay": command,
           "record": f"records/game-{int(row['index']) + 1:04d}.jsonl"}
    path = failure_path(out, int(row["index"]))
    write_private(path, json.dumps(doc, indent=2) + "\n")
    return path
