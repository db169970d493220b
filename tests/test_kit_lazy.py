"""The Python kit parses what the referee sends only when the bot reads it (events when the
table is read, the observation when the bot looks at it): on the lines of real games it must
hand the bot exactly what parsing every line whole does."""

from __future__ import annotations

import copy
import io
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest

from canasta_cli.core import PRESETS
from canasta_cli.hosting.referee import Referee
from canasta_cli.protocol.messages import ActRequest, encode
from canasta_cli.seats.base import Message, Seat

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bots"))
import canasta_kit  # noqa: E402


class Wire(Seat):
    """Keeps every line the referee would write to a bot's pipe; plays the last listed move."""

    def __init__(self, caps: frozenset[str]) -> None:
        self.name = "wire"
        self.lines: list[str] = []
        self.granted = caps

    def start(self, hello: Message, timeout: float) -> Message:
        self.lines.append(encode(hello).decode())
        return {"type": "ready", "protocol": "canasta/1.1", "capabilities": sorted(self.granted)}

    def send(self, msg: Message) -> None:
        self.lines.append(encode(msg).decode())

    def request(self, msg: Message, timeout: float) -> Message:
        raise AssertionError("only acts are asked")

    def act(self, request: ActRequest, timeout: float) -> Message:
        self.lines.append(request.wire.decode())
        return {"type": "move", "id": request.id, "index": len(request.legal) - 1}


def game_lines(preset: str, caps: frozenset[str], games: int = 2) -> list[str]:
    rules = PRESETS[preset].with_options(max_hands=2)
    wires = [Wire(caps) for _ in range(rules.players)]
    seats: list[Seat] = list(wires)
    ref = Referee(seats, rules)
    ref.start()
    for g in range(games):
        ref.play(g + 1, seed=g)
    return wires[0].lines + ['{"type":"bye"}\n']


def respaced(line: str) -> str:
    """The same message written another way: the kit's fast paths do not apply to it."""
    return json.dumps(json.loads(line)) + "\n"


def play(lines: list[str], read: str) -> tuple[list[Any], str]:
    """What a kit bot saw at each decision, and what it answered."""
    seen: list[Any] = []

    def choose(observation: dict[str, Any], moves: list[dict[str, Any]]) -> int:
        if read == "all":
            seen.append((json.dumps(observation, sort_keys=True), observation["public"],
                         moves))
        elif read == "moves":
            seen.append(moves)
        else:
            seen.append((observation.get("hand"), observation["public"]["unseen"]))
        return (len(moves) * 7 + len(seen)) % len(moves)

    out = io.StringIO()
    canasta_kit.run(choose, stdin=io.StringIO("".join(lines)), stdout=out)
    return seen, out.getvalue()


@pytest.mark.parametrize(("preset", "caps"), [("classic", frozenset()),
                                              ("classic", frozenset({"annotations"})),
                                              ("three-player-cutthroat", frozenset()),
                                              ("six-player-pairs", frozenset({"public"}))])
def test_lazy_parsing_hands_the_bot_what_parsing_everything_does(preset: str,
                                                                 caps: frozenset[str]) -> None:
    lines = game_lines(preset, caps)
    acts = [line for line in lines if line.startswith('{"type":"act",')]
    assert len(acts) > 20 and all(canasta_kit._act_of(line) is not None for line in acts)
    assert not any(canasta_kit._act_of(respaced(line)) for line in acts)
    for read in ("all", "moves", "some"):
        lazy, answers = play(lines, read)
        eager, eager_answers = play([respaced(line) for line in lines], read)
        assert lazy == eager and answers == eager_answers, read
        assert len(lazy) == sum('"type":"act"' in line for line in lines)


