"""The OpenSpiel playthrough of ``python_canasta``: tests/data/python_canasta.txt was written by
OpenSpiel's own ``generate_playthrough`` (as every game in OpenSpiel has one), and it must
regenerate identically, compared as OpenSpiel's ``integration_tests/playthrough_test.py``
compares its own (line by line, then whole).  The setting is short: two players, one hand cut
at four turns.  Skipped where open_spiel is not installed.

When the game changes on purpose (its strings, its tensors: ``env/observe.py``), write the
file afresh and read the difference (docs/ML.md, "The OpenSpiel game")::

    .venv/bin/python tests/test_openspiel_playthrough.py
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pyspiel")

import canasta_cli.env.openspiel  # noqa: E402, F401 - registers python_canasta

PLAYTHROUGH = Path(__file__).resolve().parent / "data" / "python_canasta.txt"
GAME = "python_canasta(rules=two-player,options=max_turns:4)"
SEED = 1


def _generator() -> object:
    from absl import flags
    from open_spiel.python.algorithms import generate_playthrough

    if not flags.FLAGS.is_parsed():  # replay reads a flag (absltest parses them in OpenSpiel)
        flags.FLAGS.mark_as_parsed()
    return generate_playthrough


def write() -> None:
    """Write the playthrough afresh (the random actions of ``SEED``)."""
    text = _generator().playthrough(GAME, None, seed=SEED)  # type: ignore[attr-defined]
    PLAYTHROUGH.write_text(text, encoding="utf-8")


def test_the_playthrough_regenerates_identically() -> None:
    expected, actual = _generator().replay(str(PLAYTHROUGH))  # type: ignore[attr-defined]
    for number, (want, got) in enumerate(zip(expected.split("\n"), actual.split("\n"),
                                             strict=False)):
        assert got == want, f"line {number + 1} of {PLAYTHROUGH.name} differs (see the docstring)"
    assert actual == expected


def test_the_playthrough_is_a_whole_short_game() -> None:
    text = PLAYTHROUGH.read_text(encoding="utf-8")
    assert text.startswith(f"game: {GAME}\n")
    assert 'GameType.short_name = "python_canasta"' in text
    assert "IsTerminal() = True" in text and "Returns() = [0, 0]" not in text.split("# State")[-1]
    for move in ('# Apply action "meld', '# Apply action "pile', '# Apply action "discard'):
        assert move in text
    assert len(text.encode()) < 150_000


if __name__ == "__main__":
    write()
