"""Bot replies are checked once, into their TypedDicts (``protocol/types.py``)."""

from __future__ import annotations

from typing import Any

import pytest

from canasta_cli.protocol.replies import ProtocolError, read_move, read_ready


def test_ready_keeps_only_well_typed_fields() -> None:
    assert read_ready({"type": "ready"}) == {"type": "ready"}
    ready = read_ready({"type": "ready", "protocol": "canasta/1.1", "name": "b",
                        "capabilities": ["history", 7, None, "public"]})
    assert ready == {"type": "ready", "protocol": "canasta/1.1", "name": "b",
                     "capabilities": ["history", "public"]}
    hostile = read_ready({"type": "ready", "protocol": 5, "name": ["x"], "capabilities": "all"})
    assert hostile == {"type": "ready", "protocol": "5"}  # the referee refuses "5" by name
    many = read_ready({"type": "ready", "capabilities": ["history"] * 1000})
    assert len(many.get("capabilities", [])) == 64


@pytest.mark.parametrize(("msg", "error"), [
    ({"type": "mvoe", "id": 3, "index": 0}, "expected a 'move' message answering request 3"),
    ({"type": "move", "id": 2, "index": 0}, "reply is for request 2, expected 3"),
    ({"type": "move", "id": "3", "index": 0}, "reply is for request \"\\\"3\\\"\", expected 3"),
    ({"type": "move", "id": 3, "index": 0, "move": "draw"}, "'index' or 'move', not both"),
    ({"type": "move", "id": 3, "index": True}, "'index' must be a whole number"),
    ({"type": "move", "id": 3, "index": 1.0}, "'index' must be a whole number"),
    ({"type": "move", "id": 3, "move": 7}, "needs 'index' (a number) or 'move'"),
    ({"type": "move", "id": 3}, "needs 'index' (a number) or 'move'"),
])
def test_hostile_move_replies_are_refused_with_a_clear_reason(msg: dict[str, Any],
                                                              error: str) -> None:
    with pytest.raises(ProtocolError) as exc:
        read_move(msg, 3)
    assert error in str(exc.value) and exc.value.code == "PROTOCOL_ERROR"


def test_a_checked_move_reply_has_exactly_its_typed_fields() -> None:
    assert read_move({"type": "move", "id": 3, "index": 2, "x": 1}, 3) == {
        "type": "move", "id": 3, "index": 2}
    assert read_move({"type": "move", "id": 3, "move": "draw"}, 3) == {
        "type": "move", "id": 3, "move": "draw"}
    assert read_move({"type": "move", "id": 3, "move": {"action": "draw"}}, 3)["move"] == {
        "action": "draw"}
