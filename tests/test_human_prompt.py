"""The human seat's input: completion, validation, commands, the plain-pipe mode."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from canasta_cli.core import CLASSIC, GameState, legal_moves, new_game
from canasta_cli.core.cards import KIND_OF
from canasta_cli.protocol.messages import ActRequest, act_message
from canasta_cli.ui.prompt import Choice, InputError, MoveCompleter, Terminal, check_input
from canasta_cli.ui.render import Style, hand_line, render_table

ROOT = Path(__file__).resolve().parent.parent


def _act() -> tuple[GameState, ActRequest, int]:
    st = new_game(CLASSIC, seed=5, dealer=3)
    from canasta_cli.core import apply
    st = apply(st, legal_moves(st)[0])  # seat 0 draws: now melds and discards are legal
    msg = act_message(1, 1, st, legal_moves(st), 1000, 0, explains=True)
    top = KIND_OF[st.pile[-1]]
    return st, msg, top


def test_check_input_accepts_legal_moves_in_any_spelling() -> None:
    st, msg, top = _act()
    legal = [m["text"] for m in msg.moves()]
    discard = next(t for t in legal if t.startswith("discard"))
    assert check_input(discard.upper(), legal, top, msg.explain) == Choice(move=discard)
    assert check_input("  moves ", legal, top, msg.explain) == Choice(command="moves")
    assert check_input("?", legal, top, msg.explain) == Choice(command="help")


@pytest.mark.parametrize(("text", "message"), [
    ("", "type a move"),
    ("fly", "unknown move 'fly'"),
    ("meld K Q 2", "single rank"),
    ("draw", "'draw' is not allowed: you have already drawn this turn"),
    ("meld 3 3 3", "not allowed"),
])
def test_check_input_explains_what_is_wrong(text: str, message: str) -> None:
    st, msg, top = _act()
    legal = [m["text"] for m in msg.moves()]
    with pytest.raises(InputError, match=message):
        check_input(text, legal, top, msg.explain)


def test_completer_offers_the_legal_moves_that_match() -> None:
    st, msg, top = _act()
    legal = [m["text"] for m in msg.moves()]
    comp = MoveCompleter(lambda: [*legal, "help", "moves"])
    got = [c.text for c in comp.get_completions(Document("disc"), CompleteEvent())]
    assert got == [t for t in legal if t.startswith("discard")] and got
    assert [c.text for c in comp.get_completions(Document("mo"), CompleteEvent())] == ["moves"]


def test_prompt_refuses_an_illegal_move_then_takes_a_legal_one() -> None:
    st, msg, top = _act()
    legal = [m["text"] for m in msg.moves()]
    discard = next(t for t in legal if t.startswith("discard"))
    with create_pipe_input() as inp:
        # An illegal move (refused by the validator, the line stays), Ctrl-U clears it,
        # then the partial "disc" completed with Tab... typed out in full for determinism.
        inp.send_text("draw\r\x15" + discard + "\r")
        term = Terminal(True, pt_input=inp, pt_output=DummyOutput())
        choice = term.read_line("> ", lambda t: check_input(t, legal, top, msg.explain),
                                lambda: legal)
    assert choice == Choice(move=discard)


def test_table_shows_hand_pile_melds_scores() -> None:
    st, msg, top = _act()
    text = render_table(msg.observation(), [], ["you", "b", "c", "d"], Style(color=False))
    assert "Your hand (12)" in text and "Stock" in text and "Pile 1 card" in text
    assert "needs 50 to meld" in text and "frozen for you" in text
    ascii_text = render_table(msg.observation(), [], ["you", "b", "c", "d"],
                              Style(color=False, ascii=True))
    assert "\u2665" not in ascii_text and "\u2660" not in ascii_text


def test_hand_is_grouped_by_rank_with_wild_cards_first_and_colours() -> None:
    line = hand_line(["4c", "Kh", "2c", "Jo", "Kd", "As"], Style(color=True))
    assert line.index("Jo") < line.index("2") < line.index("A") < line.index("K")
    assert "\x1b[31mK\u2665\x1b[0m" in line  # red suits in red
    plain = hand_line(["Kh", "Kd"], Style(color=False))
    assert plain == "K\u2665 K\u2666"


def test_plain_pipe_mode_plays_and_saves(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "canasta_cli.cli", "play", "--seed", "5",
                          "--level", "normal", "--save-dir", str(tmp_path)],
                         input="moves\ndraw\nbogus\nquit\n",
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "Legal moves: draw" in out.stdout
    assert "unknown move 'bogus'" in out.stdout
    assert "Game saved to" in out.stdout and "\x1b[" not in out.stdout
    saved = list(tmp_path.glob("*.jsonl"))
    assert len(saved) == 1


def test_resuming_a_finished_game_is_refused(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "canasta_cli.cli", "play", "--seed", "5",
                           "--save-dir", str(tmp_path), "--seat", "human", "--seat",
                           "builtin:greedy", "-r", "two-player", "--set", "max_turns=2"],
                          input="draw\ndiscard 4\ndiscard 5\ndiscard 6\ndiscard 7\n",
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert "Replay it with: " in done.stdout and " replay " in done.stdout, done.stdout[-500:]
    record = next(tmp_path.glob("*.jsonl"))
    again = subprocess.run([sys.executable, "-m", "canasta_cli.cli", "play", "--resume",
                            str(record)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert again.returncode == 2 and "already over" in again.stderr


def test_score_command_lists_hands_and_totals() -> None:
    from canasta_cli.ui.render import render_scores
    st, msg, top = _act()
    obs = msg.observation()
    event = {"hand": 1, "scores": {"sides": [{"total": 640}, {"total": -35}]}}
    text = render_scores({**obs, "scores": [640, -35]}, [event], True)
    lines = text.splitlines()
    assert lines[0].split() == ["hand", "us", "them"]
    assert lines[1].split() == ["1", "+640", "-35"] and lines[2].split() == ["total", "640", "-35"]
    assert lines[3].startswith("needs")


def test_hot_seat_hand_over_clears_the_scrollback_too() -> None:
    import io
    out = io.StringIO()
    with create_pipe_input() as inp:
        term = Terminal(True, pt_input=inp, pt_output=DummyOutput(), out=out)
        term.clear()
    assert out.getvalue().startswith("\x1b[H\x1b[2J\x1b[3J")  # the screen, then saved lines
    assert "Pile 1 card," in render_table(_act()[1].observation(), [], ["a", "b", "c", "d"],
                                          Style(color=False))


def test_the_story_names_players_and_tells_a_pile_take_as_one_action() -> None:
    from canasta_cli.ui.event_text import story
    from canasta_cli.ui.render import seat_labels
    labels = seat_labels(0, ["human", "builtin:greedy", "human:Ann", "x"], True)
    assert labels == ["You", "Left", "Ann", "Right"]
    assert seat_labels(2, ["a", "b", "c", "d", "e", "f"], True)[4] == "Left 2"
    assert seat_labels(1, ["a", "b"], False) == ["Opponent", "You"]
    events = [{"type": "discard", "seat": 0, "card": "9h"},
              {"type": "meld", "seat": 1, "rank": "K", "cards": ["Kh", "Kd", "Ks"],
               "concealed_canasta": False},
              {"type": "took_pile", "seat": 1, "top": "Kh", "with": ["Kd", "Ks"]},
              {"type": "picked_up", "seat": 1, "cards": ["9h"] * 8},
              {"type": "drew", "seat": 0, "card": "4c", "replacement": False}]
    lines = story(events, lambda s: labels[s])
    assert lines == ["You discard 9h", "Left takes the pile (9 cards, Kh on top) with Kd Ks",
                     "You draw 4c"]


def test_meld_labels_read_as_ranks() -> None:
    from canasta_cli.ui.render import meld_line
    meld = {"rank": "A", "cards": ["As", "Ad", "Jo"], "canasta": None}
    assert meld_line(meld, Style(color=False)).startswith("Aces \u00d73: ")
    assert meld_line(meld, Style(color=False, ascii=True)).startswith("Aces x3: ")


def test_the_end_of_a_hand_tells_how_it_ended() -> None:
    import json as _json
    from pathlib import Path as _Path

    from canasta_cli.ui.render import Side, render_hand_end
    example = _Path(__file__).resolve().parent.parent / "protocol" / "examples" / "valid"
    event = _json.loads((example / "event.hand_ended.json").read_text())["event"]
    text = render_hand_end(event, Side(0, True, ["You", "Left", "Partner", "Right"]),
                           Style(color=False), ["Partner goes out"])
    lines = text.splitlines()
    assert lines[0] == "== Hand 1 is over: Partner went out =="
    assert "Partner goes out" in text
    assert any(x.split() == ["Left", "2\u2660*", "6\u2666", "7\u2660", "(30", "points)"]
               for x in lines), text
    assert text.index("Cards left:") < text.index("Game total")


def _opening() -> tuple[GameState, ActRequest, int]:
    """Seat 0 holds K K K A A A 9 ...: K K K alone (30) is under the minimum of 50."""
    from canasta_cli.core import apply, parse_deck_text
    decks = parse_deck_text("seat0: Kh Kd Kc Ah Ad Ac 9h 5c 6d 7s 8c\nstock: 4d 4s 4h",
                            CLASSIC, dealer=3, seed=1)
    st = new_game(CLASSIC, seed=1, decks=decks, dealer=3)
    st = apply(st, legal_moves(st)[0])  # draw
    msg = act_message(1, 1, st, legal_moves(st), 1000, 0, explains=True)
    return st, msg, KIND_OF[st.pile[-1]]


def test_a_line_of_several_moves_is_checked_whole() -> None:
    st, msg, top = _opening()
    legal = [m["text"] for m in msg.moves()]
    choice = check_input("meld K K K; meld A A A; discard 9", legal, top, msg.explain,
                         msg.sequence)
    assert choice == Choice(move="meld K K K", then=("meld A A A", "discard 9"))
    with pytest.raises(InputError, match=r"nothing was played: 'discard 9' \(move 2 of 2\)"):
        check_input("meld K K K; discard 9", legal, top, msg.explain, msg.sequence)
    with pytest.raises(InputError, match="nothing was played: 'meld Q Q Q'"):
        check_input("meld K K K; meld Q Q Q", legal, top, msg.explain, msg.sequence)
    with pytest.raises(InputError, match="cannot be checked here"):
        check_input("meld K K K; meld A A A", legal, top, msg.explain, None)


def test_a_first_meld_line_short_of_the_minimum_says_its_total() -> None:
    from canasta_cli.core import apply, parse_deck_text
    decks = parse_deck_text("seat0: Kh Kd Kc Ah Ad Ac 9h 5c 6d 7s 8c\nstock: 4d 4s 4h",
                            CLASSIC, dealer=3, seed=1)
    st = new_game(CLASSIC, seed=1, decks=decks, dealer=3, scores=[3000, 0])
    st = apply(st, legal_moves(st)[0])  # draw; the minimum is 120
    msg = act_message(1, 1, st, legal_moves(st), 1000, 0, explains=True)
    legal = [m["text"] for m in msg.moves()]
    with pytest.raises(InputError, match=r"^nothing was played: the melds of this line total"
                       r" 90, short of your side's minimum of 120"):
        check_input("meld K K K; meld A A A; discard 9", legal, KIND_OF[st.pile[-1]],
                    msg.explain, msg.sequence)


def test_nothing_may_follow_a_draw_in_one_line() -> None:
    from canasta_cli.core import parse_move
    from canasta_cli.core.engine import check_sequence
    st = new_game(CLASSIC, seed=1, dealer=3)
    problem = check_sequence(st, [parse_move("draw"), parse_move("discard 9")])
    assert problem is not None and problem[0] == 1 and "not known yet" in problem[1]


def test_the_human_seat_plays_a_checked_line_whole(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    """Through the referee: a refused line lays nothing down, the next one is played whole."""
    import io
    import json

    from canasta_cli.core import parse_deck_text
    from canasta_cli.hosting.referee import GameStart, Referee
    from canasta_cli.seats import builtin_seat
    from canasta_cli.seats.human import HumanSeat, SharedTable
    lines = ("draw\nmeld K K K; meld Q Q Q; discard 9\nmeld K K K; meld A A A; discard 9\nlog\n"
             "help\nquit\n")
    monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
    out = io.StringIO()
    table = SharedTable(Terminal(False, out=out), Style(color=False))
    seats = [HumanSeat(table), *(builtin_seat("builtin:greedy", i) for i in (1, 2, 3))]
    decks = parse_deck_text("seat0: Kh Kd Kc Ah Ad Ac 9h 5c 6d 7s 8c\nstock: 4d 4s 4h",
                            CLASSIC, dealer=3, seed=1)
    ref = Referee(seats, CLASSIC.with_options(max_hands=1))
    record = tmp_path / "game.jsonl"
    result = ref.play(1, 1, GameStart(decks, 3), record)
    text = out.getvalue()
    assert "refused: nothing was played: 'meld Q Q Q' (move 2 of 3)" in text
    assert result.reason == "saved"
    rows = [json.loads(x) for x in record.read_text().splitlines()]
    mine = [r["move"] for r in rows if r["type"] == "move" and r["seat"] == 0]
    assert mine == ["draw", "meld K K K", "meld A A A", "discard 9"]
    assert all(r["by"] == "human" for r in rows if r["type"] == "move" and r["seat"] == 0)
    assert "Aces \u00d7" in text and "Kings \u00d7" in text  # the partner may add to them
    log = text[text.rindex("> log"):]  # the whole hand so far, named from the person's seat
    assert "You meld K\u2663 K\u2666 K\u2665" in log and "You discard 9\u2665" in log and "Left " in log
    assert "the one place that prints" not in text  # help holds no developer text


def test_lines_wrap_between_cards_never_inside_one() -> None:
    import re

    from canasta_cli.ui.render import fit, visible_len
    style = Style(color=True)
    hand = ["Jo", "2c", "As", "Ad", "Kh", "Kd", "Kc", "10h", "10s", "9d", "8c", "7h", "6s", "5d",
            "4c", "4h"]
    line = "Your hand (16): " + hand_line(hand, style)
    for width in (80, 60, 40):
        out = fit(line, width).split("\n")
        assert all(visible_len(x) <= width for x in out)
        plain = [re.sub(r"\x1b\[[0-9;]*m", "", x) for x in out]
        tokens = " ".join(plain).split()
        # every card survives whole: wrapping changed nothing but where lines break
        assert tokens == re.sub(r"\x1b\[[0-9;]*m", "", line).split()
    assert fit(line, 0) == line  # pipes: as it is


def test_the_terminal_fits_text_to_its_width(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    monkeypatch.setenv("COLUMNS", "60")
    out = io.StringIO()
    with create_pipe_input() as inp:
        term = Terminal(True, pt_input=inp, pt_output=DummyOutput(), out=out)
        term.show("word " * 40)
    assert all(len(x) <= 60 for x in out.getvalue().splitlines())
    assert len(out.getvalue().splitlines()) >= 4


def test_a_black_three_on_top_invites_no_take() -> None:
    from canasta_cli.core import apply, parse_deck_text, parse_move
    decks = parse_deck_text("seat0: 3s 5c 6d 7s 8c 9h 10h Jh Qh Kh Ah\nstock: 4d 4s 4h 4c",
                            CLASSIC, dealer=3, seed=1)
    st = new_game(CLASSIC, seed=1, decks=decks, dealer=3)
    st = apply(apply(st, parse_move("draw")), parse_move("discard 3"))
    msg = act_message(1, 1, st, legal_moves(st), 1000, 0, explains=True)
    text = render_table(msg.observation(), [], ["a", "b", "c", "d"], Style(color=False))
    assert "top 3\u2660 - a black three: nobody may take it this turn" in text
    assert not any(m["text"].startswith("pile") for m in msg.moves())


def test_seats_can_be_named() -> None:
    from canasta_cli.seats import make_seat
    from canasta_cli.ui.render import seat_labels
    names = ["human", "Bob=builtin:greedy", "human:Ann", "python3 x.py --level=2"]
    assert seat_labels(0, names, True) == ["You", "Bob", "Ann", "Right"]
    seat = make_seat("Bob=builtin:greedy", 1, 5, None)
    assert seat.name == "Bob=builtin:greedy"  # the whole spec: a save can start it again


def test_tab_choices_fit_the_screen_and_count_the_rest() -> None:
    from canasta_cli.ui.prompt import choices_text
    moves = [f"meld {r} {r} {r}" for r in ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")]
    text = choices_text(moves, 40, 24)
    assert all(len(r) <= 40 for r in text.splitlines()) and len(text.splitlines()) <= 21
    assert sorted(m.strip() for r in text.splitlines() for m in r.split("  ") if m.strip()) \
        == sorted(moves)
    short = choices_text(moves, 40, 6)  # 6 rows: 3 for the listing, the last one a count
    assert len(short.splitlines()) == 3 and short.splitlines()[-1].startswith("  ... and 7 more")
    assert choices_text(moves, 0, 0).splitlines() == [f"  {m}" for m in moves]  # no terminal
