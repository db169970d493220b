"""Stacked decks: the documented text formats and their errors."""

from __future__ import annotations

import pytest

from canasta_cli.core import CLASSIC, PRESETS, DeckFileError, GameState, new_game, parse_deck_text
from canasta_cli.core.cards import KIND_OF, TEXT_OF


def test_plain_top_to_bottom_listing_deals_in_order() -> None:
    tokens = ["Ah", "Kh", "Qh", "Jh"]
    decks = parse_deck_text(" ".join(tokens) + "  # a comment\n", CLASSIC)
    st = new_game(CLASSIC, decks=decks, dealer=3)
    # The first card goes to seat 0 (dealer's left), the second to seat 1, ...
    for seat, tok in enumerate(tokens):
        assert tok in [TEXT_OF[c] for c in st.hands[seat]]


def test_by_seat_listing_gives_each_seat_its_hand_and_the_upcard() -> None:
    text = """
    seat0: Ah Ad Ac Kh Kd Kc Qh Qd Qc Jh Jd
    seat2: 4h 4d 4c 5h 5d 5c 6h 6d 6c 7h 7d
    stock: 9s 8s   # upcard first
    """
    st = new_game(CLASSIC, decks=parse_deck_text(text, CLASSIC, dealer=1), dealer=1)
    assert sorted(TEXT_OF[c] for c in st.hands[0]) == sorted(
        ["Ah", "Ad", "Ac", "Kh", "Kd", "Kc", "Qh", "Qd", "Qc", "Jh", "Jd"])
    assert TEXT_OF[st.pile[-1]] == "9s"


def test_by_seat_listing_fills_short_hands_from_the_unlisted_cards() -> None:
    decks = parse_deck_text("seat0: Ah Ad\nstock: 9s", CLASSIC, dealer=3, seed=4)
    st = new_game(CLASSIC, seed=4, decks=decks, dealer=3)
    assert all(len(h) == 11 for h in st.hands)
    assert {"Ah", "Ad"} <= {TEXT_OF[c] for c in st.hands[0]}
    assert TEXT_OF[st.pile[0]] == "9s"
    with pytest.raises(DeckFileError, match="lists 12 cards"):
        parse_deck_text("seat0: " + " ".join(["4h"] * 2 + ["5h"] * 2 + ["6h"] * 2 + ["7h"] * 2
                                             + ["8h"] * 2 + ["9h"] * 2), CLASSIC, dealer=3)


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("seed", range(8))
def test_filler_is_plain_cards_spread_over_the_ranks(name: str, seed: int) -> None:
    """A short hand is filled only with natural cards 4..A (no wild card, no three), each of a
    rank the hand holds fewest of: no choice the writer did not list."""
    rules = PRESETS[name]
    listed = "Kh Kd"
    decks = parse_deck_text(f"seat0: {listed}\nstock: 9s", rules, dealer=rules.players - 1,
                            seed=seed)
    st = new_game(rules, seed=seed, decks=decks, dealer=rules.players - 1)
    for seat, hand in enumerate(st.hands):
        filler = [c for c in hand if seat or TEXT_OF[c] not in ("Kh", "Kd")]
        assert all(KIND_OF[c] <= 10 for c in filler), [TEXT_OF[c] for c in hand]
        counts = [sum(1 for c in hand if KIND_OF[c] == r) for r in range(11) if seat or r != 9]
        assert max(counts) - min(counts) <= 1, [TEXT_OF[c] for c in hand]
    assert red_three_free(st)


def red_three_free(st: GameState) -> bool:
    """No red three was dealt, so nothing was drawn from the listed stock to replace one."""
    return not any(st.red3)


def test_several_hands_separated_by_dashes() -> None:
    decks = parse_deck_text("Ah\n---\nKh\n", CLASSIC)
    assert len(decks) == 2 and TEXT_OF[decks[1][0]] == "Kh"


@pytest.mark.parametrize(("text", "message"), [
    ("Zz", "unknown card 'Zz'"),
    ("Ah Ah Ah", "too many copies of Ah"),
    ("", "lists no cards"),
    ("seat9: Ah", "no seat9"),
    ("seatx: Ah", "seat0, seat1"),
])
def test_bad_deck_files_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(DeckFileError, match=message):
        parse_deck_text(text, CLASSIC, dealer=3)


def test_unlisted_cards_follow_in_seeded_order() -> None:
    a = new_game(CLASSIC, seed=1, decks=parse_deck_text("Ah", CLASSIC), dealer=3)
    b = new_game(CLASSIC, seed=1, decks=parse_deck_text("Ah", CLASSIC), dealer=3)
    c = new_game(CLASSIC, seed=2, decks=parse_deck_text("Ah", CLASSIC), dealer=3)
    assert a.hands == b.hands and a.hands != c.hands


def test_api_accepts_preset_names_card_texts_and_move_text() -> None:
    from canasta_cli.core import apply
    st = new_game("classic", decks=["Ah Kh Qh Jh"], dealer=3)
    assert "Ah" in [TEXT_OF[c] for c in st.hands[0]]
    st2 = new_game(CLASSIC, decks=[["Ah", "Kh"]], dealer=3)
    assert "Kh" in [TEXT_OF[c] for c in st2.hands[1]]
    st = apply(st, "draw")
    assert st.phase.value == "meld"
    with pytest.raises(ValueError, match="unknown card 'Xx'"):
        new_game(CLASSIC, decks=["Ah Xx"])
