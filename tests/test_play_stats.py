"""The statistics of play (hosting/playstats.py): each figure on hands made by hand, on a
stacked deal played through the engine, against the engine's own scoring on games of every
preset, and in ``canasta report``'s text and HTML."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from viewer_games import CANASTA, SCRIPT_NAME, record_game, run_tournament

from canasta_cli.core import PRESETS, apply, new_game, parse_deck_text, preset
from canasta_cli.hosting.playstats import PlayStats, bot_stats, seat_stats
from canasta_cli.hosting.records import RecordError, load_record
from canasta_cli.viewer.report_page import report_html
from canasta_cli.viewer.report_text import report_text
from canasta_cli.viewer.tourney import load_tournament, play_table

CLASSIC = PRESETS["classic"].to_dict()
CUTTHROAT = PRESETS["three-player-cutthroat"].to_dict()


def _ev(**fields: Any) -> dict[str, Any]:
    return {"type": "event", "event": fields}


def _header(rules: dict[str, Any]) -> dict[str, Any]:
    return {"type": "header", "game": 1, "sealed": True, "dealer": 3, "rules": rules,
            "seats": ["a", "b", "c", "d"][:rules["players"]]}


def _side(**counts: int) -> dict[str, int]:
    """A side's score of a hand_ended event (only the parts the statistics never read)."""
    return {"natural_canastas": 0, "mixed_canastas": 0, "red_threes": 0, "hand_penalty": 0,
            **counts}


def _hand_one() -> list[dict[str, Any]]:
    """Classic, dealer 3.  Seat 1 lays two red threes (the deal, the stock); seat 1 takes a
    pile of 6 with a new meld of sevens (the meld and the take both told); seat 3 takes a
    pile of 3 onto those sevens, a red three in it; seat 1 completes the sevens (natural);
    seat 2 completes seat 0's queens, which seat 0's deuce makes mixed after; seat 0 lays a
    mixed canasta of aces at once; seat 2 goes out, not concealed; seat 1 keeps 35 points,
    seat 3 keeps 55 (seat 0, seat 2's partner, keeps 70: not counted)."""
    return [
        _ev(type="hand_started", hand=1, dealer=3, minimums=[50, 50]),
        *(_ev(type="dealt", seat=s, count=11) for s in range(4)),
        _ev(type="upcard", card="9c"),
        _ev(type="red_three", seat=1, card="3d", source="deal"),
        _ev(type="drew", seat=1, replacement=True),
        _ev(type="drew", seat=0, replacement=False),
        _ev(type="meld", seat=0, rank="Q", cards=["Qh", "Qd", "Qc"], concealed_canasta=False),
        _ev(type="discard", seat=0, card="4c"),
        _ev(type="meld", seat=1, rank="7", cards=["7c", "7d", "7h"], concealed_canasta=False),
        _ev(type="took_pile", seat=1, top="7c", **{"with": ["7d", "7h"]}),
        _ev(type="picked_up", seat=1, cards=["9c", "4d", "8s", "Jo", "4c"]),
        _ev(type="discard", seat=1, card="7s"),
        _ev(type="drew", seat=2, replacement=False),
        _ev(type="add", seat=2, rank="Q", card="Qs"),
        _ev(type="add", seat=2, rank="Q", card="Qs"),
        _ev(type="discard", seat=2, card="5d"),
        _ev(type="took_pile", seat=3, top="7s", **{"with": ["7s"]}),
        _ev(type="picked_up", seat=3, cards=["3h", "5d"]),
        _ev(type="red_three", seat=3, card="3h", source="pile"),
        _ev(type="discard", seat=3, card="5d"),
        _ev(type="drew", seat=0, replacement=False),
        _ev(type="meld", seat=0, rank="A", cards=["Ah", "Ad", "Ac", "2h", "2d", "Ah", "Ad"],
            concealed_canasta=False),
        _ev(type="discard", seat=0, card="6c"),
        _ev(type="drew", seat=1, replacement=False),
        _ev(type="red_three", seat=1, card="3h", source="stock"),
        _ev(type="drew", seat=1, replacement=True),
        _ev(type="add", seat=1, rank="7", card="7d"),
        _ev(type="add", seat=1, rank="7", card="7h"),   # the seventh seven: seat 1's canasta
        _ev(type="discard", seat=1, card="6d"),
        _ev(type="drew", seat=2, replacement=False),
        _ev(type="add", seat=2, rank="Q", card="Qd"),
        _ev(type="add", seat=2, rank="Q", card="Qh"),   # the seventh queen: seat 2's canasta
        _ev(type="discard", seat=2, card="6s"),
        _ev(type="drew", seat=3, replacement=False),
        _ev(type="discard", seat=3, card="6h"),
        _ev(type="drew", seat=0, replacement=False),
        _ev(type="add", seat=0, rank="Q", card="2c"),   # the queens become mixed
        _ev(type="discard", seat=0, card="8h"),
        _ev(type="drew", seat=1, replacement=False),
        _ev(type="discard", seat=1, card="8d"),
        _ev(type="drew", seat=2, replacement=False),
        _ev(type="add", seat=2, rank="A", card="Ac"),
        _ev(type="discard", seat=2, card="9h"),
        _ev(type="went_out", seat=2, concealed=False),
        _ev(type="hand_ended", hand=1, reason="went_out",
            hands=[["Jo", "2s"], ["Ks", "5h", "2c"], [], ["Jo", "3s"]],
            scores={"hand": 1, "reason": "went_out", "went_out": 2, "concealed": False,
                    "sides": [_side(mixed_canastas=2, hand_penalty=-70),
                              _side(natural_canastas=1, red_threes=3, hand_penalty=-90)]},
            totals=[0, 0]),
    ]


