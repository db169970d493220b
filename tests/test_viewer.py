"""The HTML replay page's data, the tournament report's data and text, and their escaping
(the pages in a real browser: test_viewer_browser.py)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from viewer_games import CANASTA, HTML_BOT, SCRIPT_NAME, record_game, rows, run_tournament

from canasta_cli.core import PRESETS, observation
from canasta_cli.hosting.records import RecordError, load_record
from canasta_cli.tournament.stats import Sprt
from canasta_cli.ui.event_text import describe_event
from canasta_cli.viewer.htmlsafe import page, script_json
from canasta_cli.viewer.pagedata import CARD, expand, load_replay, replay_data
from canasta_cli.viewer.replay_page import replay_html
from canasta_cli.viewer.tourney import llr_path, load_tournament

LOUD_BOT = f"{sys.executable} {Path(__file__).resolve().parent / 'bots' / 'loud_crash.py'}"


def _embedded(html: str) -> dict[str, object]:
    m = re.search(r'<script type="application/json" id="data">(.*?)</script>', html, re.S)
    assert m is not None
    data: dict[str, object] = json.loads(m.group(1))
    return data


@pytest.mark.parametrize("preset", list(PRESETS))
def test_page_data_is_what_the_replay_computes_at_every_step(tmp_path: Path, preset: str) -> None:
    """For every step and every view, the embedded data gives back the seat's observation of
    the replayed state and the event lines, as ``canasta replay`` computes them."""
    record = record_game(tmp_path, preset, seed=11)
    rep, lines, public = load_replay(record)
    assert rep.ok and not public
    data = _embedded(replay_html(replay_data(rep, lines, public)))
    n = PRESETS[preset].players
    assert data["views"] == ["public", *map(str, range(n)), "all"]
    for seat in range(n):
        steps = expand(data, str(seat))
        assert len(steps) == len(rep.states) > 10
        for step, state, (who, move, evs) in zip(steps, rep.states, rep.steps, strict=True):
            assert step["obs"] == observation(state, seat, history=False)
            assert step["lines"] == [describe_event(e.view(seat), card=CARD) for e in evs]
            assert (step["seat"], step["move"]) == (who, move)
    for step, state, (_, _, evs) in zip(expand(data, "all"), rep.states, rep.steps, strict=True):
        assert step["obs"]["hands"] == [observation(state, s, history=False)["hand"]
                                        for s in range(n)]
        assert step["lines"] == [describe_event(e.full(), card=CARD) for e in evs]
    public_steps = expand(data, "public")
    assert all("hand" not in s["obs"] for s in public_steps)


def _replay_output(record: Path, *args: str) -> list[list[str]]:
    """``canasta replay`` printed, cut into steps (the deal, then one per move)."""
    out = subprocess.run([CANASTA, "replay", str(record), *args], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    steps: list[list[str]] = [[]]
    for line in out.splitlines():
        if line.startswith("--> "):
            steps.append([])
        else:
            steps[-1].append(line.strip())
    return steps


def test_page_lines_equal_the_canasta_replay_command(tmp_path: Path) -> None:
    record = record_game(tmp_path, "classic", seed=4, max_hands=None)
    html = tmp_path / "game.html"
    done = subprocess.run([CANASTA, "replay", str(record), "--html", str(html)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "moves, every hand" in done.stdout
    data = _embedded(html.read_text(encoding="utf-8"))
    for view, args in (("all", ()), ("2", ("--seat", "2"))):
        printed = _replay_output(record, *args)
        assert [s["lines"] for s in expand(data, view)] == printed


def test_seat_option_opens_that_view_and_is_checked(tmp_path: Path) -> None:
    record = record_game(tmp_path, "two-player", seed=3)
    html = tmp_path / "g.html"
    ok = subprocess.run([CANASTA, "replay", str(record), "--html", str(html), "--seat", "1"],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert _embedded(html.read_text())["open_view"] == "1"
    bad = subprocess.run([CANASTA, "replay", str(record), "--html", str(html), "--seat", "5"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--seat must be from 0 to 1" in bad.stderr
    missing = subprocess.run([CANASTA, "replay", str(tmp_path / "none.jsonl"), "--html",
                              str(html)], capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    assert "Traceback" not in bad.stderr + missing.stderr


def _saved_game(tmp_path: Path) -> Path:
    """A record as a saved game that goes on later leaves it: sealed, no reveal, no result,
    its seed in a secret file."""
    from canasta_cli.table.session import secrets_dir
    record = record_game(tmp_path, "classic", seed=8)
    lines = load_record(record)
    reveal = next(ln for ln in lines if ln["type"] == "reveal")
    header = {**lines[0], "secret": "viewer-test.json"}
    kept = [header] + [ln for ln in lines[1:len(lines) // 2] if ln["type"] in ("event", "move")]
    secrets_dir().mkdir(parents=True, exist_ok=True)
    (secrets_dir() / "viewer-test.json").write_text(json.dumps(
        {k: v for k, v in reveal.items() if k != "type"}))
    saved = tmp_path / "saved.jsonl"
    saved.write_text("".join(json.dumps(ln) + "\n" for ln in kept))
    return saved


def test_an_unfinished_sealed_game_shows_the_public_view_only(tmp_path: Path) -> None:
    saved = _saved_game(tmp_path)
    rep, lines, public = load_replay(saved)
    assert public
    data = replay_data(rep, lines, public)
    assert data["views"] == ["public"] and data["open_view"] == "public"
    assert all("h" not in s and set(s["ev"]) == {"public"} for s in data["steps"])
    text = script_json(data)
    assert '"hand":' not in text and "is dealt 11 cards" in text
    for state, step in zip(rep.states, expand(data, "public"), strict=True):
        # Every card in the page is one the public sees: none of any hand is in the data.
        assert "hand" not in step["obs"] and step["obs"]["stock_size"] == len(state.stock)
    html = tmp_path / "s.html"
    with_seat = subprocess.run([CANASTA, "replay", str(saved), "--html", str(html), "--seat",
                                "0"], capture_output=True, text=True, timeout=60,
                               env={**os.environ})
    assert with_seat.returncode == 2 and "only the public view" in with_seat.stderr


def test_script_json_cannot_end_or_change_its_element() -> None:
    hostile = {"name": "</script><script>alert(1)</script><!-- \u2028\u2029 & > <"}
    text = script_json(hostile)
    assert not set("<>&\u2028\u2029") & set(text)
    assert json.loads(text) == hostile
    html = page("t", "p{}", "<p>x</p>", "void 0;", hostile)
    assert html.count("</script>") == 2 and "<!--" not in html
    csp = re.search(r'Content-Security-Policy" content="([^"]*)"', html)
    assert csp is not None and "default-src &#x27;none&#x27;" in csp.group(1)


def test_tournament_records_are_kept_when_asked_and_replay(tmp_path: Path) -> None:
    run_tournament(tmp_path / "plain", "g=builtin:greedy", "r=builtin:random", games=1)
    assert not (tmp_path / "plain" / "records").exists()
    run_tournament(tmp_path / "kept", "g=builtin:greedy", "r=builtin:random", games=2,
                   extra=("--records",))
    games = rows(tmp_path / "kept")
    for row in games:
        record = tmp_path / "kept" / "records" / f"game-{int(row['index']) + 1:04d}.jsonl"  # type: ignore[call-overload]
        assert record.stat().st_mode & 0o077 == 0
        check = subprocess.run([CANASTA, "replay", str(record), "--verify"],
                               capture_output=True, text=True, timeout=60)
        assert check.returncode == 0 and f"scores {row['scores']}" in check.stdout
        header = load_record(record)[0]
        assert header["seats"] == row["seating"]


def test_the_llr_path_ends_where_the_tournament_decided(tmp_path: Path) -> None:
    out = tmp_path / "sprt"
    run_tournament(out, "g=builtin:greedy", "r=builtin:random", games=40,
                   extra=("--sprt", "--elo1", "200"))
    t = load_tournament(out)
    sp = t.summary["sprt"]
    assert sp["decision"] == "H1" and t.sprt is not None
    lower, upper = t.sprt.bounds
    # Deal ends are where the test decides: the last crosses, none before it.
    ends = [(g, x) for g, x in t.llr if g % 2 == 0 and g > 0]
    assert ends[-1][1] >= upper and all(lower < x < upper for _, x in ends[:-1])
    assert t.llr[-1][0] == sp["after_games"] == len(t.rows)
    deal = llr_path(t.rows, t.rules, Sprt(elo1=200, unit="deal"))
    assert [g for g, _ in deal] == [0, *range(2, len(t.rows) + 1, 2)]


def test_report_text_fits_the_terminal_and_hides_control_characters(tmp_path: Path) -> None:
    out = tmp_path / "t"
    run_tournament(out, "g=builtin:greedy", "r=builtin:random", games=3,
                   extra=("--sprt", "--records"))
    results = json.loads((out / "results.json").read_text())
    results["standings"][0]["bot"] = "evil\x1b[2J\x1b]0;title\x07"
    (out / "results.json").write_text(json.dumps(results))
    for width in (60, 100):
        shown = subprocess.run([CANASTA, "report", "t"], capture_output=True, text=True,
                               timeout=60, env={**os.environ, "COLUMNS": str(width)},
                               cwd=tmp_path)
        assert shown.returncode == 0, shown.stderr
        lines = shown.stdout.splitlines()
        assert max(len(x) for x in lines) <= width
        text = shown.stdout
        assert "\x1b" not in text and "\x07" not in text and "evil?[2J" in text
        assert "Elo with its 95% interval" in text and "SPRT: LLR" in text
        assert "Score difference per deal" in text and "Failures: none" in text
        assert "canasta replay" in text


def test_report_of_a_damaged_or_missing_folder_is_one_line(tmp_path: Path) -> None:
    empty = subprocess.run([CANASTA, "report", str(tmp_path)], capture_output=True, text=True,
                           timeout=60)
    assert empty.returncode == 2 and "results.json is missing" in empty.stderr
    (tmp_path / "results.json").write_text('{"rules": {}, "standings": [{"bot": 3}]}')
    bad = subprocess.run([CANASTA, "report", str(tmp_path), "--html", str(tmp_path / "r.html")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "standings row without its bot" in bad.stderr
    assert "Traceback" not in empty.stderr + bad.stderr
    with pytest.raises(RecordError):
        load_tournament(tmp_path / "nowhere")


def test_html_report_escapes_names_and_reasons(tmp_path: Path) -> None:
    out = tmp_path / "t"
    html = tmp_path / "report.html"
    run_tournament(out, f"{SCRIPT_NAME}=builtin:greedy", f"html={HTML_BOT}", games=1,
                   extra=("--html", str(html)))
    text = html.read_text(encoding="utf-8")
    assert "<script" not in text and "<img" not in text and 'id="injected"' not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&lt;img src=x onerror=" in text  # the reason, quoted by the referee, shown as text
    page_text = (tmp_path / "report-games" / "game-0001.html").read_text(encoding="utf-8")
    assert page_text.count("<script") == 2 and "<img" not in page_text
    assert "game-0001.html" in text


def test_reports_show_each_failed_games_reason_stderr_and_bot_ask(tmp_path: Path) -> None:
    """A bot that crashes: the text and HTML reports show the reason, the end of its stderr
    (bounded; escaped for the terminal and the page) and a bot ask command that puts it the
    failing decision again."""
    out = tmp_path / "t"
    html = tmp_path / "report.html"
    run_tournament(out, f"loud={LOUD_BOT}", "g=builtin:greedy", games=1,
                   extra=("--html", str(html)))
    shown = subprocess.run([CANASTA, "report", str(out)], capture_output=True, text=True,
                           timeout=120, env={**os.environ, "COLUMNS": "100"})
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    assert "Failed games" in text and "CRASHED: the bot exited with code 7" in text
    assert "the end of its stderr:" in text and "| loud: noise 60" in text
    assert "noise 01" not in text  # bounded: the end only
    assert "\x1b" not in text and "\x07" not in text
    assert "<script>alert('stderr')</script> \\x1b[2J\\x1b]0;title\\x07" in text
    asks = [line for line in text.splitlines() if " bot ask " in line]
    assert len(asks) == 4  # both partners crash, in each seating's game
    where, _, command = asks[0].partition(" && ")
    assert command.endswith(" --decision 1 --seat 0"), command
    again = subprocess.run(f"{where} && {shlex.quote(CANASTA)} bot ask"
                           f" {command.split(' bot ask ', 1)[1]}", shell=True,
                           capture_output=True, text=True, timeout=300, check=False)
    assert again.returncode == 3 and "no answer: CRASHED" in again.stdout, again.stdout
    assert "ValueError" in again.stdout
    page_text = html.read_text(encoding="utf-8")
    assert "<script" not in page_text and "\x1b" not in page_text
    assert "&lt;script&gt;alert(&#x27;stderr&#x27;)&lt;/script&gt; \\x1b[2J" in page_text
    assert 'class="stderr"' in page_text and "noise 01" not in page_text
    assert page_text.count('<pre class="command">') == 6  # 4 bot asks, a replay per game
    assert "bot ask " in page_text and "exited with code 7" in page_text


def test_damaged_games_rows_are_reported_and_the_file_left_as_it_is(tmp_path: Path) -> None:
    out = tmp_path / "t"
    proc = run_tournament(out, "g=builtin:greedy", "r=builtin:random", games=2,
                          extra=("--json", "--html", str(tmp_path / "r.html")))
    assert json.loads(proc.stdout)["games"] == 4  # the report's line went to stderr
    games = out / "games.jsonl"
    damaged = games.read_text() + '{"key": 1}\n[[[[\n' + "x" * 2_000_000 + "\n"
    games.write_text(damaged)
    t = load_tournament(out)
    assert len(t.rows) == 4 and len(t.warnings) == 3
    assert games.read_text() == damaged
    shown = subprocess.run([CANASTA, "report", str(out), "--html", str(tmp_path / "r2.html")],
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and shown.stderr.count("left out") == 3
