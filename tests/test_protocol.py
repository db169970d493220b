"""Protocol v1: schemas, examples, every message the referee sends, transcripts, hidden cards."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from protocol_schema import SCHEMA_DIR, errors

from canasta_cli.core import PRESETS
from canasta_cli.hosting.referee import Referee
from canasta_cli.players import GreedyPlayer, RandomPlayer
from canasta_cli.protocol.messages import encode
from canasta_cli.protocol.replies import decode_line
from canasta_cli.seats import PolicySeat, builtin_seat
from canasta_cli.seats.base import Message, Seat

PROTOCOL = SCHEMA_DIR.parent
EXAMPLES = sorted((PROTOCOL / "examples").glob("*/*.json"))


def test_every_schema_is_a_valid_draft_2020_12_schema() -> None:
    from protocol_schema import validator
    names = sorted(p.stem for p in SCHEMA_DIR.glob("*.json"))
    assert names == ["act", "bye", "error", "event", "game_end", "game_start", "hello", "match_end", "move",
                     "ready"]
    for name in names:
        validator(name)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_examples_behave_as_named(path: Path) -> None:
    msg = json.loads(path.read_text(encoding="utf-8"))
    kind = path.name.split(".")[0]
    problems = errors(msg, kind)
    lenient = errors(msg, kind, strict=False)
    if path.parent.name == "valid":
        assert problems == [] and lenient == []
    elif path.parent.name == "future":
        # From a later version: bots' schemas accept it, the referee's strict ones do not.
        assert lenient == [] and problems, path.name
    else:
        assert problems and lenient, f"{path.name} should be invalid"


class Validating:
    """A player that checks the messages it receives against the schemas: every message
    survives the wire; each shape (message type, event type, phase of an act) is validated
    the first few times it comes, then one message in ``SAMPLE`` (seeded), which keeps every
    kind of message checked in every preset at a fraction of the cost of validating all."""

    FIRST = 3
    SAMPLE = 8

    def __init__(self, inner: Any, seed: int = 0) -> None:
        self.inner = inner
        self.seen: Counter_t = {}
        self.shapes: Counter_t = {}
        self.validated = 0
        self.rng = random.Random(seed)

    def __call__(self, msg: Message) -> Message | None:
        assert decode_line(encode(msg)) == msg  # survives the wire
        shape = f"{msg['type']}/{msg['event']['type'] if msg['type'] == 'event' else ''}" \
            f"/{msg['observation']['phase'] if msg['type'] == 'act' else ''}"
        self.shapes[shape] = self.shapes.get(shape, 0) + 1
        if self.shapes[shape] <= self.FIRST or self.rng.randrange(self.SAMPLE) == 0:
            problems = errors(msg)
            assert not problems, (msg.get("type"), problems[:3])
            self.validated += 1
        self.seen[msg["type"]] = self.seen.get(msg["type"], 0) + 1
        reply: Message | None = self.inner(msg)
        if reply is not None:
            assert not errors(reply), errors(reply)
        return reply


Counter_t = dict[str, int]


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_message_the_referee_sends_validates(name: str) -> None:
    rules = PRESETS[name].with_options(max_hands=2)
    players = [Validating(GreedyPlayer() if i % 2 else RandomPlayer(random.Random(i)), seed=i)
               for i in range(rules.players)]
    seats = [PolicySeat(f"p{i}", p) for i, p in enumerate(players)]
    ref = Referee(seats, rules)
    for g in range(3):
        ref.play(g + 1, seed=g)
    ref.close()
    kinds: dict[str, int] = {}
    for p in players:
        for k, v in p.seen.items():
            kinds[k] = kinds.get(k, 0) + v
    assert {"hello", "game_start", "event", "act", "game_end"} <= set(kinds)
    assert all(p.validated >= sum(min(n, p.FIRST) for n in p.shapes.values()) for p in players)


def _transcript(seed: int = 7) -> list[dict[str, Any]]:
    return [json.loads(line) for line in _transcript_text(seed).splitlines()]


def _transcript_text(seed: int = 7) -> str:
    import tempfile

    from canasta_cli.seats.transcript import TranscriptSeat
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "seat0.jsonl"
        rules = PRESETS["classic"].with_options(max_hands=1)
        seats: list[Seat] = [TranscriptSeat(builtin_seat("builtin:greedy", seed * 7919), path)]
        seats += [builtin_seat(s, seed * 7919 + i) for i, s in
                  enumerate(["builtin:random", "builtin:greedy", "builtin:random"], start=1)]
        ref = Referee(seats, rules)
        ref.play(1, seed=seed)
        ref.close()
        return path.read_text(encoding="utf-8")


def test_published_transcript_is_what_the_referee_sends_today() -> None:
    """The canasta/1 transcript replays byte for byte (it ends with the ``bye`` that
    transcripts record since canasta/1.1; nothing before it changed)."""
    published = PROTOCOL / "transcripts" / "classic-seed7-seat0.jsonl"
    raw = published.read_text(encoding="utf-8").splitlines()
    lines = [json.loads(x) for x in raw]
    assert _transcript_text(7) == published.read_text(encoding="utf-8")  # byte for byte
    assert len(lines) == len(raw)
    assert lines[-1] == {"from": "referee", "msg": {"type": "bye"}}
    for line in lines:
        assert not errors(line["msg"]), line


def test_transcript_shows_only_what_seat_0_may_see() -> None:
    for line in _transcript(7):
        msg = line["msg"]
        if msg.get("type") != "event":
            continue
        e = msg["event"]
        if e["type"] in ("dealt", "drew") and e["seat"] != 0:
            assert "card" not in e and "cards" not in e
        assert "deck" not in e


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_redealing_hidden_cards_leaves_a_seats_messages_byte_identical(seed: int) -> None:
    """Two games whose stocks differ below the top cards send seat 0 byte-identical messages
    (events and requests to act) for as long as those cards stay hidden in the stock."""
    from canasta_cli.core import CLASSIC, apply, legal_moves, new_game
    from canasta_cli.core.deal import shuffled_deck
    from canasta_cli.protocol.messages import act_message, event_message

    rules = CLASSIC.with_options(max_hands=1)
    deck = list(shuffled_deck(rules, seed, 1))
    hidden = 30  # the bottom 30 cards of the stock
    other = deck[:-hidden] + random.Random(seed).sample(deck[-hidden:], hidden)
    assert other != deck

    def stream(order: list[int]) -> list[bytes]:
        st = new_game(rules, seed=seed, decks=[order], dealer=3)
        rng = random.Random(seed)
        out = [encode(event_message(1, e, 0)) for e in st.events()]
        seen = st.log
        while len(st.stock) > hidden and not st.is_over:
            moves = legal_moves(st)
            if st.actor == 0:
                out.append(encode(act_message(1, len(out), st, moves, 0, 0)))
            st = apply(st, moves[rng.randrange(len(moves))])
            fresh, node = [], st.log
            while node is not None and node is not seen:
                fresh.append(node[1])
                node = node[0]
            seen = st.log
            out += [encode(event_message(1, e, 0)) for e in reversed(fresh)]
        assert len(out) > 50
        return out

    assert stream(deck) == stream(other)


def test_only_a_persons_seat_gets_the_explainer() -> None:
    """``explain`` closes over the whole state, so bots (even in-process ones) never get it."""
    from canasta_cli.seats.human import HumanSeat
    seen: list[bool] = []

    def spy(msg: Message) -> Message | None:
        if msg.get("type") == "act":
            seen.append(hasattr(msg, "explain"))
            return {"type": "move", "id": msg["id"], "index": 0}
        return None

    seats = [PolicySeat("spy", spy)] + [builtin_seat("builtin:random", i) for i in (1, 2, 3)]
    Referee(seats, PRESETS["classic"].with_options(max_hands=1)).play(1, seed=2)
    assert seen and not any(seen)
    assert HumanSeat.explains and not PolicySeat.explains
