"""bot check asks every kind of request: each check plays its hand out after the scripted
decision, so a bot that breaks only when it must discard (tests/bots/no_discard.py) fails,
and the output names the kinds of request covered."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from canasta_cli.botdev.check import KINDS, request_kinds, run_checks
from canasta_cli.botdev.rare_deals import check_deals
from canasta_cli.core import legal_moves

ROOT = Path(__file__).resolve().parent.parent
CANASTA = str(Path(sys.executable).parent / "canasta")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CANASTA, "bot", "check", *args], capture_output=True, text=True,
                          timeout=600, check=False, cwd=ROOT)


def test_the_checks_first_decisions_reach_every_kind_whatever_the_bot_answers() -> None:
    firsts = {name: request_kinds(deal.state, legal_moves(deal.state))
              for name, deal in check_deals()}
    assert {k for kinds in firsts.values() for k in kinds} == set(KINDS)
    assert firsts["discard: every listed move a discard"] == ["discard"]
    assert firsts["forced take: the stock gone, the pile must be taken"] == ["forced take"]
    assert firsts["add to a meld the side has"] == ["add"]
    assert firsts["stock exhausted: take the pile or end the hand"] == ["stock end"]
    assert firsts["answer the partner's question"] == ["go-out answer"]


def test_a_bot_that_crashes_when_it_must_discard_fails_and_the_discard_is_named() -> None:
    done = _run(f"{sys.executable} tests/bots/no_discard.py")
    assert done.returncode == 3, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    fails = [line for line in lines if line.startswith("FAIL")]
    # The first check's hand goes on past its draw: the bot must discard, and crashes.
    assert fails[0].startswith("FAIL  draw or take a frozen pile"), fails
    assert "kind discard (every listed move a discard" in fails[0] and "CRASHED" in fails[0]
    covered = next(line for line in lines if line.startswith("covered: "))
    assert "not covered: " in covered and "discard" in covered.split("not covered: ")[1]
    assert "asked to discard" in done.stdout  # the end of its stderr
    assert "failed: " in done.stderr


def test_the_example_bot_passes_with_every_kind_covered() -> None:
    done = _run()
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert f"covered: {', '.join(KINDS)}" in lines
    assert any(line.startswith("PASS  every kind of request asked and answered") for line in lines)
    assert lines[-1].endswith(" passed, 0 failed")


def test_a_bot_granted_auto_forced_is_never_asked_a_one_move_request() -> None:
    """kit_all.py exits when asked a request with one move listed, as the referee never
    asks it one (auto_forced): the checks play those moves for it, and say so."""
    bot = (f"{sys.executable} {ROOT / 'tests' / 'bots' / 'kit_all.py'}"
           f" {ROOT / 'bots' / 'canasta_kit.py'}")
    covered: list[str] = []
    played: list[str] = []
    checks = run_checks(bot, 30.0, covered=covered, played=played)
    assert all(c.passed for c in checks), [(c.name, c.detail) for c in checks if not c.passed]
    assert sorted(covered + played) == sorted(KINDS)
    assert {"forced take", "stock end"} <= set(played)
