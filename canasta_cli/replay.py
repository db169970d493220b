"""Reading game records back: replay through the engine, and verify every event and score."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .core import GameState, Ruleset, apply, new_game, parse_card_sequence, parse_move
from .core.cards import KIND_OF
from .core.events import Event
from .files import read_input


class RecordError(ValueError):
    """A record that cannot be read; the message names the line."""


@dataclass
class Replay:
    header: dict[str, Any]
    steps: list[tuple[int | None, str | None, list[Event]]]  # (seat, move, events it caused)
    state: GameState
    mismatches: list[str] = field(default_factory=list)
    recorded_result: dict[str, Any] | None = None
    states: list[GameState] = field(default_factory=list)  # after each step, for --step

    @property
    def ok(self) -> bool:
        return not self.mismatches


MAX_RECORD_LINE = 1 << 22  # bytes: a record's lines are far shorter; longer is damage
MAX_RECORD = 1 << 26  # bytes (64 MiB): the longest game (200 hands) writes a few MiB


class RecordLines(list[dict[str, Any]]):
    """A record's lines, with the file line number of each (for messages)."""

    numbers: list[int]


def load_record(path: Path, torn_ok: bool = False) -> RecordLines:
    """The lines of a game record.  Damage is a RecordError naming the file and line; with
    ``torn_ok`` a last line cut short by a crash (no newline, not JSON) is left out."""
    try:
        data = read_input(path, MAX_RECORD, "a game record")
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None
    raw_lines = data.split(b"\n")
    torn = raw_lines.pop() if raw_lines else b""  # after the last newline: empty unless torn
    lines = RecordLines()
    lines.numbers = []
    for no, raw in enumerate(raw_lines + ([torn] if torn.strip() else []), start=1):
        if not raw.strip():
            continue
        last = no == len(raw_lines) + 1
        try:
            obj = _record_line(raw)
        except ValueError as exc:
            if last and torn_ok:
                break  # the line being written when the game stopped
            raise RecordError(f"{path}:{no}: {exc}") from None
        lines.append(obj)
        lines.numbers.append(no)
    if not lines or lines[0]["type"] != "header":
        raise RecordError(f"{path}:1: the first line must be the record header")
    return lines


def _finite(text: str) -> float:
    """A number of a record: 1e400 (infinity) and NaN are damage, not numbers."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]} is out of range")
    return value


def _record_line(raw: bytes) -> dict[str, Any]:
    if len(raw) > MAX_RECORD_LINE:
        raise ValueError(f"a line of {len(raw)} bytes is not a record line")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("not text (the file is not a game record)") from None
    try:
        obj = json.loads(text, parse_float=_finite, parse_constant=_finite)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"not JSON ({str(exc)[:80]})") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise ValueError("each line must be an object with a string 'type'")
    return obj


def sealed_parts(lines: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The seed, dealer and stacked decks of a record: in its header (records written before
    records were sealed) or in the ``reveal`` line written when the game was over."""
    header = lines[0]
    if not header.get("sealed"):
        return header
    return next((ln for ln in lines if ln["type"] == "reveal"), None)


def replay(lines: list[dict[str, Any]], secret: dict[str, Any] | None = None) -> Replay:
    """Re-play the recorded moves through the engine and compare every event and the result.
    A sealed record whose game is not over needs its ``secret`` (the seed and decks)."""
    header = lines[0]
    parts = secret or sealed_parts(lines)
    if parts is None:
        raise RecordError("the record is sealed and its game is not over: no 'reveal' line"
                          " holds the seed yet")
    try:
        rules = Ruleset.from_dict(header["rules"])
        decks = [parse_card_sequence(d, rules.decks) for d in parts.get("decks", [])]
        start = header.get("start") or {}
        state = new_game(rules, seed=int(parts["seed"]), decks=decks,
                         dealer=header.get("dealer", parts.get("dealer")),
                         scores=start.get("scores"), hand_no=start.get("hand_no", 1))
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"bad header: {exc}") from None
    sealed = bool(header.get("sealed"))
    numbers = getattr(lines, "numbers", None) or list(range(1, len(lines) + 1))
    recorded = [(ln.get("event"), no) for ln, no in zip(lines, numbers, strict=False)
                if ln["type"] == "event"]
    produced: list[Event] = list(state.events())
    steps: list[tuple[int | None, str | None, list[Event]]] = [(None, None, list(produced))]
    states = [state]
    result = None
    for ln, no in zip(lines[1:], numbers[1:], strict=False):
        if ln["type"] == "result":
            result = ln
        if ln["type"] != "move":
            continue
        before = state.log
        top = KIND_OF[state.pile[-1]] if state.pile else None
        try:
            move = parse_move(ln["move"], top_rank=top)
            state = apply(state, move)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            return Replay(header, steps, state, [f"line {no}: move {str(ln.get('move'))[:60]!r}"
                                                 f" by seat {ln.get('seat')}: {exc}"], result,
                          states)
        fresh: list[Event] = []
        node = state.log
        while node is not None and node is not before:
            fresh.append(node[1])
            node = node[0]
        fresh.reverse()
        produced.extend(fresh)
        steps.append((ln.get("seat"), str(ln["move"]), fresh))
        states.append(state)
    rep = Replay(header, steps, state, [], result, states)
    for i, ((want, no), got) in enumerate(zip(recorded, produced, strict=False)):
        shown = got.view(-1) if sealed else got.full()  # a sealed record holds public views
        if want != shown:
            rep.mismatches.append(f"line {no}: event {i + 1}: recorded {str(want)[:200]} but the"
                                  f" engine gives {shown}")
            break
    if len(recorded) != len(produced):
        rep.mismatches.append(f"{len(recorded)} events recorded, the engine gives {len(produced)}")
    if result is not None and result.get("forfeit") is None:
        if result.get("scores") != list(state.scores):
            rep.mismatches.append(f"recorded scores {str(result.get('scores'))[:80]}, engine"
                                  f" {list(state.scores)}")
        if result.get("winner") != state.winner:
            rep.mismatches.append(f"recorded winner {str(result.get('winner'))[:20]}, engine"
                                  f" {state.winner}")
    return rep


def verify(lines: list[dict[str, Any]], secret: dict[str, Any] | None = None) -> Replay:
    """``canasta replay --verify``: the whole record must be there and agree with the engine."""
    from .protocol.messages import PROTOCOL
    header = lines[0]
    if header.get("protocol") != PROTOCOL:
        raise RecordError(f"line 1: protocol {str(header.get('protocol'))[:40]!r}, expected"
                          f" {PROTOCOL!r}")
    rep = replay(lines, secret)
    if rep.recorded_result is None:
        rep.mismatches.append("the record ends before its result line: the game was cut short"
                              " or the file is incomplete")
    return rep