def test_an_act_line_is_split_only_where_its_top_level_keys_are() -> None:
    line = ('{"type":"act","game":1,"id":4,"seat":1,"observation":{"seat":1,"x":{"moves":[9],'
            '"y":",\\"moves\\":[8]"}},"moves":[{"index":0,"text":"draw"}],"deadline_ms":900,'
            '"bank_ms":0}\n')
    msg = canasta_kit._act_of(line)
    assert msg is not None and msg["moves"] == [{"index": 0, "text": "draw"}]
    assert json.loads(msg["observation"]) == json.loads(line)["observation"]
    assert {k: v for k, v in msg.items() if k != "observation"} == \
        {k: v for k, v in json.loads(line).items() if k != "observation"}
    nested = canasta_kit._act_of('{"type":"act","observation":{},"moves":[1],"z":{"moves":[]}}')
    assert nested is not None and nested["moves"] == [1] and nested["z"] == {"moves": []}
    # Moves before the observation, a nested moves key after the moves, or broken JSON:
    # parsed whole.
    assert canasta_kit._act_of('{"type":"act","moves":[1],"observation":{"moves":[2]}}\n') is None
    assert canasta_kit._act_of('{"type":"act","observation":{},"moves":[1],"z":{"a":1,'
                               '"moves":[]},"w":2}') is None
    assert canasta_kit._act_of('{"type":"act","observation":{},"moves":[1,}') is None
    assert canasta_kit._act_of('{"type":"event","observation":{},"moves":[1]}') is None


@pytest.mark.parametrize("caps", [frozenset(), frozenset({"annotations", "public"})])
def test_a_request_read_by_its_fields_is_the_request_parsed_whole(caps: frozenset[str]) -> None:
    """The referee's requests are read field by field (two regular expressions and the moves'
    JSON): every field as a whole parse gives it, in the same order, the observation as its
    text; a request laid out otherwise (a field more, or in another place) is split the
    general way and keeps every field."""
    acts = [line for line in game_lines("classic", caps, games=1)
            if line.startswith('{"type":"act",')]
    assert len(acts) > 20
    for line in acts:
        msg = canasta_kit._act_of(line)
        whole = json.loads(line)
        assert msg is not None and json.loads(msg.pop("observation")) == whole.pop("observation")
        assert list(msg.items()) == [(k, v) for k, v in whole.items() if k != "observation"]
    line = acts[0]
    extra = line.replace('"bank_ms":', '"hint":[1,{"moves":2}],"bank_ms":')
    early = line.replace('"seat":', '"table":"main","seat":', 1)
    for other in (extra, early):
        msg = canasta_kit._act_of(other)
        assert msg is not None and json.loads(msg.pop("observation")) == \
            json.loads(other)["observation"]
        assert msg == {k: v for k, v in json.loads(other).items() if k != "observation"}


def test_an_unread_observation_is_a_dict_every_way_it_is_read() -> None:
    text = '{"seat":2,"hand":["Ah","5d"],"melds":[],"public":{"pile":["7c"]}}'
    whole = json.loads(text)
    table = canasta_kit.Table()

    def fresh() -> canasta_kit.Observation:
        return canasta_kit.Observation(text, table)

    assert json.dumps(fresh()) == json.dumps(whole)
    assert json.dumps(fresh(), indent=1) == json.dumps(whole, indent=1)
    assert dict(fresh()) == whole and {**fresh()} == whole and fresh() == whole
    assert fresh().copy() == whole and copy.deepcopy(fresh()) == whole
    assert pickle.loads(pickle.dumps(fresh())) == whole
    assert list(fresh()) == list(whole) and len(fresh()) == len(whole)
    assert sorted(fresh().items()) == sorted(whole.items()) and repr(fresh()) == repr(whole)
    assert fresh()["hand"] == ["Ah", "5d"] and fresh().get("melds") == []
    assert "hand" in fresh() and "nothing" not in fresh() and fresh().get("nothing", 3) == 3
    assert fresh()["public"] == {"pile": ["7c"]}  # sent by the referee: not made by the kit
    with pytest.raises(KeyError):
        fresh()["nothing"]
    made = canasta_kit.Observation('{"seat":2,"hand":[]}', table)
    assert "unseen" in made["public"] and "public" in made
    # Not in the referee's form (no leading seat): parsed at once, the same dict.
    assert canasta_kit.Observation('{"hand":["Ah"]}', table) == {"hand": ["Ah"]}
    assert canasta_kit.Observation('[1,', table) == {}


