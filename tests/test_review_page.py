"""The review's page (``canasta review GAME --seat N --html OUT``): the replay viewer of the
game from the reviewed seat's view only, with the analysis of each decision beside it.

The page holds each decision's analysis at its step of the replay and the seat's view of
every step; it holds no card the seat could not see (re-dealing such cards leaves the page the
same, byte for byte, and no line of the whole truth that the seat was not shown is in it); and
in a real headless Chromium it runs under its Content-Security-Policy without an error and
moves to the next flagged decision and shows its analysis."""

from __future__ import annotations

import base64
import hashlib
import html as html_text
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import Browser, find_chromium
from helpers import random_against_normal, recorded_deck

from canasta_cli.core import observation
from canasta_cli.core.cards import KIND_OF
from canasta_cli.core.events import Drew
from canasta_cli.hosting.records import load_record
from canasta_cli.hosting.replay import Replay, replay
from canasta_cli.table.review import Review, ReviewPlan, review_game, run
from canasta_cli.ui.event_text import describe_event
from canasta_cli.viewer.htmlsafe import script_json
from canasta_cli.viewer.pagedata import CARD, expand, replay_data
from canasta_cli.viewer.review_page import review_html, write_review_page

SEED = 1  # a one-hand two-player game: builtin:random (seat 0) against builtin:normal
DEALS = 4
CHROMIUM = find_chromium()


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return random_against_normal(tmp_path_factory.mktemp("review-page") / "records", SEED)


@pytest.fixture(scope="module")
def reviewed(record: Path) -> Review:
    """Seat 0 (the random player): it makes mistakes and blunders."""
    return run(ReviewPlan(record, 0, deals=DEALS))


def _embedded(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="data">(.*?)</script>', html, re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found[1])
    return data


def _strings(obj: Any) -> Iterator[str]:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


def test_the_page_holds_each_decision_s_analysis_at_its_step_and_the_seat_s_replay(
        record: Path, reviewed: Review) -> None:
    lines = load_record(record)
    rep = replay(lines)
    seat = reviewed.seat
    html = review_html(reviewed, rep, lines)
    data = _embedded(html)
    assert data["views"] == ["public", str(seat)] and data["open_view"] == str(seat)
    seen = expand(data, str(seat))
    assert len(seen) == len(rep.states)
    for (_, _, evs), state, step in zip(rep.steps, rep.states, seen, strict=True):
        assert step["obs"] == observation(state, seat, history=False)
        assert step["lines"] == [describe_event(e.view(seat), card=CARD) for e in evs]
    shown = data["review"]["decisions"]
    assert data["review"]["seat"] == seat and len(shown) == len(reviewed.decisions) >= 10
    for d, x in zip(reviewed.decisions, shown, strict=True):
        assert (x["n"], x["step"], x["at"], x["hand"]) == (d.number, d.step, d.step - 1, d.hand_no)
        assert (x["played"], x["best"], x["verdict"], x["reason"]) == (
            d.played.move, d.best.move, d.verdict, d.reason)
        assert x["played_value"].startswith(f"{d.played.mean:.0f} \u00b1")
        assert x["loss_text"] == ("" if d.agrees else f"{d.loss:.0f} \u00b1{d.loss_half:.0f}")
        # ``at``: the table the seat decided at; the next step is its move.
        before = seen[x["at"]]["obs"]
        assert before["to_act"] == seat and before["hand"] == list(d.held)
        assert data["steps"][x["step"]]["seat"] == seat
    # The review as the page had it: the plot (a bar per decision), the tables, the reasons.
    assert html.count('class="mark"') == len(reviewed.decisions)
    assert html.count('<tr id="d') == len(reviewed.decisions)
    flagged = [d for d in reviewed.decisions if d.verdict]
    assert flagged and all(d.reason.replace("'", "&#x27;") in html for d in flagged)
    # One inline script, allowed by its hash; no other source of anything.
    script = html.split("<script>")[1].split("</script>")[0]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    policy = re.search(r'Content-Security-Policy" content="([^"]*)"', html)
    assert policy is not None
    csp = html_text.unescape(policy[1])
    assert html.count("<script>") == 1 and f"script-src 'sha256-{digest}';" in csp
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in html


def _seen(rep: Replay, seat: int) -> list[Any]:
    """All ``seat`` saw at each step: its observation, and the events as it and the public
    saw them."""
    return [(observation(state, seat, history=False), [e.view(seat) for e in evs],
             [e.view(-1) for e in evs]) for (_, _, evs), state in zip(rep.steps, rep.states,
                                                                      strict=True)]


def _re_dealt_unseen(record: Path, seat: int) -> tuple[Replay, Replay]:
    """The recorded game, and the same game dealt from a deck with two cards swapped that
    ``seat`` never sees: one dealt to the other player and one it draws from the stock later
    (both hidden until it plays them or the hand ends).  Dealt as tests/test_review.py's
    ``_re_dealt`` does, but the seat must see the same at every step, to the end of the game
    (that one's swap shows at the hand's end, when the other hand is laid open).  A deck
    dealt from card texts numbers the copies of a card in their order, unlike the record's
    deal, so both replays may order a meld's copies otherwise than the record: they must
    disagree with it alike."""
    deck, dealt, ids = recorded_deck(record)
    rep = dealt(deck)
    want = _seen(rep, seat)
    other = 1 - seat
    drawn = [e.card for _, _, evs in rep.steps[1:] for e in evs  # after the deal's draws
             if isinstance(e, Drew) and e.seat == other]
    for a in rep.states[0].hands[other]:
        for b in drawn:
            if KIND_OF[a] == KIND_OF[b]:
                continue
            order = list(deck)
            i, j = ids.index(a), ids.index(b)
            order[i], order[j] = order[j], order[i]
            alt = dealt(order)
            if alt.mismatches == rep.mismatches and len(alt.steps) == len(rep.steps) and \
                    _seen(alt, seat) == want:
                return rep, alt
    raise AssertionError("no two cards the seat never sees could be swapped in this game")


def test_re_dealing_what_the_seat_never_sees_leaves_the_page_the_same(record: Path) -> None:
    seat = 0
    rep, alt = _re_dealt_unseen(record, seat)
    assert any(sorted(a.hands[1]) != sorted(b.hands[1]) for a, b in zip(rep.states, alt.states,
                                                                       strict=True))
    lines = load_record(record)
    # A page of every view would differ: the other hand is not what it was.
    assert replay_data(rep, lines, False) != replay_data(alt, lines, False)
    moves = [ln for ln in lines if ln["type"] == "move"]
    plan = ReviewPlan(record, seat, deals=DEALS, seed=3)
    one, two = review_game(rep, moves, plan), review_game(alt, moves, plan)
    page = review_html(one, rep, lines)
    assert page == review_html(two, alt, lines)
    # No line of the whole truth that neither the seat nor the public saw is in it (the
    # other player's deal, its draws), nor any hand but the seat's.
    data = _embedded(page)
    strings = set(_strings(data))
    hidden = []
    for _, _, evs in rep.steps:
        for e in evs:
            full = describe_event(e.full(), card=CARD)
            if full not in (describe_event(e.view(seat), card=CARD),
                            describe_event(e.view(-1), card=CARD)):
                hidden.append(full)
    assert any(line.startswith("seat 1 is dealt") for line in hidden), hidden[:3]
    assert len(hidden) >= 10
    for line in hidden:
        assert line not in strings and script_json(line)[1:-1] not in page, line
    assert all(set(step.get("h", {})) <= {str(seat)} for step in data["steps"])
    assert all(set(step["ev"]) <= {"public", str(seat)} for step in data["steps"])


def _press(b: Browser, key: str, code: int, shift: bool = False) -> None:
    for kind in ("keyDown", "keyUp"):
        b.send("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": f"Key{key.upper()}",
                                          "windowsVirtualKeyCode": code,
                                          "nativeVirtualKeyCode": code,
                                          "modifiers": 8 if shift else 0})