def _hand_two() -> list[dict[str, Any]]:
    """Seat 0 takes a pile of 10 with a new meld of kings and completes them (natural); the
    stock runs out."""
    return [
        _ev(type="hand_started", hand=2, dealer=0, minimums=[50, 50]),
        _ev(type="meld", seat=0, rank="K", cards=["Kh", "Kd", "Kc"], concealed_canasta=False),
        _ev(type="took_pile", seat=0, top="Kh", **{"with": ["Kd", "Kc"]}),
        _ev(type="picked_up", seat=0, cards=["4c", "5c", "6c", "7c", "8c", "9c", "Ks", "Ks",
                                             "Kh"]),
        *(_ev(type="add", seat=0, rank="K", card=c) for c in ("Ks", "Ks", "Kh", "Kd")),
        _ev(type="hand_ended", hand=2, reason="stock_exhausted",
            hands=[["4c"], ["Jo", "Jo"], ["Ah"], ["Kc"]],
            scores={"hand": 2, "reason": "stock_exhausted", "went_out": None,
                    "concealed": False, "sides": [_side(), _side()]},
            totals=[0, 0]),
    ]


def _unfinished_hand() -> list[dict[str, Any]]:
    """A hand cut short (the game forfeited): none of it counts."""
    return [
        _ev(type="hand_started", hand=3, dealer=1, minimums=[50, 50]),
        _ev(type="red_three", seat=0, card="3d", source="deal"),
        _ev(type="meld", seat=2, rank="J", cards=["Jh"] * 7, concealed_canasta=True),
        _ev(type="took_pile", seat=3, top="8h", **{"with": ["8d", "8c"]}),
        _ev(type="went_out", seat=1, concealed=True),
    ]


def _result(*seats: tuple[int, float]) -> dict[str, Any]:
    return {"type": "result", "game": 1, "winner": None, "reason": "forfeit",
            "seats": [{"name": "x", "decisions": d, "time_ms": ms, "default_moves": 0}
                      for d, ms in seats]}


