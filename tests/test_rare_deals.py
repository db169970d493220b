"""The stacked deals of ``bot check --games`` on two-player and cut-throat reach the rare
decisions they name, and a real bot that breaks only there is caught, with its stderr and a
``bot ask`` command that reproduces the crash."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from canasta_cli.botdev.rare_deals import rare_presets, stacked_deals
from canasta_cli.core import GameState, Phase, apply, legal_moves
from canasta_cli.core.events import PartnersFormed, RedThreeLaid
from canasta_cli.core.moves import Meld

ROOT = Path(__file__).resolve().parent.parent
CANASTA = str(Path(sys.executable).parent / "canasta")
CRASHY = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'crashy.py'}"


def _events(st: GameState) -> list[object]:
    out = []
    log: Any = st.log
    while log:
        log, event = log
        out.append(event)
    return out[::-1]


def test_each_stacked_deal_reaches_its_decision() -> None:
    assert rare_presets() == ["classic", "two-player", "three-player-cutthroat"]
    two = {d.name: d for d in stacked_deals("two-player")}
    cut = {d.name: d for d in stacked_deals("three-player-cutthroat")}
    assert len(two) == 4 and len(cut) == 3
    for deal in [*two.values(), *cut.values()]:
        assert not deal.state.is_over, deal.name
        assert deal.state.actor == 0 or "partner" in deal.name, deal.name
    pile = two["a frozen pile offered, or the draw of two"].state
    assert pile.phase is Phase.DRAW and any(str(m).startswith("TakePile")
                                            for m in legal_moves(pile))
    red = two["a red three among the two cards drawn, replaced"].state
    assert any(isinstance(e, RedThreeLaid) and e.seat == 0 for e in _events(red))
    assert len(red.hands[0]) == 17  # two drawn besides the red three
    one = two["one card left in the stock when two are due"].state
    assert one.phase is Phase.DRAW and len(one.stock) == 1
    out = two["going out with the two canastas it needs"].state
    assert out.phase is Phase.MELD and any(isinstance(m, Meld) for m in legal_moves(out))
    lone = cut["taking the pile, so playing alone (the lone hand)"].state
    taken = apply(lone, next(m for m in legal_moves(lone) if str(m).startswith("TakePile")))
    assert taken.lone == 0
    partner = cut["a partner once an opponent took the pile, the kings merged"].state
    formed = [e for e in _events(partner) if isinstance(e, PartnersFormed)]
    assert partner.lone == 1 and formed and formed[0].partners == (0, 2) and formed[0].merged
    early = cut["going out before the pile was taken (so alone)"].state
    assert early.lone is None and early.phase is Phase.MELD


@pytest.mark.parametrize(("mode", "rules", "why"), [
    ("onecard", "two-player", "one card left for a draw of two"),
    ("merged", "three-player-cutthroat", "my partner's melds merged into mine"),
])
def test_bot_check_catches_a_bot_that_breaks_only_on_a_rare_decision(
        tmp_path: Path, mode: str, rules: str, why: str) -> None:
    bot = f"{CRASHY} {mode}"
    done = subprocess.run([CANASTA, "bot", "check", bot, "--games", "1", "--rules", rules],
                          capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert sum(line.startswith("FAIL") for line in lines) == 1  # every scripted check passed
    assert any(line.startswith(f"FAIL  real games: game 1 of {rules}, stacked") for line in lines)
    assert why in done.stdout  # the end of its stderr
    again = next(line for line in lines if line.startswith("cd ") and " bot ask " in line)
    record = Path(shlex.split(again.split(" && ", 1)[1])[4])
    assert record.is_file()  # the failing game's record is kept
    ask = subprocess.run(again, shell=True, capture_output=True, text=True, timeout=600,
                         check=False)  # as printed: it names this canasta (not on the PATH)
    assert ask.returncode == 3 and "no answer: CRASHED" in ask.stdout, ask.stdout + ask.stderr
    assert why in ask.stdout
    # The same bot passes where that decision never comes: the dealt classic games.
    fine = subprocess.run([CANASTA, "bot", "check", bot], capture_output=True, text=True,
                          timeout=600, check=False, cwd=tmp_path)
    assert fine.returncode == 0, fine.stdout
