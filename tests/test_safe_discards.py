"""A partner who does not give piles away: with a large pile, the next side holding a known
pair of a rank (picked up with a pile) or a meld it can lay the card off on, the built-in
players discard something the next side cannot take the pile with.

The position (``canasta position --deck ... --dealer 3 --moves ...`` sets it up): seat 3
took a pile holding the two nines seat 0 and seat 1 had discarded, with a meld of aces; the
pile has grown to eleven cards; seat 2 (seat 0's partner) has laid its queens and kings and
must discard from a nine, two tens, two jacks and an ace.  The nine and the ace each give
seat 3 the pile; a ten or a jack does not.
"""

from __future__ import annotations

from typing import Any, cast

import pytest

from canasta_cli.core import apply, format_move, legal_moves, new_game
from canasta_cli.core.deckfile import parse_deck_text
from canasta_cli.core.rules import preset
from canasta_cli.core.state import GameState
from canasta_cli.players import PLAYERS
from canasta_cli.protocol.messages import act_message, game_start_message

DECK = """
seat0: 9h 4s 5s 6s 7s 8s 10s Js Qs Kh 4c
seat1: 9d 4d 5d 6d 7d 8d 10d Jd Qd Kd 5c
seat2: Ah Ks Kc Qh Qc Jh Jc 10h 10c 9s 6h
seat3: Ac Ad 8c 5h 6c 7c Jd Qs Kh 10s 4c
stock: 7h 4h 5d 5h 8d 6c 6d 5c 7d 8h Qd 10d 6s 7s Kd 4s 4d 5s As 8s
"""
MOVES = ("draw; discard 9; draw; discard 9; draw; discard 6; draw; discard 8;"
         " draw; discard 4; draw; discard 4; draw; discard A; pile A A; discard 10;"
         " draw; discard 5; draw; discard 5; draw; discard 5; draw; discard 6;"
         " draw; discard 6; draw; discard 7; draw; discard 5; draw; discard 4;"
         " draw; discard 4; draw; discard 5; draw; meld Q Q Q; meld K K K")


def position() -> GameState:
    rules = preset("classic")
    st = new_game(rules, seed=0, decks=parse_deck_text(DECK, rules, dealer=3, seed=0),
                  dealer=3)
    for text in MOVES.split(";"):
        st = apply(st, text.strip())
    return st


def gives_the_pile(st: GameState, discard: str) -> bool:
    after = apply(st, discard)
    return any(format_move(m).startswith("pile") for m in legal_moves(after))


def test_the_position_is_the_reported_one() -> None:
    st = position()
    assert st.actor == 2 and len(st.pile) == 11
    offered = [format_move(m) for m in legal_moves(st)]
    assert offered == ["discard 9", "discard 10", "discard J", "discard A"]
    assert {d for d in offered if gives_the_pile(st, d)} == {"discard 9", "discard A"}


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_the_partner_does_not_give_the_pile_away(level: str) -> None:
    st = position()
    player = PLAYERS[level](1, "")
    player(game_start_message(1, 2, st.rules, ["x"] * 4))
    for e in st.events():
        player({"type": "event", "game": 1, "event": e.view(2)})
    msg = cast(dict[str, Any], act_message(1, 9, st, legal_moves(st), 10**7, 0).message())
    reply = player(msg)
    assert reply is not None
    chosen = msg["moves"][reply["index"]]["text"]
    assert not gives_the_pile(st, chosen), chosen
    if level == "hard":  # and the search sees why: both feeding discards are worth less
        values = {r.text: r.value for r in player.last}  # type: ignore[attr-defined]
        assert max(values["discard 9"], values["discard A"]) < values[chosen]
