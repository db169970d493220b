"""A spectator sees only what every player may see: the thief check.  Two games whose
stocks differ below the cards drawn send the spectator byte-identical messages (the table's
public view among them), while the records kept on the server (which reveal the deck at the
end) differ.  ``canasta join --watch`` draws that table as ``canasta play`` draws one."""

from __future__ import annotations

import json
import random
import re
import subprocess
from pathlib import Path

from net_helpers import CANASTA, ROOT, WAIT, Raw, Served, env

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
    tables = [json.loads(x)["observation"] for x in seen if json.loads(x)["type"] == "table"]
    assert len(tables) > 24 and all("hand" not in t and t["seat"] is None for t in tables)


def test_a_spectator_sees_the_table_as_everyone_sees_it(tmp_path: Path) -> None:
    """``canasta join --watch`` draws the table (melds, pile, stock, how many cards each
    holds, the scores) at each turn, fitted to the width, and how the hand ended."""
    served = Served(["remote:ana", "builtin:random", "builtin:random", "builtin:random"],
                    CLASSIC.with_options(max_hands=1), 6, tmp_path)
    watcher = subprocess.Popen([CANASTA, "join", f"127.0.0.1:{served.port}", "--token",
                                served.spectator, "--watch"], cwd=ROOT, env=dict(env(),
                               COLUMNS="60"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    assert watcher.stdout is not None
    assert watcher.stdout.readline().startswith("Watching")  # in before the game starts
    assert Raw(served.port, served.token(0)).play()["type"] == "bye"
    served.finish()
    seen, _ = watcher.communicate(timeout=WAIT)
    tables = seen.count("== Hand 1 - ")
    assert tables > 20 and seen.count("Stock ") == tables, seen[-3000:]  # one a turn
    assert re.search(r"Hands: ana: \d+, random#1: \d+, random#2: \d+, random#3: \d+", seen)
    assert re.search(r"Pile \d+ cards?, top \S+", seen) and "Scores: ana+random#2: " in seen
    assert re.search(r"\n {4}\w+ ×\d+", seen), seen[-3000:]  # a meld, as the table writes it
    assert "== Hand 1 is over: " in seen and "Cards left:" in seen and "Game total" in seen
    assert "== Game over (hand_limit)" in seen
    assert not re.search(r" is dealt [^1]| draws (?!a card)", seen)  # no hidden card
    assert max(len(line) for line in seen.splitlines()) <= 60, seen
