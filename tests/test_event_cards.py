"""Cards in printed events are written as the table writes them (6♥, 2♣*, Jo★), on a
terminal and on a pipe alike; ASCII (6h) only where the output's encoding cannot write the
suits."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from canasta_cli.__main__ import app
from canasta_cli.ui.event_text import describe_event, only_cards
from canasta_cli.ui.render import Style

ROOT = Path(__file__).resolve().parent.parent
LOG_CARD = re.compile(r"(?<![\w*])(?:[2-9]|10|[JQKA])[cdhs](?![\w♣♦♥♠])")
TABLE_CARD = re.compile(r"(?:[2-9]|10|[JQKA])[♣♦♥♠]")


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rec = tmp_path_factory.mktemp("rec")
    done = CliRunner().invoke(app, ["match", "--seat", "builtin:greedy", "--seat",
                                    "builtin:random", "--seat", "builtin:greedy", "--seat",
                                    "builtin:random", "--set", "max_hands=1", "--seed", "3",
                                    "--record", str(rec)])
    assert done.exit_code == 0, done.output
    return rec / "game-0001.jsonl"


def _piped(*args: str, encoding: str = "utf-8") -> str:
    env = dict(os.environ, PYTHONIOENCODING=encoding)
    done = subprocess.run([sys.executable, "-m", "canasta_cli.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode(encoding)


def _log_cards(text: str) -> list[str]:
    """Cards written the log's way (6h), leaving out rank plurals ("to the 5s")."""
    return LOG_CARD.findall(re.sub(r"to the \w+s\b", "", text))


@pytest.mark.parametrize("seat", [None, "1"])
def test_a_piped_replay_writes_cards_as_the_table_does(record: Path, seat: str | None) -> None:
    text = _piped("replay", *(["--seat", seat] if seat else []), str(record))
    events = [x for x in text.splitlines() if x.startswith("    ")]
    assert len(events) > 50 and len(TABLE_CARD.findall(text)) > 20
    assert _log_cards(text) == [], _log_cards(text)[:5]
    assert "★" in text and re.search(r"2[♣♦♥♠]\*", text)  # jokers and deuces as on the table


def test_ascii_only_where_the_encoding_cannot_write_the_suits(record: Path) -> None:
    text = _piped("replay", str(record), encoding="ascii")
    assert not TABLE_CARD.search(text) and len(_log_cards(text)) > 20
    assert "Jo*" in text  # the table's ASCII notation: wild cards marked


def test_a_piped_demo_writes_cards_as_the_table_does() -> None:
    text = _piped("demo", "--seed", "3", "--delay", "0.001", "--set", "max_hands=1")
    assert len(TABLE_CARD.findall(text)) > 20 and _log_cards(text) == []


def test_only_well_formed_cards_are_rewritten() -> None:
    card = only_cards(Style(color=False).card)
    assert describe_event({"type": "discard", "seat": 0, "card": "6h"}, card=card) \
        == "seat 0 discards 6♥"
    for junk in ("", "x", "6z", "11h", "<b>"):  # a peer's event may hold any text
        assert describe_event({"type": "discard", "seat": 0, "card": junk}, card=card) \
            == f"seat 0 discards {junk}"
