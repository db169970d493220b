"""``canasta replay FILE --html OUT.html``: one self-contained page that steps through a
game (the table, the moves, the hand-end scoring), with the record's data inline."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from ..hosting.records import RecordError
from ..util.private_files import write_private
from .htmlsafe import page
from .pagedata import load_replay, replay_data

VIEWER_BODY = """<header>
<h1 id="title"></h1>
<p id="result"></p>
<p id="public-note" hidden>This game is not over: only what everyone at the table sees is
shown; no hidden card is in this page.</p>
<ul id="mismatches" hidden></ul>
</header>
<nav aria-label="steps">
<button id="first" title="Home">&#xAB; start</button>
<button id="prev-hand" title="Page Up">&#x25C0;&#x25C0; hand</button>
<button id="prev-turn" title="Up, or Shift+Left">&#x25C0; turn</button>
<button id="prev" title="Left">&#x2039; move</button>
<button id="next" title="Right">move &#x203A;</button>
<button id="next-turn" title="Down, or Shift+Right">turn &#x25B6;</button>
<button id="next-hand" title="Page Down">hand &#x25B6;&#x25B6;</button>
<button id="last" title="End">end &#xBB;</button>
<label>jump to <select id="hand-select"></select></label>
<label>show <select id="view-select"></select></label>
<span id="step-no"></span>
<span class="keys">keys: &#x2190; &#x2192; move, &#x2191; &#x2193; turn, PgUp PgDn hand,
Home End</span>
</nav>
<main>
<section id="table" aria-live="polite">
<div id="status"></div>
<table id="score-table"><tbody id="scores"></tbody></table>
<div class="pile">
<span class="box">Stock <b id="stock-size"></b></span>
<span class="box">Pile <b id="pile-size"></b> top <span id="pile-top"></span></span>
<span id="pile-state"></span>
</div>
<p id="partners"></p>
<div id="melds"></div>
<h2>Hands</h2>
<div id="hands"></div>
<h2>What happened</h2>
<ol id="events"></ol>
<ul id="failures"></ul>
<div id="hand-end" hidden></div>
</section>
<aside>
<h2>Moves</h2>
<ol id="moves"></ol>
</aside>
</main>"""


@cache
def asset(name: str) -> str:
    """A file shipped beside this module (the viewer's script and style), as text."""
    return files(__package__).joinpath(name).read_text(encoding="utf-8")


def replay_html(data: dict[str, Any]) -> str:
    names = ", ".join(data["names"])
    title = f"canasta replay: game {data.get('game') or ''} ({data['rules']}): {names}"
    return page(title[:300], asset("replay.css"), VIEWER_BODY, asset("replay.js"), data)


def write_replay_page(record: Path, out: Path, seat: int | None = None) -> dict[str, Any]:
    """Replay ``record`` and write its page to ``out``; returns the page's data.  A
    RecordError says why the record cannot be shown."""
    rep, lines, public = load_replay(record)
    if seat is not None:
        if public:
            raise RecordError("this game is not over: only the public view of it is shown")
        if not 0 <= seat < rep.state.rules.players:
            raise RecordError(f"--seat must be from 0 to {rep.state.rules.players - 1}")
    data = replay_data(rep, lines, public, seat)
    write_text(out, replay_html(data))
    return data


def write_text(out: Path, text: str) -> None:
    """A page on disk, or a RecordError that says why not (one line)."""
    try:
        write_private(out, text)  # owner-only, never through a link, like every output
    except OSError as exc:
        raise RecordError(f"cannot write {out}: {exc.strerror}") from None
