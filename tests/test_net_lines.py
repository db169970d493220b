"""The lines ``canasta serve`` and ``canasta join`` tell a person to copy (the join lines
with their tokens, ``Go on with: ... serve --resume ...``, ``Rejoin with: ...``) are printed
whole, each on one line, at a terminal 50 columns wide too (the terminal folds them; no
newline is put inside), name canasta as it can be run here, and run as printed."""

from __future__ import annotations

import io
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pexpect
from net_helpers import ANSI, FULL_PROMPT, PROMPT, ROOT, WAIT, Raw, Served, env

from canasta_cli.core import CLASSIC

PROGRAM = f"{shlex.quote(sys.executable)} -m canasta_cli.cli"  # program_command() for -m
RULES = CLASSIC.with_options(max_hands=1)


def _narrow(*args: str, log: io.StringIO | None = None) -> pexpect.spawn:
    """``canasta ARGS`` (as ``python -m``) at a terminal 50 columns wide."""
    environment = env()
    environment.pop("COLUMNS", None)
    environment.pop("LINES", None)
    child = pexpect.spawn(sys.executable, ["-m", "canasta_cli.cli", *args], cwd=ROOT,
                          env=environment, encoding="utf-8", timeout=WAIT,
                          dimensions=(24, 50))
    child.delaybeforesend = None
    child.logfile_read = log
    return child


def _copied(output: str, label: str) -> str:
    """The command after ``label`` on its line, up to the line's end."""
    text = ANSI.sub("", output).replace("\r\n", "\n")
    assert f"{label} " in text, text[-2000:]
    return text.split(f"{label} ", 1)[1].split("\n", 1)[0]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_hosts_lines_are_whole_at_a_narrow_terminal_and_run_as_printed(
        tmp_path: Path) -> None:
    saves, port = tmp_path / "saves", str(_free_port())
    log = io.StringIO()
    host = _narrow("serve", "--port", port, "--seed", "5", "--save-dir", str(saves), "--seat",
                   "human", "--seat", "remote:ana", "--seat", "builtin:random", "--seat",
                   "builtin:random", log=log)
    host.expect(r"spectators: [^\r\n]+\r\n")
    join = _copied(log.getvalue(), "seat 1 (remote:ana):")
    token = join.rsplit(" ", 1)[1]
    assert join == f"{PROGRAM} join 127.0.0.1:{port} --token {token}", join
    spectators = _copied(log.getvalue(), "spectators:")
    assert re.fullmatch(rf"{re.escape(PROGRAM)} join 127\.0\.0\.1:{port} --token \S+ --watch",
                        spectators), spectators
    ana = Raw(int(port), token, "person")
    threading.Thread(target=ana.play, daemon=True).start()
    host.expect(PROMPT)
    host.sendline("quit")  # the game is saved
    host.expect(pexpect.EOF)
    record = next(saves.glob("*.jsonl"))
    go_on = _copied(log.getvalue(), "Go on with:")
    assert go_on == f"{PROGRAM} serve --resume {record} --port {port}", go_on
    again = subprocess.Popen(shlex.split(go_on), cwd=tmp_path, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, env=env())
    assert again.stdout is not None
    for text in again.stdout:  # the same table: the same join line
        if text.startswith("  seat 1 (remote:ana): "):
            assert text.split(": ", 1)[1].strip() == join
            break
    again.send_signal(signal.SIGTERM)
    out, _ = again.communicate(timeout=WAIT)
    assert again.returncode == 130 and "Traceback" not in out, out


def test_a_persons_rejoin_line_is_whole_at_a_narrow_terminal(tmp_path: Path) -> None:
    served = Served(["remote:ana", "builtin:random", "builtin:random", "builtin:random"],
                    RULES, 8, tmp_path, away_s=0.1)
    where = f"127.0.0.1:{served.port}"
    child = _narrow("join", where, "--token", served.token(0))
    child.expect(FULL_PROMPT)
    child.sendline("quit")
    child.expect("You left the table")
    child.expect(pexpect.EOF)
    rejoin = _copied(child.before, "Rejoin with:")
    assert rejoin == f"{PROGRAM} join {where} --token {served.token(0)}", rejoin
    assert served.finish().reason == "hand_limit"  # a stand-in played the rest


def test_a_person_who_cannot_get_back_is_given_the_whole_rejoin_line(tmp_path: Path) -> None:
    served = Served(["remote:ana", "builtin:random", "builtin:random", "builtin:random"],
                    RULES, 8, tmp_path, away_s=0.1)
    where = f"127.0.0.1:{served.port}"
    child = _narrow("join", where, "--token", served.token(0), "--retry-s", "1")
    child.expect(FULL_PROMPT)
    served.table.close()  # the table is gone: no listener to join again
    child.expect("connection to the table was lost")
    child.expect("could not be reached again")
    child.expect(pexpect.EOF)
    rejoin = _copied(child.before, "Rejoin with:")
    assert rejoin == f"{PROGRAM} join {where} --token {served.token(0)}", rejoin
    served.wait()  # a stand-in played the rest
