"""The ``canasta`` command line."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from canasta_cli.__main__ import app

runner = CliRunner()
BOTS = Path(__file__).resolve().parent.parent / "bots"


def test_help_lists_the_commands() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for cmd in ("rules", "demo", "bench"):
        assert cmd in result.output


def test_rules_prints_every_option_in_plain_words() -> None:
    result = runner.invoke(app, ["rules"])
    assert result.exit_code == 0
    assert "Ruleset: classic" in result.output
    assert "wild_le_natural" in result.output and "more wild cards than natural" in result.output
    assert "red three" in result.output


def test_rules_with_a_preset_and_a_changed_option() -> None:
    result = runner.invoke(app, ["rules", "--rules", "pagat", "--set", "target=3000"])
    assert result.exit_code == 0
    assert "Ruleset: pagat (modified)" in result.output and "reaches 3000" in result.output


def test_rules_json() -> None:
    import json
    result = runner.invoke(app, ["rules", "--json", "-r", "six-player"])
    assert json.loads(result.output)["players"] == 6


@pytest.mark.parametrize(("args", "message"), [
    (["rules", "--rules", "bridge"], "unknown preset 'bridge'"),
    (["rules", "--set", "target=many"], "target takes a whole number"),
    (["rules", "--set", "hand_size=40"], "leaves no stock"),
])
def test_bad_options_get_a_clear_error(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output


def test_demo_plays_a_whole_game() -> None:
    result = runner.invoke(app, ["demo", "--seed", "3", "--set", "target=2000"])
    assert result.exit_code == 0, result.output
    assert "hand  1:" in result.output and "Game over" in result.output


def test_demo_is_reproducible() -> None:
    a = runner.invoke(app, ["demo", "--seed", "8", "-r", "two-player"]).output
    b = runner.invoke(app, ["demo", "--seed", "8", "-r", "two-player"]).output
    assert a == b


def test_demo_with_a_stacked_deck(tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text("seat0: Kh Kd Kc Ks Kh Kd Kc Ah Ad Ac 9h\nstock: Qh Ks\n", encoding="utf-8")
    result = runner.invoke(app, ["demo", "--deck", str(deck), "--dealer", "3", "--seed", "1",
                                 "--set", "target=500"])
    assert result.exit_code == 0, result.output


def test_demo_with_a_bad_deck_file(tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text("Ah Xx\n", encoding="utf-8")
    result = runner.invoke(app, ["demo", "--deck", str(deck)])
    assert result.exit_code == 2 and "unknown card 'Xx'" in result.output
    result = runner.invoke(app, ["demo", "--deck", str(tmp_path / "missing.txt")])
    assert result.exit_code == 2 and "cannot read" in result.output


def test_bench_engine_prints_the_figures() -> None:
    result = runner.invoke(app, ["bench", "engine", "--hands", "5", "-r", "classic"])
    assert result.exit_code == 0
    assert "hands/s" in result.output and "max moves" in result.output
    assert result.output.splitlines()[1].startswith("classic")
    assert "engine; peak memory" in result.output and " MB;" in result.output


def test_console_script_is_installed() -> None:
    exe = shutil.which("canasta") or str(Path(sys.executable).parent / "canasta")
    out = subprocess.run([exe, "rules"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "Ruleset: classic" in out.stdout


def test_position_shows_a_set_up_position_and_its_legal_moves(tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text("seat0: Kh Kd Kc Ks Kh Kd Kc Ah Ad Ac 9h\nstock: Qh Ks\n", encoding="utf-8")
    result = runner.invoke(app, ["position", "--deck", str(deck), "--dealer", "3",
                                 "--moves", "draw"])
    assert result.exit_code == 0, result.output
    assert "Your hand (12)" in result.output
    assert "Legal moves: ask, meld K K K," in result.output and "discard 9" in result.output
    as_json = runner.invoke(app, ["position", "--deck", str(deck), "--dealer", "3",
                                  "--moves", "draw; meld K K K K K K K K", "--json"])
    data = json.loads(as_json.output)
    assert data["observation"]["melds"][0][0]["canasta"] == "natural"
    bad = runner.invoke(app, ["position", "--deck", str(deck), "--dealer", "3",
                              "--moves", "draw; meld Q Q Q"])
    assert bad.exit_code == 2 and "move 2 ('meld Q Q Q') by seat 0: you hold 0 Q" in bad.output


def test_bad_dealer_and_a_binary_deck_file_are_one_line_errors(tmp_path: Path) -> None:
    binary = tmp_path / "deck.txt"
    binary.write_bytes(b"seat0: \xff\xfe\n")
    for args in (["demo", "--dealer", "9"], ["position", "--dealer", "-1"],
                 ["position", "--deck", str(binary)]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit)
        lines = [x for x in result.output.splitlines() if x.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), result.output


def test_help_shows_no_bool_types() -> None:
    for command in (["play"], ["match"], ["tournament"], ["bot", "check"], ["replay"]):
        result = CliRunner().invoke(app, [*command, "--help"])
        assert result.exit_code == 0 and "<bool>" not in result.output, result.output


def test_replay_step_shows_the_table_as_the_seat_saw_it(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    done = CliRunner().invoke(app, ["match", "--seat", "builtin:greedy", "--seat",
                                    "builtin:random", "--seat", "builtin:greedy", "--seat",
                                    "builtin:random", "--set", "max_hands=1", "--record",
                                    str(rec)])
    assert done.exit_code == 0, done.output
    result = CliRunner().invoke(app, ["replay", "--step", "--seat", "0",
                                      str(rec / "game-0001.jsonl")], input="\n\nq\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("[Enter: next step, q: quit]") == 3  # q stopped it
    assert result.output.count("== Hand 1 - seat 0") == 3
    assert "Left is dealt 11 cards" in result.output and "Your hand (11)" in result.output


def test_demo_step_shows_every_move_and_stops_on_q() -> None:
    result = CliRunner().invoke(app, ["demo", "--seed", "3", "--step"], input="\nq\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("[Enter: next step, q: quit]") == 2
    assert "--> seat 1: draw" in result.output


def test_bench_tournament_interleaves_the_concurrency_levels() -> None:
    result = runner.invoke(app, ["bench", "tournament", "--bot", "builtin:random", "--games",
                                 "2", "--rounds", "2"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("4 games a run; load average at start")
    assert [ln.split(":")[0] for ln in lines[1:3]] == ["round 1", "round 2"]
    assert "speed-up: median" in lines[3] and "2 rounds" in lines[3]


def test_bench_tournament_warns_when_the_bot_fails(tmp_path: Path) -> None:
    """A bot that cannot play still gives figures (the referee's default moves), headed by a
    warning that says how many games failed, why, and how to check the bot."""
    result = runner.invoke(app, ["bench", "tournament", "--bot", str(tmp_path / "missing"),
                                 "--games", "1", "--rounds", "1"])
    assert result.exit_code == 0, result.output
    warning = result.output.splitlines()[1]
    assert warning.startswith("warning: the bot failed in 2 of the 2 games of a run (first:"
                              " CRASHED: handshake: cannot start"), warning
    assert f"canasta bot check {tmp_path / 'missing'}" in warning
    fine = runner.invoke(app, ["bench", "tournament", "--bot", "builtin:random", "--games", "1",
                               "--rounds", "1"])
    assert "warning" not in fine.output


@pytest.mark.parametrize("what", ["protocol", "tournament"])
def test_bench_without_the_example_bot_says_so(what: str, monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    """An installed copy has no bots/ directory: the bench refuses instead of timing a bot
    that cannot start."""
    from canasta_cli.bench import example_bot
    monkeypatch.setattr(example_bot, "bots_dir", lambda: tmp_path / "bots")
    result = CliRunner().invoke(app, ["bench", what, "--games", "1", "--rounds", "1"]
                                if what == "tournament" else ["bench", what, "--games", "1"])
    assert result.exit_code == 2
    assert "random_bot.py is not there" in result.output and "--bot" in result.output


def test_bench_referee_prints_interleaved_rounds_and_the_median() -> None:
    result = CliRunner().invoke(app, ["bench", "referee", "--games", "2", "--rounds", "2"])
    assert result.exit_code == 0, result.output
    rounds = [line for line in result.output.splitlines() if line.startswith("round ")]
    assert len(rounds) == 2 and all("bare engine" in line and "ratio" in line for line in rounds)
    summary, memory = result.output.splitlines()[-2:]
    assert "2 games of classic x 2 rounds: median" in summary
    assert memory.startswith("peak memory ") and " MB;" in memory
    assert float(summary.split("median ")[1].split()[0]) > 0  # a ratio of two timings


def test_bench_protocol_times_the_example_bot_against_the_echo() -> None:
    result = CliRunner().invoke(app, ["bench", "protocol", "--games", "2", "--inside", "1"])
    assert result.exit_code == 0, result.output
    out = result.output
    decisions = int(out.split("decisions measured: ")[1].split()[0])
    assert decisions > 20
    assert "round trip, referee + bot:  median" in out and "bare JSON-line echo floor:" in out
    assert "median of 2 interleaved rounds (a game, then its echo)" in out
    idle = out.split("each idle as long as its bot was before each request")[1]
    assert float(idle.split("median ")[1].split()[0]) > 0
    # Requests split by whether the bot had answered the one before: the two counts add up.
    counts = [int(out.split(f"requests {kind}")[1].split(": ")[1].split(",")[0])
              for kind in ("to the bot that answered the request before",
                           "to a bot woken after other seats' turns")]
    assert min(counts) > 0 and sum(counts) == decisions
    # The bare reference bot played the same deals through a referee and box of its own.
    bare = out.split("a bare bot through the same referee and box")[1].splitlines()[0]
    assert float(bare.split("median ")[1].split()[0]) > 0
    assert float(bare.split("ratio ")[1].split("x")[0]) > 0
    assert "the bare bot failed" not in out
    # The example bot's own clock splits each exchange: every part is there, none negative,
    # and the bot's readings and the referee's never contradict each other (one clock).
    inside = out.split("inside the bot (1 more games")[1]
    for kind in ("awake", "woken"):
        line = inside.split(f"  {kind}, ")[1].splitlines()[0]
        assert int(line.split()[0]) > 0
        labels = ("first line read ", "queued events ", "answer written) ", "the referee ",
                  "the exchange ")
        parts = [float(line.split(label)[1].split()[0]) for label in labels]
        assert all(p >= 0 for p in parts) and parts[4] > 0
    assert "exchanges whose clock readings were out of order: 0" in inside
    assert "one-hand 4-player game: subprocess bots" in out


def test_bench_protocol_times_an_authors_own_kit_bot_inside(tmp_path: Path) -> None:
    """``--inside`` with ``--bot 'python3 BOT.py'``: the author's kit bot times itself (its
    file, its capabilities); a bot that is not a Python file is said not to be timed."""
    bot = tmp_path / "my_bot.py"
    bot.write_text("import canasta_kit\n\n"
                   "def choose(observation, moves):\n"
                   "    return observation['public'] and moves[-1]\n\n"
                   "if __name__ == '__main__':\n"
                   "    canasta_kit.run(choose, 'mine', ('annotations',))\n")
    result = CliRunner().invoke(app, ["bench", "protocol", "--games", "1", "--inside", "1",
                                      "--bot", f"{sys.executable} {bot}"])
    assert result.exit_code == 0, result.output
    inside = result.output.split("inside the bot (1 more games of my_bot.py timing itself")[1]
    counts = [int(inside.split(f"  {kind}, ")[1].split()[0]) for kind in ("awake", "woken")]
    assert min(counts) > 0
    assert "exchanges whose clock readings were out of order: 0" in inside
    echo = ("import sys\nfor line in sys.stdin:\n    if line.startswith('{\"type\":\"hello\"'):\n"
            "        print('{\"type\":\"ready\",\"protocol\":\"canasta/1.1\"}', flush=True)\n"
            "    elif line.startswith('{\"type\":\"act\"'):\n"
            "        i = line.split('\"id\":')[1].split(',')[0]\n"
            "        print('{\"type\":\"move\",\"id\":' + i + ',\"index\":0}', flush=True)\n")
    other = CliRunner().invoke(app, ["bench", "protocol", "--games", "1", "--inside", "1",
                                     "--bot", shlex.join([sys.executable, "-c", echo])])
    assert other.exit_code == 0, other.output
    assert "inside the bot: not timed: --inside times a Python bot file" in other.output
    assert "awake," not in other.output
    # Not on the kit: timed, but no stamps come back, and the bench says why.
    greedy = CliRunner().invoke(app, ["bench", "protocol", "--games", "1", "--inside", "1",
                                      "--bot", f"{sys.executable} {BOTS / 'greedy_bot.py'}"])
    assert greedy.exit_code == 0, greedy.output
    assert "no stamps came back: the bot does not play through canasta_kit.run" in greedy.output


def test_bench_protocol_refuses_a_builtin_and_explains_a_bot_that_never_answers() -> None:
    builtin = CliRunner().invoke(app, ["bench", "protocol", "--bot", "builtin:search"])
    assert builtin.exit_code == 2
    assert "plays in-process" in builtin.output and "canasta bot run search" in builtin.output
    dead = CliRunner().invoke(app, ["bench", "protocol", "--games", "1", "--inside", "0",
                                    "--bot", shlex.join([sys.executable, "-c", "pass"])])
    assert dead.exit_code == 2, dead.output
    assert "the bot answered no request" in dead.output
    assert "every seat: CRASHED: handshake" in dead.output
    assert f"canasta bot check '{sys.executable} -c pass'" in dead.output
    # A bot that answers three requests, then exits: timed, and the failure said first.
    short = ("import sys\nn = 0\nfor line in sys.stdin:\n"
             "    if line.startswith('{\"type\":\"hello\"'):\n"
             "        print('{\"type\":\"ready\",\"protocol\":\"canasta/1.1\"}', flush=True)\n"
             "    elif line.startswith('{\"type\":\"act\"'):\n"
             "        n += 1\n"
             "        if n > 3:\n"
             "            sys.exit(3)\n"
             "        i = line.split('\"id\":')[1].split(',')[0]\n"
             "        print('{\"type\":\"move\",\"id\":' + i + ',\"index\":0}', flush=True)\n")
    partial = CliRunner().invoke(app, ["bench", "protocol", "--games", "1", "--inside", "0",
                                       "--bot", shlex.join([sys.executable, "-c", short])])
    assert partial.exit_code == 0, partial.output
    said = partial.output.splitlines()[1]
    assert said.startswith("the bot failed in these games (its failed requests are not timed):"
                           " every seat: CRASHED"), said


@pytest.mark.parametrize("preset", ["two-player", "three-player-cutthroat", "six-player"])
def test_the_bare_reference_bot_plays_every_request_legally(preset: str) -> None:
    """``bench protocol``'s bare bot reads a request's id and counts its moves off the line:
    boxed like any bot, it answers every request of a game with a listed move."""
    from canasta_cli.bench.protocol import BARE_BOT
    from canasta_cli.core import preset as load
    from canasta_cli.hosting.referee import Referee
    from canasta_cli.seats import SubprocessSeat

    rules = load(preset).with_options(max_hands=1)
    ref = Referee([SubprocessSeat([sys.executable, "-c", BARE_BOT], name=f"bare{i}")
                   for i in range(rules.players)], rules)
    try:
        ref.start()
        ref.play(1, seed=3)
    finally:
        ref.close()
    assert len(ref.round_trips_ms) > 20
    assert [(r.status, r.default_moves, r.errors) for r in ref.reports] == \
        [("OK", 0, [])] * rules.players


def test_bench_protocol_takes_a_preset_with_a_bot_per_seat() -> None:
    result = CliRunner().invoke(app, ["bench", "protocol", "--games", "1", "-r", "two-player"])
    assert result.exit_code == 0, result.output
    assert "one-hand 2-player game: subprocess bots" in result.output
    bad = CliRunner().invoke(app, ["bench", "protocol", "--rules", "nope"])
    assert bad.exit_code == 2 and "unknown preset 'nope'" in bad.output
