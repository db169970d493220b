"""The ruleset object: options as data, presets, validation."""

from __future__ import annotations

import pytest

from canasta_cli.core import CLASSIC, PRESETS, RulesError, Ruleset, describe, parse_option, preset
from canasta_cli.core.rules import option_names


def test_every_reference_flag_is_a_field() -> None:
    flags = ["players", "target", "hand_size", "draw_count", "canastas_to_go_out", "upcard_cover",
             "buried_red3_freezes", "buried_black3_freezes", "black3_discard_freezes",
             "initial_red3_timing", "wild_le_natural", "max_wilds_per_meld",
             "concealed_canasta_bonus", "going_out_bonus", "concealed_going_out_bonus",
             "concealed_forbids_pile", "concealed_waives_minimum", "one_card_pile_rule",
             "last_card_red3", "exhausted_forced_take", "red3_no_meld_all_four",
             "permission_enabled", "permission_fail_penalty", "tie_policy",
             "six_player_150_threshold"]
    assert set(flags) <= set(option_names())


def test_presets_exist() -> None:
    assert set(PRESETS) == {"classic", "two-player", "three-player", "three-player-cutthroat",
                            "six-player", "six-player-pairs", "pagat"}
    assert preset("classic") is CLASSIC


def test_describe_covers_every_option() -> None:
    described = {k for k, _ in describe(CLASSIC)}
    assert described == set(option_names())


@pytest.mark.parametrize(("text", "value"), [
    ("wild_le_natural=false", ("wild_le_natural", False)),
    ("target=7500", ("target", 7500)),
    ("tie-policy=draw", ("tie_policy", "draw")),
])
def test_parse_option(text: str, value: tuple[str, object]) -> None:
    assert parse_option(text) == value


@pytest.mark.parametrize(("text", "message"), [
    ("nonsense=1", "unknown rule option 'nonsense'"),
    ("target=lots", "whole number"),
    ("wild_le_natural=maybe", "true or false"),
    ("tie_policy=coin", "one of play_on, draw"),
    ("target", "name=value"),
])
def test_bad_options_are_explained(text: str, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        parse_option(text)


def test_impossible_rulesets_are_refused() -> None:
    with pytest.raises(RulesError, match="players must be 2, 3, 4 or 6"):
        Ruleset(players=5)
    with pytest.raises(RulesError, match="no stock"):
        CLASSIC.with_options(hand_size=40)
    with pytest.raises(RulesError, match="unknown rule option"):
        CLASSIC.with_options(colour="red")


def test_ruleset_round_trips_through_a_dict() -> None:
    r = PRESETS["pagat"].with_options(target=3000)
    assert Ruleset.from_dict(r.to_dict()) == r


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_ruleset_pickles_and_copies_as_itself(name: str) -> None:
    """On both builds (a frozen class compiled by mypyc cannot be filled in field by field,
    which is how pickle and copy make objects by default)."""
    import copy
    import pickle
    rules = PRESETS[name].with_options(target=7000, max_hands=3)
    for back in (pickle.loads(pickle.dumps(rules)), copy.deepcopy(rules), copy.copy(rules)):
        assert back == rules and hash(back) == hash(rules) and back.to_dict() == rules.to_dict()


def test_the_rules_document_lists_every_preset_in_one_table() -> None:
    """docs/RULES.md §13 has a row per preset, in one table (no blank line cutting it)."""
    import re
    from pathlib import Path
    text = (Path(__file__).resolve().parent.parent / "docs" / "RULES.md").read_text("utf-8")
    lines = text.split("\n| Preset |", 1)[1].splitlines()[1:]
    table = lines[:next((i for i, line in enumerate(lines) if not line.startswith("|")),
                        len(lines))]
    named = {m.group(1) for line in table if (m := re.match(r"\| `([a-z-]+)` \|", line))}
    assert named == set(PRESETS), set(PRESETS) ^ named
