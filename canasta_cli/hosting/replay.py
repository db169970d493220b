"""Game records played back: replay through the engine, and verify every event and score.

The record format itself (writing and reading its lines) is ``records.py``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core import GameState, Ruleset, apply, new_game, parse_card_sequence, parse_move
from ..core.cards import KIND_OF
from ..core.events import Event
from .records import RecordError, RecordLines, load_record, sealed_parts


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
    from ..protocol.messages import PROTOCOL
    header = lines[0]
    if header.get("protocol") != PROTOCOL:
        raise RecordError(f"line 1: protocol {str(header.get('protocol'))[:40]!r}, expected"
                          f" {PROTOCOL!r}")
    rep = replay(lines, secret)
    if rep.recorded_result is None:
        rep.mismatches.append("the record ends before its result line: the game was cut short"
                              " or the file is incomplete")
    return rep


__all__ = ["RecordError", "RecordLines", "Replay", "load_record", "replay", "sealed_parts", "verify"]