def _text(b: Browser, selector: str) -> str:
    value = b.js(f"document.querySelector({json.dumps(selector)}).textContent")
    assert isinstance(value, str)
    return value


def _current(b: Browser) -> int:
    return int(b.js("document.querySelector('#moves li.current').dataset.step"))


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install"
                    " chromium; .ci/run installs it)")
def test_in_a_browser_it_steps_to_the_next_flagged_decision_and_shows_its_analysis(
        reviewed: Review, tmp_path: Path) -> None:
    assert CHROMIUM is not None
    out = tmp_path / "review.html"
    write_review_page(reviewed, out)
    decisions = reviewed.decisions
    flagged = [d for d in decisions if d.verdict]
    assert len(flagged) >= 2
    b = Browser(CHROMIUM)
    try:
        b.send("Log.enable")  # CSP violations and console errors arrive as log entries
        b.open(out)
        assert b.js("document.body.dataset.ready") == "1"
        assert b.js("document.body.dataset.review") == "1"
        assert _text(b, "#decision") == "No decision of seat 0 at this step."
        assert b.js("[...document.querySelectorAll('#view-select option')].map(o => o.value)") \
            == ["public", "0"]
        # Shift+N: the first flagged decision, at the table the seat decided at.
        _press(b, "N", 78, shift=True)
        first = flagged[0]
        assert _current(b) == first.step - 1
        shown = _text(b, "#decision")
        assert f"Decision #{first.number} of {len(decisions)}" in shown
        assert first.played.move in shown and first.best.move in shown
        assert first.verdict.upper() in shown and first.reason in shown
        assert b.js("document.querySelector('#review tr.current').id") == f"d{first.number}"
        # n: the seat's next decision; Shift+N again: the next flagged one; p: back one.
        _press(b, "n", 78)
        assert _current(b) == decisions[first.number].step - 1
        _press(b, "N", 78, shift=True)
        assert _current(b) == flagged[1].step - 1
        _press(b, "p", 80)
        assert f"Decision #{flagged[1].number - 1} of" in _text(b, "#decision")
        # Another seat's cards are never drawn: seat 1's row holds no card.
        cards = b.js("[...document.querySelectorAll('#hands .hand')]"
                     ".map(h => h.querySelectorAll('.card').length)")
        assert cards[1] == 0 and cards[0] > 0
        # A bar of the loss plot moves the viewer to its decision.
        last = decisions[-1]
        b.js(f"document.querySelector('#plot .pick[data-decision=\"{last.number}\"]')"
             ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
        assert _current(b) == last.step - 1
        assert f"Decision #{last.number} of" in _text(b, "#decision")
        assert b.js("document.getElementById('next-decision').disabled") is True
        # The arrow keys still step the replay; after the move, the move just played.
        b.key("ArrowRight")
        assert _current(b) == last.step
        assert "The move just played" in _text(b, "#decision")
        errors = [p for m, p in b.events if m == "Log.entryAdded"
                  and p["entry"].get("level") == "error"]
        errors += [p for m, p in b.events if m == "Runtime.consoleAPICalled"
                   and p.get("type") in ("error", "assert")]
        assert not errors and not b.exceptions() and not b.dialogs()
    finally:
        b.close()
