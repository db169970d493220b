"""The remote person's prompt is ``canasta play``'s: refusals with the server's reasons, a
line of several moves checked whole, log, score and help; hints only where the table allows
them."""

from __future__ import annotations

from pathlib import Path

import pexpect
from net_helpers import FULL_PROMPT, TABLE, Served, person

from canasta_cli.core import CLASSIC

RULES = CLASSIC.with_options(max_hands=1)
SPECS = ["remote:ana", "builtin:random", "builtin:random", "builtin:random"]


def _at_prompt(child: pexpect.spawn) -> None:
    child.expect(TABLE)
    child.expect(FULL_PROMPT)


def test_refusals_come_with_the_servers_reasons(tmp_path: Path) -> None:
    served = Served(SPECS, RULES, 8, tmp_path, away_s=0.1)
    child = person(f"127.0.0.1:{served.port}", served.token(0))
    _at_prompt(child)
    child.sendline("meld K K K")  # phase draw: not now, and the server says why
    child.expect(r"refused: 'meld K K K' is not allowed: ([^\r\n]+)")
    assert "draw" in child.match.group(1) or "pile" in child.match.group(1)
    child.sendline("hint")
    child.expect("Hints are off at this table")
    for command, shown in (("help", "Commands:"), ("score", "us"), ("log", "deals")):
        child.sendline(command)
        child.expect(shown)
    child.sendline("draw")
    child.expect(FULL_PROMPT)
    child.sendline("meld 4 4 4 4 4 4 4 4 4 4 4 4; discard 9")  # checked whole, by the server
    child.expect(r"refused: nothing was played: ")
    child.sendline("quit")
    child.expect("You left the table")
    child.expect(pexpect.EOF)
    assert served.finish().reason == "hand_limit"  # a stand-in played the rest


def test_hints_where_the_table_allows_them(tmp_path: Path) -> None:
    served = Served(SPECS, RULES, 8, tmp_path, hint=True, away_s=0.1)
    child = person(f"127.0.0.1:{served.port}", served.token(0))
    _at_prompt(child)
    child.sendline("hint")
    child.expect(r"Hint: ")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert served.finish().reason == "hand_limit"  # a stand-in played the rest
