"""The house rules that hold the code together: one error family, observations that share
nothing, kinds out of range refused as illegal moves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from canasta_cli.core import (
    CanastaError,
    GameState,
    IllegalMoveError,
    apply,
    legal_moves,
    new_game,
    observation,
)
from canasta_cli.core.moves import Add, Discard, Meld, TakePile


def _with_melds() -> GameState:
    """A classic game played until both sides have melds on the table."""
    import random
    rng = random.Random(3)
    for seed in range(50):
        st = new_game("classic", seed=seed)
        while not st.is_over and st.hand_no == 1:
            if all(any(m is not None for m in row) for row in st.melds) and st.phase.value == "draw":
                return st
            st = apply(st, rng.choice(legal_moves(st)))
    raise AssertionError("no game with melds on both sides in 50 seeds")


def test_changing_one_observation_in_place_changes_nothing_else() -> None:
    st = _with_melds()
    views = [observation(st, s) for s in range(st.rules.players)]
    before = [json.dumps(v, sort_keys=True) for v in views]
    mine = views[0]
    meld = next(m for row in mine["melds"] for m in row)
    meld["naturals"] = 99
    meld["cards"].append("Jo")
    mine["hand"].append("Jo")
    mine["scores"][0] = 12345
    mine["turn"]["asked"] = "yes"
    mine["history"][0]["dealer"] = 9
    mine["history"][-1].clear()
    for seat in range(1, st.rules.players):
        assert json.dumps(views[seat], sort_keys=True) == before[seat]
    again = [json.dumps(observation(st, s), sort_keys=True)
             for s in range(st.rules.players)]
    assert again == before
    nxt = apply(st, legal_moves(st)[0])
    assert "99" not in json.dumps(observation(nxt, 1)["melds"])


@pytest.mark.parametrize("move", [Discard(15), Discard(99), Discard(-1), Add(3, 15), Add(-2, 3),
                                  Meld(-1, 3), Meld(3, -3), TakePile(99), Meld(True, 3)])
def test_a_kind_out_of_range_is_an_illegal_move_with_a_reason(move: object) -> None:
    st = apply(new_game("classic", seed=1), "draw")
    with pytest.raises(IllegalMoveError) as exc:
        apply(st, move)  # type: ignore[arg-type]
    reason = str(exc.value)
    assert "not a card kind" in reason or "whole number of cards" in reason
    assert "you hold" not in reason


def test_every_refusal_is_one_family() -> None:
    from canasta_cli.core import CardParseError, DeckError, DeckFileError, NotationError, RulesError
    from canasta_cli.hosting.records import RecordError
    from canasta_cli.protocol.replies import IllegalReply, ProtocolError
    for error in (CardParseError, DeckError, DeckFileError, NotationError, RulesError,
                  IllegalMoveError, RecordError, ProtocolError, IllegalReply):
        assert issubclass(error, CanastaError), error
    with pytest.raises(CanastaError):
        apply(new_game("classic", seed=1), "meld nonsense")


def test_the_records_module_reads_what_it_writes(tmp_path: Path) -> None:
    from canasta_cli.hosting.records import RecordError, RecordWriter, load_record
    path = tmp_path / "game.jsonl"
    record = RecordWriter(path)
    record.header(game=1, sealed=True)
    record.move(0, "draw", "bot")
    record.failure(1, "TIMEOUT", "no answer")
    record.result({"winner": 0, "seed": 7}, sealed=True)
    record.close()
    assert path.stat().st_mode & 0o077 == 0
    lines = load_record(path)
    assert [ln["type"] for ln in lines] == ["header", "move", "failure", "result"]
    assert lines[-1]["seed"] is None and lines.numbers == [1, 2, 3, 4]
    with path.open("a", encoding="utf-8") as f:
        f.write('{"type": "mo')  # torn by a crash
    assert len(load_record(path, torn_ok=True)) == 4
    with pytest.raises(RecordError, match=r"game.jsonl:5: not JSON"):
        load_record(path)


def test_kit_path_names_the_kits_and_the_schemas() -> None:
    from typer.testing import CliRunner

    from canasta_cli.__main__ import app
    result = CliRunner().invoke(app, ["kit", "path"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [ln.split(":")[0] for ln in lines] == ["bots", "protocol", "schemas"]
    bots = Path(CliRunner().invoke(app, ["kit", "path", "bots"]).output.strip())
    assert (bots / "canasta_kit.py").is_file() and (bots / "random_bot.py").is_file()
    schemas = Path(CliRunner().invoke(app, ["kit", "path", "schemas"]).output.strip())
    assert (schemas / "act.json").is_file()
    wrong = CliRunner().invoke(app, ["kit", "path", "nope"])
    assert wrong.exit_code == 2 and "bots, protocol, schemas" in wrong.output


def test_an_installed_copy_finds_its_data_inside_the_package(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from canasta_cli.util import package_data
    (tmp_path / "_data" / "bots").mkdir(parents=True)
    monkeypatch.setattr(package_data, "_PACKAGE", tmp_path)
    assert package_data.bots_dir() == tmp_path / "_data" / "bots"
    assert package_data.schema_dir() == tmp_path / "_data" / "protocol" / "schema"


def test_bot_check_without_a_command_checks_the_example_bot() -> None:
    from typer.testing import CliRunner

    from canasta_cli.__main__ import app
    result = CliRunner().invoke(app, ["bot", "check"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("checking the example bot: ") and "random_bot.py" in result.output
    assert result.output.splitlines()[-1].endswith(" passed, 0 failed")


def test_the_version_has_one_source() -> None:
    # The checkout's pyproject.toml (an installed copy, such as the compiled build, has none).
    text = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in text and "\nversion =" not in text.split("[tool.")[0]