def _made_record() -> list[dict[str, Any]]:
    return [_header(CLASSIC), *_hand_one(), *_hand_two(), *_unfinished_hand(),
            _result((40, 100.0), (50, 25.0), (20, 10.0), (0, 0.0))]


def _stats(**counts: float) -> PlayStats:
    return PlayStats(**counts)  # type: ignore[arg-type]


EXPECTED = [
    _stats(hands=2, pile_takes=1, pile_cards=10, natural_canastas=1, mixed_canastas=1,
           stock_hands=1, decisions=40, decision_ms=100.0),
    _stats(hands=2, pile_takes=1, pile_cards=6, natural_canastas=1, red_threes=2, caught=1,
           caught_points=35, stock_hands=1, decisions=50, decision_ms=25.0),
    _stats(hands=2, went_out=1, mixed_canastas=1, stock_hands=1, decisions=20,
           decision_ms=10.0),
    _stats(hands=2, pile_takes=1, pile_cards=3, red_threes=1, caught=1, caught_points=55,
           stock_hands=1),
]


def test_each_count_of_a_record_made_by_hand() -> None:
    assert seat_stats(_made_record()) == EXPECTED


def test_each_figure_of_a_record_made_by_hand() -> None:
    s0, s1, s2, s3 = seat_stats(_made_record())
    # hands: the two that ended (the third was cut short)
    assert [s.hands for s in (s0, s1, s2, s3)] == [2, 2, 2, 2]
    # go-out rate, concealed too
    assert s2.go_out_rate == 0.5 and s2.concealed_rate == 0.0
    assert s0.go_out_rate == s1.go_out_rate == s3.go_out_rate == 0.0
    # pile takes per hand, and the mean pile taken (its top card counted)
    assert s0.takes_per_hand == s1.takes_per_hand == s3.takes_per_hand == 0.5
    assert s2.takes_per_hand == 0.0
    assert (s0.mean_pile, s1.mean_pile, s2.mean_pile, s3.mean_pile) == (10.0, 6.0, None, 3.0)
    # canastas per hand: natural and mixed, as the hand was scored, to the seat completing
    assert (s0.natural_per_hand, s0.mixed_per_hand) == (0.5, 0.5)
    assert (s1.natural_per_hand, s1.mixed_per_hand) == (0.5, 0.0)
    assert (s2.natural_per_hand, s2.mixed_per_hand) == (0.0, 0.5)
    assert (s3.natural_per_hand, s3.mixed_per_hand) == (0.0, 0.0)
    # red threes laid, per hand
    assert [s.red_threes_per_hand for s in (s0, s1, s2, s3)] == [0.0, 1.0, 0.0, 0.5]
    # mean points left when another side went out: only the other side's seats
    assert (s0.mean_left, s1.mean_left, s2.mean_left, s3.mean_left) == (None, 35.0, None, 55.0)
    # stock-exhaustion hands
    assert [s.stock_hands for s in (s0, s1, s2, s3)] == [1, 1, 1, 1]
    # mean decision time, from the result line
    assert (s0.mean_decision_ms, s1.mean_decision_ms, s2.mean_decision_ms,
            s3.mean_decision_ms) == (2.5, 0.5, 0.5, None)


def test_bots_sum_their_seats_over_the_games_by_their_seatings() -> None:
    seats = seat_stats(_made_record())
    per_bot = bot_stats([(["a", "b", "a", "b"], seats), (["b", "a", "b", "a"], seats)])
    everything = PlayStats()
    for s in seats:
        everything.add(s)
    assert per_bot["a"] == per_bot["b"] == everything
    one = bot_stats([(["a", "b", "a", "b"], seats)])
    assert one["a"].hands == 4 and one["a"].went_out == 1 and one["a"].pile_cards == 10
    assert one["a"].go_out_rate == 0.25 and one["a"].mean_decision_ms == 110 / 60
    assert one["b"].caught == 2 and one["b"].mean_left == 45.0
    assert one["b"].mean_pile == 4.5 and one["b"].red_threes_per_hand == 0.75
    assert one["b"].mean_decision_ms == 0.5  # seat 3 made no decision: only seat 1's count


