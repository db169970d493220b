"""``undo`` in ``canasta join``: the person's melds of the turn are held by the client and
played with the discard, taken back on request, and never reach the other seats or the
record; the server agrees only where the host allows undo, and answers only with what the
seat may see."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pexpect
from net_helpers import FULL_PROMPT, TABLE, WAIT, Raw, Served, person

from canasta_cli.core import CLASSIC
from canasta_cli.core.deckfile import parse_deck_text

RULES = CLASSIC.with_options(max_hands=1)
DECK = "seat0: Kh Kd Kc Ah Ad Ac 9h 5c 6d 7s 8c\nstock: 4d 4s 4h\n"
ALONE = ["remote:ana", "builtin:normal", "builtin:normal", "builtin:normal"]


def _served(tmp_path: Path, specs: list[str], **opts: Any) -> Served:
    decks = parse_deck_text(DECK, RULES, 3, 1)
    return Served(specs, RULES, 1, tmp_path, decks=decks, dealer=3, away_s=0.1, **opts)


def _at_prompt(child: pexpect.spawn) -> None:
    child.expect(TABLE)
    child.expect(FULL_PROMPT)


def test_undo_across_the_network_takes_back_held_melds(tmp_path: Path) -> None:
    served = _served(tmp_path, ALONE, undo=True)  # canasta serve allows it here by default
    child = person(f"127.0.0.1:{served.port}", served.token(0))
    _at_prompt(child)
    child.sendline("draw")
    _at_prompt(child)
    child.sendline("undo")  # nothing held yet: a draw is never taken back
    child.expect("nothing to undo: only your melds and additions of this turn")
    child.sendline("meld K K K")
    child.expect("Held, not played yet: meld K K K.")
    child.sendline("meld A A A")
    child.expect("Held, not played yet: meld K K K; meld A A A.")
    child.sendline("undo")
    child.expect("took back: meld A A A")
    child.sendline("undo")
    child.expect("took back: meld K K K")
    child.sendline("meld A A A")  # a different play: needs 50, and A A A is 60
    child.expect("Held, not played yet: meld A A A.")
    child.sendline("discard 9")
    _at_prompt(child)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    served.finish()
    lines = served.lines()
    mine = [ln["move"] for ln in lines if ln["type"] == "move" and ln["seat"] == 0]
    assert mine[:3] == ["draw", "meld A A A", "discard 9"], mine
    melds = [ln["event"]["cards"] for ln in lines if ln["type"] == "event"
             and ln["event"]["type"] == "meld" and ln["event"]["seat"] == 0]
    assert melds and all(all(c[:-1] != "K" for c in cards) for cards in melds[:1])


def test_news_from_the_table_keeps_the_held_melds(tmp_path: Path) -> None:
    """A notice while melds are held wakes the prompt to show it; the turn is asked again,
    and the held melds, their table and 'undo' are all still there."""
    served = _served(tmp_path, ALONE, undo=True)
    child = person(f"127.0.0.1:{served.port}", served.token(0))
    _at_prompt(child)
    child.sendline("draw")
    _at_prompt(child)
    child.sendline("meld A A A")
    child.expect("Held, not played yet: meld A A A.")
    child.sendline("meld K K K")
    child.expect("Held, not played yet: meld A A A; meld K K K.")
    child.expect(FULL_PROMPT)
    served.table.announce("the host says hello")
    child.expect(r"\[table\] the host says hello")
    child.expect("Held, not played yet: meld A A A; meld K K K.")
    child.expect(FULL_PROMPT)
    child.sendline("undo")
    child.expect("took back: meld K K K")
    child.expect("Held, not played yet: meld A A A.")
    child.sendline("discard 9")
    _at_prompt(child)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    served.finish()
    mine = [ln["move"] for ln in served.lines() if ln["type"] == "move" and ln["seat"] == 0]
    assert mine[:3] == ["draw", "meld A A A", "discard 9"], mine


def _act(raw: Raw) -> dict[str, Any]:
    while True:
        msg = raw.read()
        assert msg["type"] not in ("bye", "EOF"), msg
        if msg["type"] == "hello":
            raw.send({"type": "ready", "protocol": "canasta/1", "name": "raw"})
        elif msg["type"] == "act":
            return msg


def _reply(raw: Raw, kind: str) -> dict[str, Any]:
    while True:
        msg = raw.read()
        if msg["type"] == kind:
            return msg


def test_the_server_answers_with_the_seats_own_view_only_where_undo_is_on(
        tmp_path: Path) -> None:
    served = _served(tmp_path, ALONE, undo=True)
    raw = Raw(served.port, served.token(0), "person")
    assert raw.welcome["undo"] is True
    act = _act(raw)
    raw.send({"type": "ahead", "id": act["id"], "moves": ["draw"]})
    refused = _reply(raw, "ahead")
    assert refused["ok"] is False and "only melds and additions" in str(refused["reason"])
    raw.send({"type": "move", "id": act["id"], "move": "draw"})
    act = _act(raw)
    for bad in ([], ["x" * 5000], ["meld 4 4 4"], ["meld K K K", "discard 9"], "meld K K K"):
        raw.send({"type": "ahead", "id": act["id"], "moves": bad})
        assert _reply(raw, "ahead")["ok"] is False, bad
    raw.send({"type": "ahead", "id": act["id"], "moves": ["meld K K K"]})
    view = _reply(raw, "ahead")
    assert view["ok"] is True and view["id"] == act["id"]
    # Exactly what the seat is shown once it plays the meld: nothing more.
    raw.send({"type": "move", "id": act["id"], "move": "meld K K K"})
    after = _act(raw)
    assert view["observation"] == after["observation"]
    assert view["moves"] == [m["text"] for m in after["moves"]]
    assert [e["type"] for e in view["events"]] == ["meld"]
    raw.close()
    served.finish()  # the stand-in plays on


def test_undo_is_refused_clearly_where_the_host_did_not_allow_it(tmp_path: Path) -> None:
    specs = ["remote:ana", "builtin:normal", "remote:bo", "builtin:normal"]
    served = _served(tmp_path, specs)
    bot = Raw(served.port, served.token(2), "bot")
    plays = threading.Thread(target=bot.play, daemon=True)  # the other remote seat, as it comes
    plays.start()
    child = person(f"127.0.0.1:{served.port}", served.token(0))
    _at_prompt(child)
    child.sendline("draw")
    _at_prompt(child)
    child.sendline("meld K K K")  # played at once: nothing is held
    _at_prompt(child)
    child.sendline("undo")
    child.expect("nothing to undo")
    child.expect(r"undo is off at this table:\s+the\s+host\s+allows\s+it\s+with\s+canasta"
                 r"\s+serve\s+--undo")  # (wrapped to the terminal's width)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    plays.join(timeout=WAIT)
    assert not plays.is_alive()
    served.finish()
    mine = [ln["move"] for ln in served.lines() if ln["type"] == "move" and ln["seat"] == 0]
    assert mine[:2] == ["draw", "meld K K K"]


def test_serve_allows_undo_by_default_for_one_person_with_built_in_players() -> None:
    from canasta_cli.net.held import undo_by_default
    assert undo_by_default(ALONE)
    assert undo_by_default(["human", "builtin:hard", "builtin:hard", "builtin:easy"])
    assert not undo_by_default(["remote:ana", "builtin:normal", "remote:bo", "builtin:normal"])
    assert not undo_by_default(["remote", "python3 bot.py", "builtin:normal", "builtin:normal"])
    assert not undo_by_default(["remote", "human", "builtin:normal", "builtin:normal"])


def test_canasta_serve_tells_the_person_whether_undo_is_allowed(tmp_path: Path) -> None:
    from net_helpers import serve
    for extra, seats, allowed in (
            ([], ALONE, True),
            ([], ["remote:ana", "builtin:normal", "remote:bo", "builtin:normal"], False),
            (["--undo"], ["remote:ana", "builtin:normal", "remote:bo", "builtin:normal"], True)):
        proc, tokens, address = serve("--save-dir", str(tmp_path), *extra,
                                      *(x for s in seats for x in ("--seat", s)))
        try:
            raw = Raw(int(address.rsplit(":", 1)[1]), tokens["0"], "person")
            assert raw.welcome["undo"] is allowed, (extra, seats)
            raw.close()
        finally:
            proc.terminate()
            proc.communicate(timeout=60)
