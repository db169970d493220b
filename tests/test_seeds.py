"""Seeds: every seed a command draws by itself has 128 bits from ``secrets`` (a seat that
knows its own cards cannot search them), and a seed a person gives deals exactly the games it
always dealt (the pins below were computed before seeds grew)."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from canasta_cli.core import new_game
from canasta_cli.core.cards import TEXT_OF
from canasta_cli.ladder.store import deal_seed as ladder_deal_seed
from canasta_cli.tournament.schedule import deal_seed as tournament_deal_seed

CANASTA = str(Path(sys.executable).parent / "canasta")
ONE_HAND = ["--rules", "two-player", "--set", "max_hands=1"]
BIG = 2**100  # a 128-bit seed is below this once in 2**28 draws


def canasta(*args: str, stdin: str | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([CANASTA, *args], capture_output=True, text=True, timeout=600,
                          input=stdin, check=False, cwd=cwd)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def reveals(folder: Path) -> list[int]:
    """The seeds in the ``reveal`` lines of the records under ``folder``."""
    seeds = []
    for path in sorted(folder.rglob("*.jsonl")):
        for line in path.read_text().splitlines():
            obj = json.loads(line)
            if obj.get("type") == "reveal":
                seeds.append(obj["seed"])
    return seeds


# Today's deals, computed before the change: (preset, seed) -> dealer, the stock's last eight
# cards (the next ones drawn come from there) and the discard pile.
PINNED = [
    ("classic", 12345, 3, ["8h", "10h", "7c", "Kc", "8s", "Qh", "7c", "5d"], ["Jc"]),
    ("two-player", 7, 0, ["10c", "2s", "Qs", "4h", "Jc", "6s", "5s", "9s"], ["Jd"]),
    ("classic", 2**127 + 5, 3, ["3s", "Qs", "7h", "9d", "4c", "4h", "Ah", "5d"],
     ["2h", "2d", "5c"]),
]


@pytest.mark.parametrize(("name", "seed", "dealer", "stock", "pile"), PINNED)
def test_a_given_seed_deals_todays_cards(name: str, seed: int, dealer: int, stock: list[str],
                                         pile: list[str]) -> None:
    state = new_game(name, seed=seed)
    assert state.dealer == dealer
    assert [TEXT_OF[c] for c in state.stock[-8:]] == stock
    assert [TEXT_OF[c] for c in state.pile] == pile


def test_a_given_master_seed_derives_todays_deal_seeds() -> None:
    assert tournament_deal_seed(11, ("a", "b"), 0) == 5363781515145000381
    assert tournament_deal_seed(11, ("a", "b"), 3) == 4783888377422709106
    assert tournament_deal_seed(2**63 - 1, ("x", "y", "z"), 2) == 5864615152941857525
    assert [ladder_deal_seed(11, 1), ladder_deal_seed(11, 7), ladder_deal_seed(-5, 2)] == [
        3929230048712873019, 3786880467590068652, 3993620331518693725]


def test_a_given_seed_plays_todays_demo() -> None:
    done = canasta("demo", "--seed", "7", *ONE_HAND)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "two-player: 2 players, seed 7",
        "hand  1: nobody went out              Player 0:  +1705  Player 1:  +1750   totals"
        " 1705 / 1750",
        "Game over (hand_limit): player 1 wins with 1750"]


def test_demo_draws_a_128_bit_seed() -> None:
    seeds = []
    for _ in range(2):
        done = canasta("demo", *ONE_HAND)
        assert done.returncode == 0, done.stderr
        found = re.search(r"seed (\d+)$", done.stdout.splitlines()[0])
        assert found is not None, done.stdout
        seeds.append(int(found[1]))
    assert min(seeds) >= BIG and seeds[0] != seeds[1]
    # The seed it prints is taken back by --seed: the same game.
    again = canasta("demo", *ONE_HAND, "--seed", str(seeds[1]))
    assert again.stdout.splitlines()[0].endswith(f"seed {seeds[1]}")


def test_match_draws_a_128_bit_seed_per_game(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    done = canasta("match", "--seat", "builtin:random", "--seat", "builtin:random", *ONE_HAND,
                   "--games", "3", "--record", str(rec))
    assert done.returncode == 0, done.stderr
    seeds = reveals(rec)
    assert len(seeds) == 3 and min(seeds) >= BIG and len(set(seeds)) == 3
    # A record's seed replays its game: the first game again, from its printed seed.
    again = tmp_path / "again"
    done = canasta("match", "--seat", "builtin:random", "--seat", "builtin:random", *ONE_HAND,
                   "--seed", str(seeds[0]), "--record", str(again))
    assert done.returncode == 0, done.stderr
    assert reveals(again) == seeds[:1]
    first = sorted(rec.glob("game-*.jsonl"))[0].read_text().splitlines()
    assert first[1:-1] == next(again.glob("game-*.jsonl")).read_text().splitlines()[1:-1]


def test_play_draws_a_128_bit_seed(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    secrets_dir = Path(os.environ["XDG_STATE_HOME"]) / "canasta" / "secrets"
    before = set(secrets_dir.glob("*.json")) if secrets_dir.exists() else set()
    done = canasta("play", "--seat", "human", "--seat", "builtin:random", *ONE_HAND,
                   "--save-dir", str(saves), "--plain", stdin="quit\n" * 3)
    assert done.returncode == 0, done.stdout + done.stderr
    (secret,) = set(secrets_dir.glob("*.json")) - before  # the unfinished game's sealed seed
    assert json.loads(secret.read_text())["seed"] >= BIG


def test_serve_draws_a_128_bit_seed_per_game(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    done = canasta("serve", "--seat", "builtin:random", "--seat", "builtin:random", *ONE_HAND,
                   "--games", "2", "--port", "0", "--host", "127.0.0.1",
                   "--save-dir", str(saves))
    assert done.returncode == 0, done.stderr
    seeds = reveals(saves)
    assert len(seeds) == 2 and min(seeds) >= BIG and seeds[0] != seeds[1]


def test_tournament_draws_a_128_bit_master_and_128_bit_deal_seeds(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = canasta("tournament", "--bot", "a=builtin:random", "--bot", "b=builtin:greedy",
                   *ONE_HAND, "--games", "2", "--concurrency", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    master = json.loads((out / "seed.json").read_text())["seed"]
    assert master >= BIG and oct((out / "seed.json").stat().st_mode)[-3:] == "600"
    rows = [json.loads(x) for x in (out / "games.jsonl").read_text().splitlines()]
    assert len(rows) == 4 and min(r["seed"] for r in rows) >= BIG
    assert {r["seed"] for r in rows} == {tournament_deal_seed(master, ("a", "b"), d)
                                         for d in range(2)}
    assert f"seed {master}" in done.stdout  # shown exactly
    # The printed master seed is taken back by --seed: the same games, in another folder.
    again = tmp_path / "again"
    done = canasta("tournament", "--bot", "a=builtin:random", "--bot", "b=builtin:greedy",
                   *ONE_HAND, "--games", "2", "--concurrency", "1", "--out", str(again),
                   "--seed", str(master))
    assert done.returncode == 0, done.stderr
    assert (again / "games.jsonl").read_text() == (out / "games.jsonl").read_text()


def test_ladder_draws_a_128_bit_master_and_128_bit_deal_seeds(tmp_path: Path) -> None:
    db = tmp_path / "ladder" / "l.sqlite"
    for name, command in (("a", "builtin:random"), ("b", "builtin:greedy")):
        assert canasta("ladder", "add", name, command, "--db", str(db)).returncode == 0
    done = canasta("ladder", "run", "--games", "2", *ONE_HAND, "--db", str(db))
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as con:
        (name,) = con.execute("SELECT value FROM meta WHERE key='secret'").fetchone()
    sealed = Path(os.environ["XDG_STATE_HOME"]) / "canasta" / "secrets"
    secret = json.loads((sealed / name).read_text())
    assert secret["seed"] >= BIG and secret["bits"] == 128
    with sqlite3.connect(db) as con:
        seeds = [int(s) for (s,) in con.execute("SELECT seed FROM deals")]
    assert len(seeds) == 2 and min(seeds) >= BIG


def test_an_unseeded_environment_draws_128_bit_game_seeds() -> None:
    pytest.importorskip("pettingzoo")
    from canasta_cli.env import aec_env
    env = aec_env("two-player")
    env.reset()
    first = env.seed_
    env.reset()
    assert min(first, env.seed_) >= BIG and first != env.seed_
    # A seeded one goes on as it always did: the same sequence of games from its seed.
    env.reset(seed=5)
    seeds = [env.seed_]
    for _ in range(2):
        env.reset()
        seeds.append(env.seed_)
    assert seeds == [5, 4712128852136459333, 6613812840851947673]