def test_cutthroat_partners_share_their_melds_and_their_side() -> None:
    """Three-player cut-throat: seat 0 takes the pile and plays alone; the eights of seats 1
    and 2 merge into one canasta, the older meld's owner (seat 1) credited; seat 1 goes out,
    so seat 0 (the other side) counts its 80 points, seat 2 (the partner) nothing."""
    lines = [
        _header(CUTTHROAT),
        _ev(type="hand_started", hand=1, dealer=2, minimums=[50, 50, 50]),
        _ev(type="meld", seat=1, rank="8", cards=["8h", "8d", "8c"], concealed_canasta=False),
        _ev(type="meld", seat=2, rank="8", cards=["8s", "8h", "8d", "8c"],
            concealed_canasta=False),
        _ev(type="meld", seat=0, rank="9", cards=["9h", "9d", "9c"], concealed_canasta=False),
        _ev(type="took_pile", seat=0, top="9h", **{"with": ["9d", "9c"]}),
        _ev(type="partners", lone=0, partners=[1, 2], merged=["8"]),
        _ev(type="picked_up", seat=0, cards=["4c"]),
        _ev(type="add", seat=2, rank="8", card="2c"),
        _ev(type="went_out", seat=1, concealed=False),
        _ev(type="hand_ended", hand=1, reason="went_out",
            hands=[["Jo", "4c", "4d", "4h", "4s", "Ks"], [], ["Ah"]], scores={}, totals=[]),
    ]
    s0, s1, s2 = seat_stats(lines)
    assert (s1.natural_canastas, s1.mixed_canastas) == (0, 1)
    assert s2.natural_canastas == s2.mixed_canastas == 0
    assert (s0.caught, s0.caught_points, s2.caught) == (1, 80, 0)
    assert (s0.pile_takes, s0.pile_cards) == (1, 2)


def test_a_record_without_readable_rules_is_a_record_error() -> None:
    with pytest.raises(RecordError):
        seat_stats([{"type": "header", "rules": {"players": "four"}}])
    with pytest.raises(RecordError):
        seat_stats([{"type": "header"}])


def test_damaged_events_are_left_out() -> None:
    lines = [_header(CLASSIC), _ev(type="hand_started"), _ev(type="red_three", seat=9),
             _ev(type="took_pile", seat=True), _ev(type="add", seat=0, rank=7, card=None),
             _ev(type="went_out", seat=-1), {"type": "event", "event": "junk"},
             _ev(type="hand_ended", reason="went_out", hands="junk"),
             {"type": "result", "seats": [{"decisions": "x"}, None]}]
    assert seat_stats(lines) == [_stats(hands=1) for _ in range(4)]


def _record_of(state: Any, result: dict[str, Any]) -> list[dict[str, Any]]:
    """A record's lines of an engine game, as the referee writes them (the public view)."""
    lines = [_header(CLASSIC)]
    lines += [{"type": "event", "event": e.view(-1)} for e in state.events()]
    lines.append(result)
    on_disk: list[dict[str, Any]] = json.loads(json.dumps(lines))  # the enums as text
    return on_disk


STACKED = """seat0: Kh Kd Kc Ks Kh Kd Kc Ks Ah 5c 6c
seat1: Ad Ac 4c 4d 6d 7d 8d 9d 10d Jd Qd
seat2: 3h 4h 6h 7h 8h 9h 10h Jh Qh Js Qs
seat3: 4s 6s 7s 8s 9c 10c Jc Qc 4d 7c 8c
stock: 9s 10s 5d 7s 8s 5h"""


