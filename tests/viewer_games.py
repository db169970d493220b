"""Game records and tournaments for the HTML tests, made with the built-in players."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from canasta_cli.core import PRESETS
from canasta_cli.hosting.referee import Referee
from canasta_cli.seats import builtin_seat

ROOT = Path(__file__).resolve().parent.parent
CANASTA = str(Path(sys.executable).with_name("canasta"))
SCRIPT_NAME = "<script>alert(1)</script>"
HTML_BOT = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'html_bot.py'}"


def record_game(folder: Path, preset: str, seed: int, max_hands: int | None = 1,
                kinds: tuple[str, ...] = ("greedy", "random")) -> Path:
    """One game between built-in players, recorded; its path."""
    rules = PRESETS[preset]
    if max_hands is not None:
        rules = rules.with_options(max_hands=max_hands)
    seats = [builtin_seat(f"builtin:{kinds[i % len(kinds)]}", seed + i)
             for i in range(rules.players)]
    path = folder / f"{preset}-{seed}.jsonl"
    Referee(seats, rules).play(1, seed=seed, record_file=path)
    return path


def run_tournament(out: Path, *bots: str, games: int = 3, extra: tuple[str, ...] = ()
                   ) -> subprocess.CompletedProcess[str]:
    args = [CANASTA, "tournament", *(x for b in bots for x in ("--bot", b)), "--games",
            str(games), "--out", str(out), "--seed", "5", "--concurrency", "1",
            "--set", "max_hands=1", *extra]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    # 3: a seat failed in some game (commands/exitcodes.py), said on stderr.
    assert proc.returncode == 0 or (proc.returncode == 3 and "failed: " in proc.stderr), \
        proc.stderr
    return proc


def rows(out: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in (out / "games.jsonl").read_text().splitlines()]