def test_events_are_kept_unparsed_until_the_table_is_read() -> None:
    table = canasta_kit.Table()
    table.note_line('{"type":"event","game":1,"event":{"type":"discard","seat":1,"card":"Kd"}}\n')
    table.note_line("not json\n")
    assert table._unread and all(isinstance(e, str) for e in table._unread)
    table.note_line('{"type":"event","game":1,"event":{"type":"hand_started","hand":2}}\n')
    assert len(table._unread) == 1  # a new hand: the last one's events are dropped
    table.note_line('{"type":"event","game":1,"event":{"type":"upcard","card":"9h"}}\n')
    assert table.facts({"seat": 0, "hand": []})["pile"] == ["9h"]


def test_the_timed_bot_plays_as_the_bot_and_stamps_every_answer_in_order() -> None:
    """``bench protocol``'s clocked wrapper: the same answers as the kit without it, and one
    row per request (its id, then first line read <= request read <= answer written)."""
    from canasta_cli.bench.timed_bot import Clocked

    lines = game_lines("classic", frozenset())
    acts = [json.loads(line)["id"] for line in lines if line.startswith('{"type":"act",')]

    def choose(observation: dict[str, Any], moves: list[dict[str, Any]]) -> int:
        return len(moves) // 2

    plain = io.StringIO()
    canasta_kit.run(choose, stdin=io.StringIO("".join(lines)), stdout=plain)
    clocked_out = io.StringIO()
    clocked = Clocked(io.StringIO("".join(lines)), clocked_out)
    canasta_kit.run(choose, stdin=clocked, stdout=clocked)  # type: ignore[arg-type]
    assert clocked_out.getvalue() == plain.getvalue()
    assert plain.getvalue().count('"type":"move"') == len(acts)
    assert [row[0] for row in clocked.times] == acts
    assert all(0 < first <= read <= answered for _, first, read, answered in clocked.times)


def test_the_timed_bot_runs_a_bot_file_as_its_main_with_its_name_and_capabilities(
        tmp_path: Path) -> None:
    """``timed_bot.py BOT.py`` runs the author's file as ``python BOT.py`` would (its own
    ``run`` call: name, capabilities, choose), answers as the bot does, and writes one stamp
    row per request to stderr at the end; a file that never calls the kit writes none."""
    import subprocess

    from canasta_cli.bench import timed_bot

    bot = tmp_path / "my_bot.py"
    bot.write_text("import canasta_kit\n\n"
                   "def choose(observation, moves):\n"
                   "    return len(moves) - 1\n\n"
                   "if __name__ == '__main__':\n"
                   "    canasta_kit.run(choose, 'mine', ('annotations',))\n")
    lines = ['{"type":"hello","protocol":"1.1"}\n', *game_lines("classic", frozenset())]
    acts = [json.loads(line)["id"] for line in lines if line.startswith('{"type":"act",')]
    plain = io.StringIO()
    canasta_kit.run(lambda o, m: len(m) - 1, "mine", ("annotations",),
                    stdin=io.StringIO("".join(lines)), stdout=plain)
    done = subprocess.run([sys.executable, timed_bot.__file__, str(bot)], input="".join(lines),
                          capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout == plain.getvalue()
    ready = json.loads(done.stdout.splitlines()[0])
    assert ready["name"] == "mine" and ready["capabilities"] == ["annotations"]
    stamps = [line for line in done.stderr.splitlines() if line.startswith(timed_bot.MARK)]
    assert len(stamps) == 1
    assert [row[0] for row in json.loads(stamps[0][len(timed_bot.MARK):])] == acts

    bare = tmp_path / "bare_bot.py"
    bare.write_text("import sys\nfor line in sys.stdin:\n    pass\n")
    done = subprocess.run([sys.executable, timed_bot.__file__, str(bare)], input="".join(lines),
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout == "" and timed_bot.MARK not in done.stderr
    missing = subprocess.run([sys.executable, timed_bot.__file__, str(tmp_path / "none.py")],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "no bot file" in missing.stderr