def test_a_stacked_hand_played_through_the_engine() -> None:
    """Seat 2 lays the red three it was dealt; seat 0 discards an ace, which seat 1 takes
    with its pair (the pile: the upcard and the ace); seat 0 then lays eight kings and three
    fives and goes out concealed.  Seat 1 keeps 70 points (4c 4d 6d 7d 8d 9d 9s Jd Qd), seat 3
    keeps 90.  The next hand is dealt but never ends: none of it counts."""
    rules = preset("classic")
    state = new_game(rules, decks=parse_deck_text(STACKED, rules, dealer=3), dealer=3)
    for move in ("draw", "discard A", "pile A A", "discard 10", "draw", "discard J", "draw",
                 "discard 4", "draw", "meld K K K K K K K K", "meld 5 5 5", "discard 6"):
        state = apply(state, move)
    assert state.results[0].went_out == 0 and state.results[0].concealed
    s0, s1, s2, s3 = seat_stats(_record_of(state, _result((3, 3.0), (2, 1.0), (2, 1.0),
                                                          (2, 5.0))))
    assert [s.hands for s in (s0, s1, s2, s3)] == [1, 1, 1, 1]
    assert (s0.went_out, s0.went_out_concealed, s0.go_out_rate, s0.concealed_rate) == (1, 1, 1.0,
                                                                                        1.0)
    assert (s1.pile_takes, s1.takes_per_hand, s1.mean_pile) == (1, 1.0, 2.0)
    assert (s0.natural_canastas, s0.mixed_canastas) == (1, 0)
    assert sum(s.natural_canastas + s.mixed_canastas for s in (s1, s2, s3)) == 0
    assert [s.red_threes for s in (s0, s1, s2, s3)] == [0, 0, 1, 0]
    assert (s0.mean_left, s1.mean_left, s2.mean_left, s3.mean_left) == (None, 70.0, None, 90.0)
    assert sum(s.stock_hands for s in (s0, s1, s2, s3)) == 0
    assert [s.mean_decision_ms for s in (s0, s1, s2, s3)] == [1.0, 0.5, 0.5, 2.5]


