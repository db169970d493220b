"""``canasta review``: each decision of one seat set against the search, from that seat's view
only (re-dealing the hidden cards the record holds changes nothing), the flags and their
bands, the summaries, the text and the HTML page, the errors, and the line ``canasta play``
prints at the end of a game."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import SAME_CANASTA, random_against_normal, recorded_deck

from canasta_cli.core import GameState, observation
from canasta_cli.core.cards import KIND_OF, RED3
from canasta_cli.hosting.records import load_record
from canasta_cli.hosting.replay import Replay
from canasta_cli.table.review import (
    BLUNDER,
    DEFAULT_DEALS,
    DEFAULT_THRESHOLD,
    MISTAKE,
    Review,
    ReviewPlan,
    judge,
    review_game,
    run,
    seat_view,
    verdict,
)
from canasta_cli.table.review_text import review_lines

ROOT = Path(__file__).resolve().parent.parent
SEED = 1  # a one-hand two-player game: builtin:random (seat 0) against builtin:normal
DEALS = 16


def _cli(*args: str, cwd: Path = ROOT, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *SAME_CANASTA, "-m", "canasta_cli.cli", *args],
                          cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120,
                          check=False)


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return random_against_normal(tmp_path_factory.mktemp("review") / "records", SEED)


@pytest.fixture(scope="module")
def reviewed(record: Path) -> Review:
    return run(ReviewPlan(record, 0, deals=DEALS))


def test_a_random_seat_s_blunders_are_flagged_with_reasons(reviewed: Review) -> None:
    r = reviewed
    assert len(r.decisions) >= 10 and r.forced >= 1 and r.finished
    flagged = [d for d in r.decisions if d.verdict]
    assert flagged, [(d.played.move, d.best.move, d.loss, d.loss_half) for d in r.decisions]
    for d in r.decisions:
        assert d.played.deals == DEALS and d.best.deals == DEALS
        assert d.played.low <= d.played.mean <= d.played.high
        if d.agrees:
            assert (d.loss, d.loss_half, d.verdict) == (0.0, 0.0, "")
        assert d.verdict == verdict(d.loss, d.loss_half, r.threshold)
        assert bool(d.reason) == bool(d.verdict)
    for d in flagged:
        assert d.loss - d.loss_half > 0 and d.loss > r.threshold and not d.agrees
    total = r.total()
    assert total.decisions == len(r.decisions)
    assert total.lost == pytest.approx(sum(h.lost for h in r.hands()))
    assert total.blunders + total.mistakes == len(flagged)
    assert r.worst()[0].loss == max(d.loss for d in flagged)


def test_the_bands(reviewed: Review) -> None:
    assert verdict(200, 20, 50) == BLUNDER
    assert verdict(120, 20, 50) == MISTAKE
    assert verdict(120, 130, 50) == ""  # the interval reaches 0: not sure enough
    assert verdict(40, 5, 50) == ""
    assert verdict(0.0, 0.0, 0) == ""


def test_the_text_fits_80_columns_and_names_the_flags(reviewed: Review) -> None:
    lines = review_lines(reviewed)
    text = "\n".join(lines)
    assert all(len(line) <= 80 for line in text.splitlines()), \
        max(text.splitlines(), key=len)
    assert "Hand 1" in text and "Game: " in text and "Worst decisions:" in text
    assert re.search(r"loss +\d+ ±\d+ +(BLUNDER|MISTAKE)", text), text
    assert "agree with the search" in text and "forced move" in text


def test_the_review_gives_the_seat_s_statistics_of_play(reviewed: Review, record: Path) -> None:
    from canasta_cli.hosting.playstats import seat_stats
    from canasta_cli.hosting.records import load_record
    assert reviewed.play == seat_stats(load_record(record))[0]
    assert reviewed.play is not None and reviewed.play.hands == 1  # a one-hand game
    text = "\n".join(review_lines(reviewed))
    assert "Statistics of play: 1 hand; went out " in text


def _seat_decisions(rep: Replay, seat: int) -> list[int]:
    return [i for i in range(len(rep.steps) - 1)
            if rep.states[i].actor == seat and rep.steps[i + 1][0] == seat]


def _re_dealt(record: Path, seat: int) -> tuple[Replay, Replay]:
    """The recorded game, and the same game with two cards ``seat`` never sees swapped in
    the deck: one the other player still holds at the seat's last decision (it went out
    before playing it) and one the stock still holds at the end; the first such pair whose
    game replays move for move and shows ``seat`` the same observation at each of its
    decisions.  Both are dealt from the deck's card texts (the engine numbers the copies of
    a card by their order in a stacked deck)."""
    deck, dealt, ids = recorded_deck(record)
    rep = dealt(deck)
    mine = _seat_decisions(rep, seat)
    held = rep.states[mine[-1]].hands[1 - seat]
    left = [c for c in rep.states[-2].stock if KIND_OF[c] != RED3]
    for a in held:
        for b in left:
            if KIND_OF[a] == KIND_OF[b]:
                continue  # another rank: the hidden hand changes, not a suit alone
            order = list(deck)
            i, j = ids.index(a), ids.index(b)
            order[i], order[j] = order[j], order[i]
            alt = dealt(order)
            if len(alt.steps) == len(rep.steps) and all(
                    observation(alt.states[k], seat) == observation(rep.states[k], seat)
                    for k in mine):
                return rep, alt
    raise AssertionError("no two hidden cards could be swapped in this game")


def test_re_dealing_the_hidden_cards_leaves_the_review_unchanged(record: Path) -> None:
    seat = 1  # it went out: the other seat's last cards were never seen
    rep, alt = _re_dealt(record, seat)
    mine = _seat_decisions(rep, seat)

    def kinds(state: GameState, s: int) -> list[int]:
        return sorted(KIND_OF[c] for c in state.hands[s])

    assert any(kinds(alt.states[k], 0) != kinds(rep.states[k], 0) for k in mine)
    assert all(kinds(alt.states[k], 1) == kinds(rep.states[k], 1) for k in mine)
    moves = [ln for ln in load_record(record) if ln["type"] == "move"]
    plan = ReviewPlan(record, seat, deals=6, seed=3)
    one, two = review_game(rep, moves, plan), review_game(alt, moves, plan)
    assert len(one.decisions) >= 10 and one.decisions == two.decisions
    # ... as the judgement of one decision, from the seat's view alone.
    k = mine[len(mine) // 2]
    view = seat_view(rep.states[k], seat)
    assert view == seat_view(alt.states[k], seat)
    assert rep.states[k].hands[0] != alt.states[k].hands[0] or \
        rep.states[k].stock != alt.states[k].stock
    assert judge(view, 0, rep.state.rules, 6, 3) == judge(
        seat_view(alt.states[k], seat), 0, alt.state.rules, 6, 3)


def test_the_page_is_written_whole_and_escapes_names(record: Path, tmp_path: Path) -> None:
    lines = record.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["seats"] = ["<b>Eve&</b>", *header["seats"][1:]]
    odd = tmp_path / "a&b<i>.jsonl"
    odd.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    out = tmp_path / "review.html"
    done = _cli("review", str(odd), "--seat", "0", "--deals", "4", "--html", str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    assert "<b>Eve" not in page and "&lt;b&gt;Eve&amp;&lt;/b&gt;" in page
    assert "a&amp;b&lt;i&gt;.jsonl" in page and "<i>" not in page
    assert page.count("<script>") == 1 and "Content-Security-Policy" in page
    said = re.search(r"(\d+) decisions? agrees? with the search", done.stdout)
    assert said is not None, done.stdout
    decisions = int(said[1])
    plot = re.search(r'<svg class="plot" data-plot="loss" data-marks="(\d+)"', page)
    assert plot is not None and int(plot[1]) == decisions
    assert page.count('class="mark"') == decisions
    assert f"wrote {out}" in done.stdout
    assert "decisions judged" in done.stderr  # the progress


def test_errors_are_one_line_with_exit_code_2(record: Path, tmp_path: Path) -> None:
    cases = [
        (["review", str(tmp_path / "none.jsonl"), "--seat", "0"], "cannot read"),
        (["review", str(record), "--seat", "2"], "--seat must be from 0 to 1"),
        (["review", str(record), "--seat", "0", "--deals", "0"], "--deals must be from 1"),
        (["review", str(record), "--seat", "0", "--threshold", "-5"], "--threshold must be"),
        (["review", str(record), "--seat", "0", "--html", str(tmp_path)], "a directory"),
    ]
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n", encoding="utf-8")
    cases.append((["review", str(junk), "--seat", "0"], "not JSON"))
    for args, said in cases:
        done = _cli(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert done.stderr.startswith("error: ") and said in done.stderr, (args, done.stderr)
        assert done.stderr.count("\n") == 1, done.stderr


def _env(tmp_path: Path) -> dict[str, str]:
    import os
    env = dict(os.environ)
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_CONFIG_HOME=str(tmp_path / "config"))
    return env


def test_an_unfinished_save_is_reviewed_only_from_its_player_s_seat(tmp_path: Path) -> None:
    env = _env(tmp_path)
    saves = tmp_path / "saves"
    base = [sys.executable, *SAME_CANASTA, "-m", "canasta_cli.cli"]
    subprocess.run([*base, "play", "--seed", "5", "--seat", "human", "--seat",
                    "builtin:normal", "-r", "two-player", "--save-dir", str(saves)],
                   input="draw\ndiscard 4\nquit\n", capture_output=True, text=True, timeout=120,
                   cwd=ROOT, env=env, check=True)
    save = next(saves.glob("*.jsonl"))
    other = subprocess.run([*base, "review", str(save), "--seat", "1"], capture_output=True,
                           text=True, timeout=120, cwd=ROOT, env=env, check=False)
    assert other.returncode == 2 and "reviewed only from its player's own seat (--seat 0)" \
        in other.stderr, other.stderr
    own = subprocess.run([*base, "review", str(save), "--seat", "0", "--deals", "4"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT, env=env,
                         check=False)
    assert own.returncode == 0, own.stderr
    assert "not over" in own.stdout and "#1 " in own.stdout


def test_play_offers_the_review_in_its_last_lines_and_it_runs_as_printed(
        tmp_path: Path) -> None:
    env = _env(tmp_path)
    saves = tmp_path / "saves"
    done = subprocess.run(
        [sys.executable, *SAME_CANASTA, "-m", "canasta_cli.cli", "play", "--seed", "5",
         "--seat", "human", "--seat", "builtin:normal", "-r", "two-player", "--set",
         "max_turns=2", "--save-dir", str(saves)],
        input="draw\ndiscard 4\ndiscard 5\ndiscard 6\ndiscard 7\n", capture_output=True,
        text=True, timeout=120, cwd=ROOT, env=env, check=False)
    last = done.stdout.rstrip("\n").splitlines()[-2:]
    assert last[0].startswith("Replay it with: "), done.stdout[-800:]
    assert last[1].startswith("Review it with: "), done.stdout[-800:]
    record = next(saves.glob("*.jsonl"))
    command = last[1].removeprefix("Review it with: ")
    assert command.endswith(f" review {record} --seat 0"), command
    shown = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=120,
                           cwd=tmp_path, env=env, check=False)
    assert shown.returncode == 0, shown.stderr
    assert f"{DEFAULT_DEALS} deals a move" in shown.stdout and "game over" in shown.stdout


def test_the_command_s_defaults_are_the_room_s() -> None:
    from canasta_cli.cli import review as command
    assert command.DEALS == DEFAULT_DEALS and command.THRESHOLD == DEFAULT_THRESHOLD


def test_a_reason_names_the_canastas_made_or_missed() -> None:
    from canasta_cli.table.review import Estimate, Judged, reason
    played = Estimate("discard Q", -300.0, 80.0, 64, 0.0, 0.0, 0.25)
    best = Estimate("add Q", 250.0, 70.0, 64, 0.0, 0.0, 1.0)
    why = reason(Judged(played, best, 550.0, 60.0, None))
    assert why == ("your side completed 1.0 canastas a deal by the hand's end after add Q,"
                   " 0.2 after it")
    same = Estimate("add Q", 250.0, 70.0, 64, 0.0, 0.0, 0.3)
    assert "canastas" not in reason(Judged(played, same, 550.0, 60.0, None))
