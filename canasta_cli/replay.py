"""Reading game records back: replay through the engine, and verify every event and score."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .core import GameState, Ruleset, apply, new_game, parse_card_sequence, parse_move
from .core.cards import KIND_OF
from .core.events import Event


class RecordError(ValueError):
    """A record that cannot be read; the message names the line."""


@dataclass
class Replay:
    header: dict[str, Any]
    steps: list[tuple[int | None, str | None, list[Event]]]  # (seat, move, events it caused)
    state: GameState
    mismatches: list[str] = field(default_factory=list)
    recorded_result: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return not self.mismatches


def load_record(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None
    lines = []
    for no, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except ValueError as exc:
            raise RecordError(f"{path}:{no}: not JSON ({exc})") from None
        if not isinstance(obj, dict) or "type" not in obj:
            raise RecordError(f"{path}:{no}: each line must be an object with a 'type'")
        lines.append(obj)
    if not lines or lines[0]["type"] != "header":
        raise RecordError(f"{path}: the first line must be the record header")
    return lines


def replay(lines: list[dict[str, Any]]) -> Replay:
    """Re-play the recorded moves through the engine and compare every event and the result."""
    header = lines[0]
    try:
        rules = Ruleset.from_dict(header["rules"])
        decks = [parse_card_sequence(d, rules.decks) for d in header.get("decks", [])]
        state = new_game(rules, seed=int(header["seed"]), decks=decks, dealer=header["dealer"])
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"bad header: {exc}") from None
    recorded = [ln["event"] for ln in lines if ln["type"] == "event"]
    produced: list[Event] = list(state.events())
    steps: list[tuple[int | None, str | None, list[Event]]] = [(None, None, list(produced))]
    result = None
    for ln in lines[1:]:
        if ln["type"] == "result":
            result = ln
        if ln["type"] != "move":
            continue
        before = state.log
        top = KIND_OF[state.pile[-1]] if state.pile else None
        try:
            move = parse_move(ln["move"], top_rank=top)
            state = apply(state, move)
        except (KeyError, ValueError) as exc:
            return Replay(header, steps, state, [f"move {ln.get('move')!r} by seat"
                                                 f" {ln.get('seat')}: {exc}"], result)
        fresh: list[Event] = []
        node = state.log
        while node is not None and node is not before:
            fresh.append(node[1])
            node = node[0]
        fresh.reverse()
        produced.extend(fresh)
        steps.append((ln.get("seat"), ln["move"], fresh))
    rep = Replay(header, steps, state, [], result)
    for i, (want, got) in enumerate(zip(recorded, produced, strict=False)):
        if want != got.full():
            rep.mismatches.append(f"event {i + 1}: recorded {want} but the engine gives"
                                  f" {got.full()}")
            break
    if len(recorded) != len(produced):
        rep.mismatches.append(f"{len(recorded)} events recorded, the engine gives {len(produced)}")
    if result is not None and result.get("forfeit") is None:
        if tuple(result["scores"]) != state.scores:
            rep.mismatches.append(f"recorded scores {result['scores']}, engine {list(state.scores)}")
        if result["winner"] != state.winner:
            rep.mismatches.append(f"recorded winner {result['winner']}, engine {state.winner}")
    return rep
