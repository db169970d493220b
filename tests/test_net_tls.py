"""TLS: ``canasta serve --tls-cert/--tls-key`` with a certificate made here, a bot and a
spectator joining with ``--tls-ca``; clients without TLS, or without the certificate, are
turned away with a clear error.  A TLS table stays TLS: its resume line carries its
certificate and key, it is not resumed without them, and a client's rejoin line keeps
``--tls --tls-ca``."""

from __future__ import annotations

import shlex
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from net_helpers import (
    ANSI,
    CANASTA,
    FULL_PROMPT,
    ROOT,
    WAIT,
    Raw,
    Served,
    certificate,
    env,
    record_of,
    serve,
)

from canasta_cli.core import CLASSIC
from canasta_cli.net.client import JoinError, Link, server_tls, tls_context


def _join(address: str, token: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "canasta_cli.cli", "join", address, "--token",
                           token, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=WAIT)


def test_tls_round_trip(tmp_path: Path) -> None:
    cert, key = certificate(tmp_path)
    proc, tokens, address = serve("--tls-cert", str(cert), "--tls-key", str(key), "--seed", "3",
                                  "--set", "max_hands=1", "--save-dir", str(tmp_path / "g"),
                                  "--seat", "remote", "--seat", "builtin:random", "--seat",
                                  "builtin:random", "--seat", "builtin:random")
    host, port = address.split(":")
    plain = _join(address, tokens["0"], "--bot", f"{sys.executable} bots/random_bot.py")
    assert plain.returncode == 2 and "closed the connection during the handshake" in \
        plain.stderr, plain.stderr
    with pytest.raises(JoinError, match="certificate verify failed"):
        Link(host, int(port), tokens["watch"], "watch", tls_context(None))
    watcher = subprocess.Popen([sys.executable, "-m", "canasta_cli.cli", "join", address,
                                "--token", tokens["watch"], "--watch", "--tls-ca", str(cert)],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    assert watcher.stdout is not None
    assert watcher.stdout.readline().startswith("Watching")  # joined before the game starts
    bot = _join(address, tokens["0"], "--tls-ca", str(cert), "--bot",
                f"{sys.executable} bots/random_bot.py")
    assert bot.returncode == 0 and "joined seat 0" in bot.stdout, bot.stdout + bot.stderr
    out, _ = proc.communicate(timeout=WAIT)
    seen, _ = watcher.communicate(timeout=WAIT)
    assert proc.returncode == 0 and "Game 1 over (hand_limit)" in out, out
    assert "== Game over (hand_limit)" in seen, seen
    lines = record_of(next((tmp_path / "g").glob("*.jsonl")))
    assert lines[-1]["reason"] == "hand_limit"
    assert lines[-1]["seats"][0]["status"] == "OK" and lines[-1]["seats"][0]["decisions"] > 10


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_tls_table_goes_on_with_tls_only(tmp_path: Path) -> None:
    """Its tokens were given out encrypted: its resume line carries the certificate and key,
    and ``serve --resume`` without them is refused with the line to use."""
    cert, key = certificate(tmp_path)
    saves, port = tmp_path / "saves", str(_free_port())
    proc, tokens, _ = serve("--tls-cert", str(cert), "--tls-key", str(key), "--seed", "4",
                            "--save-dir", str(saves), "--port", port, "--seat", "remote:ana",
                            "--seat", "builtin:random", "--seat", "builtin:random", "--seat",
                            "builtin:random")
    ana = Raw(int(port), tokens["0"], "person", tls=tls_context(str(cert)))
    assert ana.play(stop=lambda m: m["type"] == "act")["type"] == "act"
    proc.send_signal(signal.SIGTERM)  # the host stops the table mid-game
    out, _ = proc.communicate(timeout=WAIT)
    ana.close()
    record = next(saves.glob("*.jsonl"))
    line = f" serve --resume {record} --tls-cert {cert} --tls-key {key} --port {port}"
    go_on = [ln for ln in out.splitlines() if ln.startswith("Go on with: ")]
    assert len(go_on) == 1 and go_on[0].endswith(line), out
    for spec in (str(record), "last", "1"):
        clear = subprocess.run([CANASTA, "serve", "--resume", spec, "--save-dir", str(saves),
                                "--port", port], capture_output=True, text=True, timeout=WAIT)
        said = clear.stderr.splitlines()
        assert clear.returncode == 2 and len(said) == 2, clear.stderr
        assert said[0].startswith("error: ") and "served with TLS" in said[0], said
        assert said[1].startswith("Go on with: ") and said[1].endswith(line), said
    again, tokens2, address = serve("--resume", "last", "--save-dir", str(saves), "--tls-cert",
                                    str(cert), "--tls-key", str(key), "--port", port)
    assert tokens2 == tokens  # the same table, with TLS
    with pytest.raises(JoinError, match="closed the connection during the handshake"):
        Link("127.0.0.1", int(port), tokens["0"], "person")  # in clear: no
    again.send_signal(signal.SIGTERM)
    out2, _ = again.communicate(timeout=WAIT)
    assert again.returncode == 130 and line in out2, out2


def test_a_tls_clients_rejoin_line_keeps_its_tls(tmp_path: Path) -> None:
    cert, key = certificate(tmp_path)
    served = Served(["remote:ana", "builtin:random", "builtin:random", "builtin:random"],
                    CLASSIC.with_options(max_hands=1), 8, tmp_path,
                    tls=server_tls(str(cert), str(key)), away_s=0.1)
    where = f"127.0.0.1:{served.port}"
    environment = env()
    environment.pop("COLUMNS", None)
    environment.pop("LINES", None)
    child = pexpect.spawn(sys.executable, ["-m", "canasta_cli.cli", "join", where, "--token",
                                           served.token(0), "--tls-ca", str(cert)], cwd=ROOT,
                          env=environment, encoding="utf-8", timeout=WAIT, dimensions=(24, 50))
    child.expect(FULL_PROMPT)
    child.sendline("quit")
    child.expect("You left the table")
    child.expect(pexpect.EOF)
    rejoin = ANSI.sub("", child.before).replace("\r\n", "\n").split("Rejoin with: ", 1)[1]
    program = f"{shlex.quote(sys.executable)} -m canasta_cli.cli"
    assert rejoin.split("\n", 1)[0] == (f"{program} join {where} --token {served.token(0)}"
                                        f" --tls --tls-ca {cert}"), rejoin
    assert served.finish().reason == "hand_limit"
