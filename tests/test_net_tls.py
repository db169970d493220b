"""TLS: ``canasta serve --tls-cert/--tls-key`` with a certificate made here, a bot and a
spectator joining with ``--tls-ca``; clients without TLS, or without the certificate, are
turned away with a clear error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from net_helpers import ROOT, WAIT, certificate, record_of, serve

from canasta_cli.net.client import JoinError, Link, tls_context


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
