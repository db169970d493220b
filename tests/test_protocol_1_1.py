"""Protocol canasta/1.1: negotiation, each optional capability, old and new bots together,
forward compatibility, match_end, and the bot kit's table against the core's own view."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from protocol_schema import errors

from canasta_cli.core import PRESETS, Ruleset, observation
from canasta_cli.core.facts import public_facts
from canasta_cli.hosting.match import MatchPlan, run
from canasta_cli.hosting.referee import Referee, TimeControl
from canasta_cli.seats import builtin_seat
from canasta_cli.seats.base import Message, Seat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bots"))
import canasta_kit  # noqa: E402

PY = sys.executable
RULES = PRESETS["classic"].with_options(max_hands=1)


class Recording(Seat):
    """An in-process canasta/1.1 (or 1) bot: random moves, every message kept."""

    def __init__(self, protocol: str, caps: list[str], seed: int = 0) -> None:
        self.name = "recording"
        self.ask_protocol = protocol
        self.ask_caps = caps
        self.received: list[Message] = []
        self.rng = random.Random(seed)

    def start(self, hello: Message, timeout: float) -> Message:
        self.received.append(dict(hello))
        return {"type": "ready", "protocol": self.ask_protocol, "capabilities": self.ask_caps}

    def send(self, msg: Message) -> None:
        self.received.append(json.loads(json.dumps(msg)))

    def request(self, msg: Message, timeout: float) -> Message:
        self.received.append(json.loads(json.dumps(msg)))
        return {"type": "move", "id": msg["id"], "index": self.rng.randrange(len(msg["moves"]))}


def _play(seat: Recording, rules: Ruleset = RULES, seed: int = 3) -> Recording:
    seats: list[Seat] = [seat] + [builtin_seat("builtin:random", i) for i in (1, 2, 3)]
    ref = Referee(seats, rules, TimeControl())
    ref.start()
    result = ref.play(1, seed=seed)
    ref.end_match([result])
    ref.close()
    return seat


def _acts(seat: Recording) -> list[Message]:
    return [m for m in seat.received if m["type"] == "act"]


@pytest.mark.parametrize("cap", ["history", "annotations", "auto_forced", "public"])
def test_each_capability_on_and_off(cap: str) -> None:
    on = _play(Recording("canasta/1.1", [cap]))
    off = _play(Recording("canasta/1.1", []))
    start_on = next(m for m in on.received if m["type"] == "game_start")
    assert start_on["protocol"] == "canasta/1.1" and start_on["capabilities"] == [cap]
    for m in on.received + off.received:
        assert not errors(m), (m["type"], errors(m)[:2])
    if cap == "history":
        assert all("history" in a["observation"] for a in _acts(on))
        assert not any("history" in a["observation"] for a in _acts(off))
        a = _acts(on)[-1]
        events = [m["event"] for m in on.received[:on.received.index(a)] if m["type"] == "event"]
        assert a["observation"]["history"] == events  # the events, as this seat got them
    if cap == "annotations":
        assert all("facts" in mv for a in _acts(on) for mv in a["moves"])
        assert not any("facts" in mv for a in _acts(off) for mv in a["moves"])
        discard_wild = [mv for a in _acts(on) for mv in a["moves"]
                        if mv["action"] == "discard" and mv["card"] in ("2", "Jo")]
        assert all(mv["facts"]["freezes_pile"] or mv["facts"]["goes_out"]
                   for mv in discard_wild)
    if cap == "auto_forced":
        assert all(len(a["moves"]) > 1 for a in _acts(on))
        assert any(len(a["moves"]) == 1 for a in _acts(off))
        drew = [m for m in on.received if m["type"] == "event"
                and m["event"]["type"] == "drew" and m["event"]["seat"] == 0]
        assert drew  # the forced draws still reach the bot as events
    if cap == "public":
        assert all(set(a["observation"]["public"]) == {"discards", "known", "pile", "unseen"}
                   for a in _acts(on))
        assert not any("public" in a["observation"] for a in _acts(off))


def test_a_canasta_1_bot_gets_exactly_the_old_messages() -> None:
    old = _play(Recording("canasta/1", ["history", "public"]))
    start = next(m for m in old.received if m["type"] == "game_start")
    assert "protocol" not in start and "capabilities" not in start
    assert not any(m["type"] == "match_end" for m in old.received)
    for a in _acts(old):
        assert "history" not in a["observation"] and "public" not in a["observation"]


def test_match_end_comes_before_bye_for_1_1_bots() -> None:
    new = _play(Recording("canasta/1.1", []))
    end = new.received[-1]
    assert end["type"] == "match_end" and end["games"] == 1 and not errors(end)
    assert end["results"][0]["reason"] in ("hand_limit", "target")


def test_an_unknown_protocol_is_refused_at_the_handshake() -> None:
    seat = Recording("canasta/2", [])
    ref = Referee([seat] + [builtin_seat("builtin:random", i) for i in (1, 2, 3)],
                  RULES)
    ref.start()
    assert not ref.reports[0].alive and "canasta/2" in ref.reports[0].errors[0]


def test_old_and_new_bots_play_one_match(tmp_path: Path) -> None:
    seats = [f"{PY} {ROOT / 'tests' / 'bots' / 'v1_bot.py'}",
             f"{PY} {ROOT / 'tests' / 'bots' / 'kit_all.py'} {ROOT / 'bots' / 'canasta_kit.py'}",
             f"{PY} {ROOT / 'bots' / 'random_bot.py'}", "builtin:greedy"]
    result = run(MatchPlan(tuple(seats), RULES, 2, 5, tmp_path / "rec", TimeControl(), "default",
                           tmp_path / "tr"))
    assert [s["status"] for s in result.seat_summary()] == ["OK"] * 4, result.seat_summary()
    v1 = [json.loads(x) for x in (tmp_path / "tr" / "seat0.jsonl").read_text().splitlines()]
    kit = [json.loads(x) for x in (tmp_path / "tr" / "seat1.jsonl").read_text().splitlines()]
    assert not any(ln["msg"].get("type") == "match_end" for ln in v1)
    assert v1[-1]["msg"] == {"type": "bye"} and kit[-1]["msg"] == {"type": "bye"}
    assert kit[-2]["msg"]["type"] == "match_end" and kit[-2]["msg"]["games"] == 2
    ready = next(ln["msg"] for ln in kit if ln["from"] == "bot")
    assert ready["protocol"] == "canasta/1.1"
    acts = [ln["msg"] for ln in kit if ln["msg"].get("type") == "act"]
    assert acts and all(len(a["moves"]) > 1 for a in acts)


@pytest.mark.parametrize("bot", [[PY, str(ROOT / "bots" / "random_bot.py")],
                                 ["node", str(ROOT / "bots" / "random_bot.js")]])
def test_example_bots_ignore_what_they_do_not_know(bot: list[str]) -> None:
    if bot[0] == "node" and subprocess.run(["node", "--version"], capture_output=True,
                                           check=False).returncode:
        pytest.skip("no Node.js")
    examples = ROOT / "protocol" / "examples"
    hello = json.loads((examples / "valid" / "hello.json").read_text())
    start = json.loads((examples / "valid" / "game_start.json").read_text())
    unknown = json.loads((examples / "future" / "event.unknown-type.json").read_text())
    act = json.loads((examples / "future" / "act.extra-fields.json").read_text())
    lines = [hello, start, {"type": "weather", "sky": "blue"}, unknown, act, {"type": "bye"}]
    proc = subprocess.run(bot, input="".join(json.dumps(m) + "\n" for m in lines), text=True,
                          capture_output=True, timeout=30, check=False)
    out = [json.loads(x) for x in proc.stdout.splitlines()]
    assert proc.returncode == 0, proc.stderr
    assert [m["type"] for m in out] == ["ready", "move"]
    assert out[1]["id"] == act["id"] and 0 <= out[1]["index"] < len(act["moves"])


class KitWatcher(Seat):
    """Seat 0: feeds every message to the kit's Table and, at each request, checks its facts
    against the core's, computed from the events this seat was sent."""

    def __init__(self, rules: Ruleset) -> None:
        self.name = "kit-watcher"
        self.table = canasta_kit.Table()
        self.rules = rules
        self.history: list[dict[str, Any]] = []
        self.checked = 0
        self.rng = random.Random(1)

    def start(self, hello: Message, timeout: float) -> Message:
        return {"type": "ready", "protocol": "canasta/1"}

    def send(self, msg: Message) -> None:
        if msg["type"] == "game_start":
            self.table.start_game(json.loads(json.dumps(msg)))
        elif msg["type"] == "event":
            event = json.loads(json.dumps(msg["event"]))
            self.history.append(event)
            self.table.note(event)  # the path run() takes: kept, read at the next facts()

    def request(self, msg: Message, timeout: float) -> Message:
        obs = json.loads(json.dumps(msg["observation"]))
        assert self.table.facts(obs) == public_facts(self.history, obs, self.rules.decks)
        self.checked += 1
        return {"type": "move", "id": msg["id"], "index": self.rng.randrange(len(msg["moves"]))}


