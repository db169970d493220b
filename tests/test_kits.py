"""The kits as installed (``import canasta_kit``, ``canasta kit path``), the starters of
``canasta kit init`` passing ``bot check`` as written, and the JavaScript kit doing what the
Python kit does on the same games."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CANASTA = str(Path(sys.executable).parent / "canasta")


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CANASTA, *args], capture_output=True, text=True, timeout=600,
                          check=False, cwd=cwd)


def test_the_python_kit_imports_from_anywhere_and_is_the_one_in_bots(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", "import canasta_kit; print(canasta_kit.__file__)"],
                          capture_output=True, text=True, cwd=tmp_path, check=True)
    # The same file as bots/canasta_kit.py (a link to it in a checkout, a copy in a wheel).
    assert Path(done.stdout.strip()).read_bytes() == (ROOT / "bots" / "canasta_kit.py").read_bytes()
    js = Path(run("kit", "path", "bots").stdout.strip()) / "canasta_kit.js"
    assert js.read_bytes() == (ROOT / "bots" / "canasta_kit.js").read_bytes()


def test_kit_helpers() -> None:
    import canasta_kit as kit
    assert [kit.card_points(c) for c in ("Jo", "2h", "Ah", "Kd", "8s", "7c", "4h", "3s")] == \
        [50, 20, 20, 10, 10, 5, 5, 5]
    melds = kit.opening_melds(["Kh", "Kd", "Ks", "Qh", "Qd", "2c", "5h"], 50)
    assert melds == [["Kh", "Kd", "Ks"], ["Qh", "Qd", "2c"]]
    assert kit.opening_melds(["Kh", "Kd", "5h"], 50) is None
    assert kit.discard_safety("3c", {}) == 1.0
    assert kit.discard_safety("Kh", {"known": [["Kc", "Ks"]], "unseen": {"Kd": 1}}) == 0.0
    assert kit.discard_safety("7h", {"unseen": {"7h": 0}}) > kit.discard_safety(
        "7h", {"unseen": {"7h": 2, "7d": 2}})


LANGS = [("python", "bot.py", None), ("js", "bot.js", "node"), ("c", "bot.c", "cc")]


@pytest.mark.parametrize(("lang", "source", "tool"), LANGS)
def test_each_starter_passes_bot_check_as_written(tmp_path: Path, lang: str, source: str,
                                                  tool: str | None) -> None:
    if tool and not shutil.which(tool):
        pytest.skip(f"no {tool} here")
    folder = tmp_path / "mybot"
    done = run("kit", "init", str(folder), "--lang", lang)
    assert done.returncode == 0, done.stderr
    readme = (folder / "README.md").read_text()
    lines = [line.split("    #")[0].strip() for line in readme.split("```sh\n")[1].split("```")[0]
             .splitlines()]
    assert (folder / source).is_file() and len(lines) == (4 if lang == "c" else 3)
    if lang == "c":
        subprocess.run(lines[1].split(), cwd=folder, check=True, timeout=300)
    check = next(line for line in lines if line.startswith("canasta bot check"))
    done = subprocess.run(check.replace("canasta", CANASTA, 1), shell=True, cwd=folder,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    # The stacked deals of classic (rare_deals.CLASSIC_DEALS), then 10 dealt games.
    assert "0 failed" in done.stdout and "real games: 20 games without a failure" in done.stdout
    assert run("kit", "init", str(folder), "--lang", lang).returncode == 2  # not empty


@pytest.mark.skipif(not shutil.which("node"), reason="no node here")
def test_the_js_kit_gets_the_same_match_end_results_as_the_python_kit(tmp_path: Path) -> None:
    py = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'kit_results.py'}"
    folder = tmp_path / "js"  # the bot's folder, with the kit as canasta kit path gives it
    folder.mkdir()
    shutil.copyfile(ROOT / "tests" / "bots" / "kit_results.js", folder / "kit_results.js")
    shutil.copyfile(Path(run("kit", "path", "bots").stdout.strip()) / "canasta_kit.js",
                    folder / "canasta_kit.js")
    js = f"node {folder / 'kit_results.js'} {folder}"
    logs = tmp_path / "logs"
    done = run("match", "--seat", py, "--seat", js, "--rules", "two-player", "--set",
               "max_hands=1", "--games", "2", "--seed", "4", "--record", str(logs))
    assert done.returncode == 0, done.stderr
    got = []
    for seat in (0, 1):
        text = (logs / f"seat{seat}.stderr.log").read_text()
        line = next(x for x in text.splitlines() if x.startswith("RESULTS "))
        got.append(json.loads(line.removeprefix("RESULTS ")))
    assert got[0] == got[1] and len(got[0]) == 2


@pytest.mark.skipif(not shutil.which("node"), reason="no node here")
def test_the_js_helpers_agree_with_the_python_helpers() -> None:
    import canasta_kit as kit
    hands = [["Kh", "Kd", "Ks", "Qh", "Qd", "2c", "5h"], ["Kh", "Kd", "5h"],
             ["Ah", "Ad", "Jo", "7c", "7d", "7s", "9h", "9d", "2s", "3h", "3c"]]
    cards = ["Jo", "2h", "Ah", "Kd", "8s", "7c", "4h", "3s", "3d", "10h"]
    public = {"unseen": {"7h": 1, "7d": 2, "Kh": 2}, "known": [["Kc"], []],
              "discards": [["7s"], ["10c"]]}
    want = {"points": [kit.card_points(c) for c in cards],
            "melds": [kit.opening_melds(h, m) for h in hands for m in (0, 50, 90)],
            "safety": [kit.discard_safety(c, public) for c in cards]}
    script = f"""
const kit = require({json.dumps(str(ROOT / "bots" / "canasta_kit.js"))});
const hands = {json.dumps(hands)}, cards = {json.dumps(cards)}, pub = {json.dumps(public)};
console.log(JSON.stringify({{
  points: cards.map(kit.cardPoints),
  melds: hands.flatMap((h) => [0, 50, 90].map((m) => kit.openingMelds(h, m))),
  safety: cards.map((c) => kit.discardSafety(c, pub)),
}}));"""
    done = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=60,
                          check=True)
    got = json.loads(done.stdout)
    assert got["points"] == want["points"] and got["melds"] == want["melds"]
    assert got["safety"] == pytest.approx(want["safety"])
