"""The replay page and the tournament report in a real headless Chromium, opened from disk."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import Browser, find_chromium
from viewer_games import CANASTA, HTML_BOT, SCRIPT_NAME, record_game, run_tournament

from canasta_cli.core import PRESETS, observation
from canasta_cli.hosting.records import load_record
from canasta_cli.viewer.pagedata import load_replay

CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get"
                                " install chromium; .ci/run installs it)")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert CHROMIUM is not None
    b = Browser(CHROMIUM)
    yield b
    b.close()


def _write_page(record: Path, out: Path, *args: str) -> None:
    done = subprocess.run([CANASTA, "replay", str(record), "--html", str(out), *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def _text(b: Browser, selector: str) -> str:
    value = b.js(f"document.querySelector({json.dumps(selector)}).textContent")
    assert isinstance(value, str)
    return value


def test_replay_page_steps_with_the_arrow_key_and_jumps_to_the_last_hand(
        browser: Browser, tmp_path: Path) -> None:
    record = record_game(tmp_path, "classic", seed=21, max_hands=None)
    rep, _, _ = load_replay(record)
    page = tmp_path / "game.html"
    _write_page(record, page)
    browser.open(page)
    assert browser.js("document.body.dataset.ready") == "1"
    moves = [ln for ln in load_record(record) if ln["type"] == "move"]
    for _ in range(3):
        browser.key("ArrowRight")
    after = observation(rep.states[3], 0, history=False)
    assert _text(browser, "#pile-size") == str(after["pile_size"])
    assert _text(browser, "#stock-size") == str(after["stock_size"])
    current = _text(browser, "#moves li.current")
    assert current.startswith("3. seat ") and current.endswith(f": {moves[2]['move']}")
    assert browser.js("document.querySelector('#moves li.current').dataset.step") == "3"
    assert _text(browser, "#step-no") == f"move 3 of {len(moves)}"
    # Shift+Right: the next turn starts with the next player.
    browser.key("ArrowRight", shift=True)
    step = int(browser.js("document.querySelector('#moves li.current').dataset.step"))
    turn_seat = observation(rep.states[3], 0, history=False)["turn_seat"]
    assert observation(rep.states[step], 0, history=False)["turn_seat"] != turn_seat
    # Page Down: the step that ends hand 1 and deals hand 2, with hand 1's scoring.
    browser.key("Home")
    browser.key("PageDown")
    assert _text(browser, "#status").startswith("Hand 2 ")
    assert _text(browser, "#hand-end").startswith("Hand 1 is over")
    # Jump to the last hand, then to its end: the final scores are the record's.
    last_hand = rep.state.hand_no
    assert last_hand > 1
    browser.js("(() => { const s = document.getElementById('hand-select');"
               " s.selectedIndex = s.options.length - 1;"
               " s.dispatchEvent(new Event('change')); })()")
    assert _text(browser, "#status").startswith(f"Hand {last_hand} ")
    browser.js("document.activeElement.blur()")
    browser.key("End")
    result = rep.recorded_result
    assert result is not None
    shown = browser.js("[...document.querySelectorAll('#scores td.score')]"
                       ".map(e => Number(e.textContent))")
    assert shown == result["scores"] == list(rep.state.scores)
    assert _text(browser, "#status").startswith("Game over")
    assert "Hand total" in _text(browser, "#hand-end")
    assert not browser.exceptions() and not browser.dialogs()


def test_each_view_shows_only_its_hands_and_every_preset_draws(browser: Browser,
                                                               tmp_path: Path) -> None:
    for preset, rules in PRESETS.items():
        record = record_game(tmp_path, preset, seed=5)
        page = tmp_path / f"{preset}.html"
        _write_page(record, page, "--seat", "1")
        rep, _, _ = load_replay(record)
        browser.open(page)
        browser.key("ArrowRight")
        cards = browser.js("[...document.querySelectorAll('#hands .hand')]"
                           ".map(h => h.querySelectorAll('.card').length)")
        hand = observation(rep.states[1], 1, history=False)["hand"]
        assert cards == [len(hand) if s == 1 else 0 for s in range(rules.players)], preset
        browser.key("End")
        shown = browser.js("[...document.querySelectorAll('#scores td.score')]"
                           ".map(e => Number(e.textContent))")
        assert shown == list(rep.state.scores), preset
        rows = browser.js("document.querySelectorAll('#melds .row').length")
        assert rows >= (1 if rules.cutthroat else rules.sides), preset
    assert not browser.exceptions() and not browser.dialogs()


def test_report_shows_standings_and_plots_with_data(browser: Browser, tmp_path: Path) -> None:
    out = tmp_path / "t"
    report = tmp_path / "report.html"
    run_tournament(out, "greedy=builtin:greedy", "random=builtin:random", games=4,
                   extra=("--sprt", "--html", str(report)))
    results = json.loads((out / "results.json").read_text())
    browser.open(report)
    standings = browser.js("[...document.querySelectorAll('#standings tbody tr')]"
                           ".map(r => [...r.cells].map(c => c.textContent))")
    ranked = sorted(results["standings"], key=lambda r: -r["points"])
    assert [row[1] for row in standings] == [r["bot"] for r in ranked]
    assert [row[4] for row in standings] == [f"{r['points']:g}" for r in ranked]
    plots = browser.js("Object.fromEntries([...document.querySelectorAll('svg.plot')]"
                       ".map(s => [s.dataset.plot, Number(s.dataset.marks)]))")
    assert set(plots) == {"elo", "diff", "llr"}
    assert plots["elo"] == 2 and plots["diff"] == 4  # two bots; four deals of one pairing
    assert plots["llr"] == results["games"] + 1  # the start, then one point per game
    bars = browser.js("[...document.querySelectorAll('svg[data-plot=diff] rect.mark')]"
                      ".reduce((n, r) => n + Number(r.dataset.count), 0)")
    assert bars == 4  # every deal counted once
    marks = browser.js("[...document.querySelectorAll('svg[data-plot=elo] circle.mark')]"
                       ".map(c => Number(c.dataset.value))")
    assert marks == pytest.approx([r["elo"] for r in results["standings"]], abs=0.1)
    bounds = browser.js("[...document.querySelectorAll('svg[data-plot=llr] line.bound')]"
                        ".map(l => Number(l.dataset.value))")
    assert bounds == pytest.approx([2.944, -2.944], abs=0.001)
    links = browser.js("[...document.querySelectorAll('#games a')].map(a => a.href)")
    assert len(links) == results["games"] == 8
    browser.open(Path(links[0].removeprefix("file://")))
    assert browser.js("document.body.dataset.ready") == "1"
    assert not browser.exceptions() and not browser.dialogs()


def test_nothing_from_a_bot_runs_in_the_pages(browser: Browser, tmp_path: Path) -> None:
    out = tmp_path / "t"
    report = tmp_path / "report.html"
    run_tournament(out, f"{SCRIPT_NAME}=builtin:greedy", f"html={HTML_BOT}", games=1,
                   extra=("--html", str(report)))
    before = len(browser.events)
    browser.open(report)
    names = browser.js("[...document.querySelectorAll('#standings .bot')]"
                       ".map(e => e.textContent)")
    assert SCRIPT_NAME in names
    reasons = browser.js("[...document.querySelectorAll('#failures .reason')]"
                         ".map(e => e.textContent)")
    assert reasons and all('<b id=\\"injected\\">' in r for r in reasons)
    assert browser.js("document.scripts.length") == 0
    assert browser.js("document.querySelectorAll('img, #injected').length") == 0
    # A failure's link opens its game's page at the move the failure led to.
    link = browser.js("document.querySelector('#failures a').href")
    assert isinstance(link, str) and "#" in link
    where, step = link.removeprefix("file://").split("#")
    browser.open(Path(where), "#" + step)
    assert browser.js("document.querySelector('#moves li.current').dataset.step") == step
    assert "injected" in _text(browser, "#failures")
    browser.open(tmp_path / "report-games" / "game-0001.html")
    assert browser.js("document.body.dataset.ready") == "1"
    assert browser.js("document.scripts.length") == 2  # the page's data and its own script
    assert SCRIPT_NAME in _text(browser, "#title")
    browser.js("document.querySelector('#moves li.failed').click()")
    assert "injected" in _text(browser, "#failures")
    assert browser.js("document.querySelectorAll('img, #injected').length") == 0
    events = browser.events[before:]
    assert not [e for e in events if e[0] in ("Page.javascriptDialogOpening",
                                              "Runtime.exceptionThrown")]


def test_the_content_security_policy_stops_a_script_that_got_in(browser: Browser,
                                                                 tmp_path: Path) -> None:
    """Defence in depth: were a page to let markup through unescaped, its policy would still
    refuse to run it (only the page's own script, by its hash, runs) or to load anything."""
    from canasta_cli.viewer.htmlsafe import page
    html = page("t", "p { color: red }", '<p id="ok">ok</p><script>alert(1)</script>'
                '<img src="https://example.invalid/x.png" onerror="alert(2)">',
                "document.getElementById('ok').dataset.ran = '1';")
    path = tmp_path / "csp.html"
    path.write_text(html, encoding="utf-8")
    before = len(browser.events)
    browser.open(path)
    assert browser.js("document.getElementById('ok').dataset.ran") == "1"
    assert not [e for e in browser.events[before:] if e[0] == "Page.javascriptDialogOpening"]
