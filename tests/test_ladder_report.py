"""``canasta report --ladder``: the ladder's standings, Elo plot and rating history as text
and as one HTML page, a hostile name from the database escaped, and the usage errors."""

from __future__ import annotations

import html
import os
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import Browser, find_chromium

from canasta_cli.ladder.standings import history
from canasta_cli.ladder.store import Ladder
from canasta_cli.viewer.ladder_report import ladder_html, load_ladder

CANASTA = str(Path(sys.executable).parent / "canasta")
RULES = ["--rules", "two-player", "--set", "max_hands=1"]
EVIL = "<script>alert(1)</script>"


def canasta(*args: str, columns: int = 100) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CANASTA, *args], capture_output=True, text=True, timeout=600,
                          check=False, env={**os.environ, "COLUMNS": str(columns)})


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three entries (two versions of one bot), two runs of a few fast deals."""
    path = tmp_path_factory.mktemp("ladder") / "ladder.sqlite"
    for name, command in (("greedy", "builtin:greedy"), ("rnd@1", "builtin:random"),
                          ("rnd@2", "builtin:random")):
        assert canasta("ladder", "add", name, command, "--db", str(path)).returncode == 0
    for extra in (["--seed", "7"], []):
        done = canasta("ladder", "run", "--games", "3", *RULES, *extra, "--db", str(path))
        assert done.returncode == 0, done.stderr
    return path


def test_text_report_has_standings_plot_and_each_entrys_history(db: Path) -> None:
    done = canasta("report", "--ladder", "--db", str(db), columns=72)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert all(len(line) <= 72 for line in lines)
    shown = [line for line in canasta("ladder", "show", "--db", str(db)).stdout.splitlines()
             if line[:1].isdigit()]
    mine = [line for line in lines if line[:1].isdigit()]
    assert [line.split()[1:] for line in mine] == [line.split()[1:] for line in shown]
    assert {line.split()[1] for line in mine} == {"greedy", "rnd@1", "rnd@2"}  # versions apart
    assert sum(1 for line in lines if re.search(r"\[-*\*-*\]", line)) == 3  # the Elo plot
    # The history is `ladder history`'s, run by run.
    ladder_hist = canasta("ladder", "history", "rnd@2", "--db", str(db)).stdout.splitlines()[1:]
    want = ", ".join(f"{h.split()[0]}: {h.split()[4]} {h.split()[5]} ({h.split()[6]})"
                     for h in ladder_hist)
    assert len(ladder_hist) == 2 and f"    {want}" in lines


def test_html_report_is_one_page_with_plot_and_history(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "ladder.html"
    done = canasta("report", "--ladder", "--db", str(db), "--html", str(out))
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert "Content-Security-Policy" in text and "script-src 'none'" in html.unescape(text)
    assert text.count('data-plot="elo"') == 1 and 'data-marks="3"' in text
    assert re.findall(r'data-bot="([^"]+)"', text) == [
        line.split()[1] for line in canasta("ladder", "show", "--db", str(db)).stdout
        .splitlines() if line[:1].isdigit()]
    assert text.count('class="history"') == 3
    ladder = Ladder(db)
    runs = history(ladder)
    ladder.close()
    assert len(runs) == 2
    for point in runs:
        t = point.table["greedy"]
        elo = "0" if round(t.elo) == 0 else f"{round(t.elo):+d}"
        assert f"<td>{elo}</td><td>\u00b1{round(t.error)}</td><td>{t.deals}</td>" in text


def _hostile(tmp_path: Path) -> Path:
    """A ladder file holding a name ``ladder add`` would refuse (as a hand-edited file may)."""
    path = tmp_path / "evil.sqlite"
    Ladder(path).close()
    with sqlite3.connect(path) as con:
        con.execute("INSERT INTO bots VALUES (?, 'builtin:random', 0)", (EVIL,))
        con.execute("INSERT INTO bots VALUES ('greedy', 'builtin:greedy', 0)")
        con.execute("INSERT INTO runs VALUES (1, 1, ?, ?)", (time.time(), time.time()))
        for k, score in ((1, 0.0), (2, 1.0), (3, 0.0)):
            con.execute("INSERT INTO deals VALUES (?, ?, 'greedy', ?, 1, ?, 0, 0, 1)",
                        (k, EVIL, k, score))
    return path


def test_a_hostile_name_is_escaped_everywhere(tmp_path: Path) -> None:
    ladder = Ladder(_hostile(tmp_path))
    markup = ladder_html(load_ladder(ladder))
    ladder.close()
    assert "<script" not in markup
    assert markup.count(html.escape(EVIL)) >= 4  # standings, plot label, plot mark, history


def test_errors(tmp_path: Path) -> None:
    missing = canasta("report", "--ladder", "--db", str(tmp_path / "none.sqlite"))
    assert missing.returncode == 2 and "no ladder file" in missing.stderr
    assert "Traceback" not in missing.stderr and not (tmp_path / "none.sqlite").exists()
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database" * 100)
    bad = canasta("report", "--ladder", "--db", str(junk))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    neither = canasta("report")
    assert neither.returncode == 2 and "--ladder" in neither.stderr
    both = canasta("report", str(tmp_path), "--ladder")
    assert both.returncode == 2 and "not both" in both.stderr


CHROMIUM = find_chromium()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if CHROMIUM is None:
        pytest.skip("no Chromium installed (apt-get install chromium; .ci/run installs it)")
    b = Browser(CHROMIUM)
    yield b
    b.close()


def test_hostile_page_in_a_browser_runs_nothing(browser: Browser, tmp_path: Path) -> None:
    out = tmp_path / "evil.html"
    done = canasta("report", "--ladder", "--db", str(_hostile(tmp_path)), "--html", str(out))
    assert done.returncode == 0, done.stderr
    browser.open(out)
    names = browser.js("[...document.querySelectorAll('#standings tbody tr')]"
                       ".map(r => r.cells[1].textContent)")
    assert sorted(names) == sorted([EVIL, "greedy"])
    assert browser.js("document.querySelectorAll('svg[data-plot=elo] circle.mark').length") == 2
    assert not browser.exceptions() and not browser.dialogs()
