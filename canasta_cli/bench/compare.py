"""``canasta bench engine --compare REV``: this checkout against another revision, interleaved.

Each round runs one fresh process per (preset, revision), alternating A B A B, so that machine
drift touches both sides alike; the ratio is taken per round and reported as its median and
spread with the load average.  The ratio is of hands per CPU second (the wall clock's is
printed beside it): on a loaded machine a process's wall time counts its waits for a core.
Each process also hashes every move and score it played, so the report says whether both
revisions played exactly the same games.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import CanastaError

# Runs inside the measured revision: only the core API every revision has.
_PLAYER = r'''
import hashlib, json, random, sys, time
sys.path.insert(0, sys.argv[1])
from canasta_cli.core import apply, legal_moves, new_game, preset
rules = preset(sys.argv[2]).with_options(max_hands=1000)
hands = int(sys.argv[3])
played = decisions = game = 0
rng = random.Random(0)
log = []  # moves and scores, hashed after the clock stops
start, cpu = time.perf_counter(), time.process_time()
while played < hands:
    state = new_game(rules, seed=game)
    game += 1
    while not state.is_over and played + len(state.results) < hands:
        moves = legal_moves(state)
        decisions += 1
        move = moves[rng.randrange(len(moves))]
        log.append(move)
        state = apply(state, move)
    played += len(state.results)
    log.append(state.scores)
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
digest = hashlib.sha256()
for item in log:
    digest.update(repr(item).encode())
print(json.dumps({"hands": played, "decisions": decisions, "seconds": seconds, "cpu": cpu,
                  "digest": digest.hexdigest()}))
'''


class CompareError(CanastaError, RuntimeError):
    """The other revision cannot be checked out or run."""


@dataclass
class Round:
    preset: str
    a: dict[str, float | str]
    b: dict[str, float | str]

    @property
    def ratio(self) -> float:
        """Of hands per CPU second: on a shared machine a process's wall time counts the
        time it waited for a core, its CPU time does not."""
        return _rate(self.a, "cpu") / _rate(self.b, "cpu")

    @property
    def wall_ratio(self) -> float:
        return _rate(self.a, "seconds") / _rate(self.b, "seconds")


def _rate(run: dict[str, float | str], clock: str) -> float:
    return float(run["hands"]) / float(run[clock])


def export_revision(rev: str, into: Path) -> Path:
    """The package of ``rev`` (from this checkout's git history) unpacked under ``into``."""
    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        # An installed copy (the compiled build, say) measured against a checkout's history.
        root = Path.cwd()
    if not (root / ".git").exists():
        raise CompareError(f"{root} is not a git checkout: --compare needs the project's history"
                           " (run it from the checkout)")
    archive = into / "rev.tar"
    proc = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", "-o", str(archive),
                           rev, "canasta_cli"], capture_output=True, text=True, check=False)
    if proc.returncode:
        raise CompareError(f"git archive {rev}: {proc.stderr.strip()[:200]}")
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into


def _run(root: Path, preset: str, hands: int) -> dict[str, float | str]:
    proc = subprocess.run([sys.executable, "-c", _PLAYER, str(root), preset, str(hands)],
                          capture_output=True, text=True, check=False, cwd=root)
    if proc.returncode:
        raise CompareError(f"{root}: {proc.stderr.strip().splitlines()[-1:]}")
    return dict(json.loads(proc.stdout))


def _has_preset(root: Path, name: str) -> bool:
    probe = "import sys; sys.path.insert(0, sys.argv[1]); from canasta_cli.core import PRESETS; " \
        "sys.exit(0 if sys.argv[2] in PRESETS else 3)"
    return subprocess.run([sys.executable, "-c", probe, str(root), name], cwd=root,
                          capture_output=True, check=False).returncode == 0


def compare(rev: str, presets: list[str], hands: int, rounds: int,
            echo: Callable[[str], object] = print) -> list[Round]:
    here = Path(__file__).resolve().parent.parent
    out: list[Round] = []
    with tempfile.TemporaryDirectory(prefix="canasta-compare-") as tmp:
        other = export_revision(rev, Path(tmp))
        missing = [n for n in presets if not _has_preset(other, n)]
        for name in missing:
            echo(f"{name}: not a preset of {rev}, left out")
        for r in range(rounds):
            for name in (n for n in presets if n not in missing):
                a = _run(here, name, hands)
                b = _run(other, name, hands)
                rnd = Round(name, a, b)
                out.append(rnd)
                echo(f"round {r + 1} {name:<24} this {_rate(a, 'cpu'):8.1f}"
                     f" hands/cpu-s   {rev} {_rate(b, 'cpu'):8.1f} hands/cpu-s"
                     f"   ratio {rnd.ratio:5.2f} (wall {rnd.wall_ratio:5.2f})"
                     f"   load {os.getloadavg()[0]:.2f}"
                     + ("" if a["digest"] == b["digest"] else "   GAMES DIFFER"))
    return out


def summary(rounds: list[Round], rev: str) -> list[str]:
    lines = []
    for name in dict.fromkeys(r.preset for r in rounds):
        mine = [r for r in rounds if r.preset == name]
        ratios = sorted(r.ratio for r in mine)
        wall = statistics.median(r.wall_ratio for r in mine)
        same = all(r.a["digest"] == r.b["digest"] for r in mine)
        lines.append(f"{name:<24} ratio this/{rev}: median {statistics.median(ratios):.2f}"
                     f" (min {ratios[0]:.2f}, max {ratios[-1]:.2f}, {len(ratios)} rounds; wall {wall:.2f});"
                     f" same games: {'yes' if same else 'NO'}")
    return lines
