"""A spectator sees only what every player may see: the thief check.  Two games whose
stocks differ below the cards drawn send the spectator byte-identical messages, while the
records kept on the server (which reveal the deck at the end) differ."""

from __future__ import annotations

import json
import random
from pathlib import Path

from net_helpers import Raw, Served

from canasta_cli.core import CLASSIC
from canasta_cli.core.deal import shuffled_deck

RULES = CLASSIC.with_options(max_hands=1, max_turns=24)
HIDDEN = 20  # the bottom of the stock, never drawn within 24 turns


def _watched(tmp: Path, order: list[int]) -> tuple[list[bytes], bytes]:
    served = Served(["remote", "builtin:random", "builtin:random", "builtin:random"], RULES,
                    4, tmp, decks=[order], dealer=3)
    watcher = Raw(served.port, served.spectator, "watch")
    bot = Raw(served.port, served.token(0))
    assert bot.play()["type"] == "bye"
    served.finish()
    while watcher.read()["type"] != "EOF":
        pass
    return watcher.raw[1:], served.record.read_bytes()  # after the welcome


def test_a_spectator_sees_no_hidden_card(tmp_path: Path) -> None:
    deck = list(shuffled_deck(RULES, 4, 1))
    other = deck[:-HIDDEN] + random.Random(4).sample(deck[-HIDDEN:], HIDDEN)
    assert other != deck
    seen, record = _watched(tmp_path / "a", deck)
    seen2, record2 = _watched(tmp_path / "b", other)
    assert seen == seen2  # byte for byte
    assert record != record2  # the positive control: the games did differ (the reveal)
    text = b"\n".join(seen).decode()
    assert '"reason":"turn_limit"' in text and len(seen) > 100
    events = [json.loads(x)["event"] for x in seen if json.loads(x)["type"] == "event"]
    assert all("cards" not in e for e in events if e["type"] == "dealt")
    assert all("card" not in e for e in events if e["type"] == "drew")
    assert sum(e["type"] == "drew" for e in events) <= 63 - HIDDEN
    assert b'"seed"' not in b"".join(seen) and b'"reveal"' not in b"".join(seen)