def _hands_of(lines: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    return [(i, ln["event"]) for i, ln in enumerate(lines) if ln["type"] == "event"
            and ln["event"]["type"] == "hand_ended"]


def _rows(rules: Any, lines: list[dict[str, Any]], end: int) -> list[list[int]]:
    """The rows of melds (seats playing together) when the hand ending at ``end`` ended."""
    start = max(i for i, ln in enumerate(lines[:end]) if ln["type"] == "event"
                and ln["event"]["type"] == "hand_started")
    formed = [ln["event"] for ln in lines[start:end] if ln["type"] == "event"
              and ln["event"]["type"] == "partners"]
    if formed:
        return [[formed[0]["lone"]], list(formed[0]["partners"])]
    return [list(rules.seats_of(side)) for side in range(rules.sides)]


def _per_hand(lines: list[dict[str, Any]]
              ) -> list[tuple[int, dict[str, Any], list[PlayStats]]]:
    """Each hand's end (its line, its event) and its statistics: those up to its end less
    those up to the hand before."""
    out = []
    before = seat_stats(lines[:1])
    for end, ev in _hands_of(lines):
        upto = seat_stats(lines[:end + 1])
        hand = [PlayStats(**{k: getattr(a, k) - getattr(b, k) for k in vars(a)})
                for a, b in zip(upto, before, strict=True)]
        out.append((end, ev, hand))
        before = upto
    return out


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_figures_agree_with_the_engines_scoring(tmp_path: Path, name: str) -> None:
    """On real games of each preset: each row's canastas (natural, mixed), each side's red
    threes, who went out, and the points left in the hands of the sides that did not go out
    are what the engine scored."""
    rules = PRESETS[name]
    checked = 0
    for seed in (1, 2):
        lines = load_record(record_game(tmp_path, name, seed, max_hands=3))
        for end, ev, hand in _per_hand(lines):
            sides = ev["scores"]["sides"]
            rows = _rows(rules, lines, end)
            for row in rows:  # a row's score (any of its sides': they share it)
                side = sides[rules.side_of(row[0])]
                assert sum(hand[s].natural_canastas for s in row) == side["natural_canastas"]
                assert sum(hand[s].mixed_canastas for s in row) == side["mixed_canastas"]
            for k, side in enumerate(sides):
                assert sum(hand[s].red_threes for s in rules.seats_of(k)) == side["red_threes"]
            out = ev["scores"]["went_out"]
            assert [h.went_out for h in hand] == [int(s == out) for s in range(rules.players)]
            if ev["reason"] == "went_out":
                losing = [row for row in rows if out not in row]
                assert sum(hand[s].caught_points for row in losing for s in row) == \
                    -sum(sides[rules.side_of(row[0])]["hand_penalty"] for row in losing)
            assert all(h.hands == 1 for h in hand)
            assert all(h.stock_hands == (ev["reason"] in ("stock_exhausted", "last_red_three"))
                       for h in hand)
            checked += 1
    assert checked >= 2


def test_canasta_report_prints_the_statistics_of_play(tmp_path: Path) -> None:
    """A tiny tournament with --records: the text report's table (within 80 columns) agrees
    with the records, and the HTML page has the section, the bot names escaped."""
    out = tmp_path / "t"
    run_tournament(out, "g=builtin:greedy", f"{SCRIPT_NAME}=builtin:random", games=1,
                   extra=("--records",))
    proc = subprocess.run([CANASTA, "report", str(out)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    at = lines.index("Statistics of play, per hand (from the records of 2 games):")
    head, *bots = lines[at + 1:at + 4]
    assert head.split() == ["bot", "hands", "out%", "conc%", "take/h", "pile", "nat/h",
                            "mix/h", "red3/h", "left", "stock", "ms/dec"]
    assert all(len(x) <= 80 for x in (head, *bots))
    g_line = next(x for x in bots if x.startswith("g "))
    assert any(x.startswith(SCRIPT_NAME[:11] + " ") for x in bots)
    t = load_tournament(out)
    table = play_table(t)
    assert table is not None and table.games == 2 and table.unread == 0
    by_bot = dict(table.bots)
    expected = PlayStats()
    for row in t.rows:
        seats = seat_stats(load_record(t.records[row["index"]]))
        for bot, s in zip(row["seating"], seats, strict=True):
            if bot == "g":
                expected.add(s)
    assert by_bot["g"] == expected and expected.hands == 4  # two seats, two one-hand games
    cells = g_line.split()
    assert cells[:2] == ["g", "4"] and cells[2] == f"{100 * expected.went_out / 4:.0f}"
    page = report_html(t, {})
    section = page[page.index('<section id="play">'):]
    section = section[:section.index("</section>")]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in section and "<script>" not in section
    assert 'id="playstats"' in section
    assert report_text(t, 80).count("Statistics of play") == 1


def test_without_records_the_report_says_what_is_needed(tmp_path: Path) -> None:
    out = tmp_path / "plain"
    run_tournament(out, "g=builtin:greedy", "r=builtin:random", games=1)
    t = load_tournament(out)
    assert play_table(t) is None
    text = report_text(t, 80).splitlines()
    said = [x for x in text if x.startswith("Statistics of play")]
    assert said == ["Statistics of play: none, they need the game records (tournament --records)"]
    assert "The statistics of play need the game records" in report_html(t, {})


def test_an_unreadable_record_is_counted_not_fatal(tmp_path: Path) -> None:
    out = tmp_path / "t"
    run_tournament(out, "g=builtin:greedy", "r=builtin:random", games=1, extra=("--records",))
    (out / "records" / "game-0002.jsonl").write_text('{"type": "header", "rules": 7}\n')
    t = load_tournament(out)
    table = play_table(t)
    assert table is not None and (table.games, table.unread) == (1, 1)
    assert "from the records of 1 game; 1 record unreadable" in report_text(t, 80)
