"""``canasta bench net`` runs and prints both round trips, their ratio and the load average."""

from __future__ import annotations

import subprocess

from net_helpers import CANASTA, ROOT


def test_bench_net_prints_interleaved_round_trips() -> None:
    done = subprocess.run([CANASTA, "bench", "net", "--rounds", "1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "round 1: direct median" in out and "through the table median" in out
    assert "ratio: median" in out and "load average at end" in out