# Games per preset: each runs every line of the kit's Table and of core/facts.py that 50 games
# run (traced per game: the last game to run a new line was 1-10 in classic, two-player and
# pagat, 20 in the three-player presets, 49 in the six-player ones).
KIT_TABLE_GAMES = {"classic": 10, "two-player": 10, "pagat": 10, "three-player": 25,
                   "three-player-cutthroat": 25}


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_kit_table_agrees_with_the_referee_at_every_decision(name: str) -> None:
    rules = PRESETS[name].with_options(max_hands=1)
    watcher = KitWatcher(rules)
    seats: list[Seat] = [watcher] + [builtin_seat("builtin:random", i)
                                     for i in range(1, rules.players)]
    ref = Referee(seats, rules)
    ref.start()
    games = KIT_TABLE_GAMES.get(name, 50)
    for game in range(games):
        ref.play(game + 1, seed=game)
    ref.close()
    assert watcher.checked > games * 5


def test_public_facts_name_only_what_the_seat_may_know() -> None:
    """Re-dealing the cards seat 0 cannot see leaves its public facts unchanged (they are made
    from its own views only), and they always agree with the cards really hidden."""
    from collections import Counter

    from canasta_cli.core import apply, legal_moves, new_game
    from canasta_cli.core.cards import TEXT_OF
    for seed in range(5):
        st = new_game(RULES, seed=seed)
        rng = random.Random(seed)
        while not st.is_over:
            seat = st.actor
            obs = observation(st, seat)
            facts = public_facts(obs["history"], obs, RULES.decks)
            hidden = Counter(TEXT_OF[c] for c in st.stock) + Counter(
                TEXT_OF[c] for s in range(4) if s != seat for c in st.hands[s])
            for s in range(4):
                if s != seat:
                    hidden -= Counter(facts["known"][s])
            assert Counter(facts["unseen"]) == hidden
            st = apply(st, rng.choice(legal_moves(st)))


def test_the_docs_list_every_option_the_protocol_documents() -> None:
    """Every option protocol/README.md names is in a command's synopsis on a docs page (the
    ```text blocks that start with ``canasta ``; tests/test_docs_pages.py holds each synopsis
    to its command's --help)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    listed: set[str] = set()
    for page in pages:
        for block in re.findall(r"^```text\n(canasta .*?)^```", page.read_text(), re.S | re.M):
            listed |= set(re.findall(r"--[a-z][a-z0-9-]*", block))
    protocol = (ROOT / "protocol" / "README.md").read_text()
    options = set(re.findall(r"(--[a-z][a-z-]+)", protocol))
    missing = sorted(options - listed)
    assert not missing, missing
