"""bench engine --compare: this checkout against a revision, interleaved, by CPU time."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from canasta_cli.__main__ import app
from canasta_cli.bench.compare import Round, summary

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def test_the_ratio_is_of_cpu_time_with_the_wall_clock_beside_it() -> None:
    a: dict[str, float | str] = {"hands": 100, "seconds": 4.0, "cpu": 1.0, "digest": "x"}
    b: dict[str, float | str] = {"hands": 100, "seconds": 2.0, "cpu": 3.0, "digest": "x"}
    rnd = Round("classic", a, b)
    assert rnd.ratio == pytest.approx(3.0) and rnd.wall_ratio == pytest.approx(0.5)
    (line,) = summary([rnd], "REV")
    assert "median 3.00" in line and "wall 0.50" in line and "same games: yes" in line


@pytest.mark.skipif(subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"],
                                   capture_output=True, check=False).returncode != 0,
                    reason="needs the project's git history")
def test_compare_with_head_plays_the_same_games(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    out = runner.invoke(app, ["bench", "engine", "--compare", "HEAD", "--hands", "3",
                              "--rounds", "1", "-r", "two-player"])
    assert out.exit_code == 0, out.output
    assert "hands/cpu-s" in out.output and "(wall " in out.output
    assert "two-player" in out.output and "same games: yes" in out.output
