"""A person's melds held before they are played: the table as it would be after them.

``undo`` at the prompt takes back melds and additions of the current turn.  They are
held by the person's seat and only sent to the referee with the move that ends the held
line (a discard, a question, a pile take is never held): the others never see a meld that
is taken back, and the record holds only what was played, so a resume and a replay agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from ..core import Move, apply, format_move, legal_moves, observation, parse_move
from ..core.cards import KIND_OF
from ..core.errors import CanastaError
from ..core.moves import Add, Meld
from ..core.state import GameState


@dataclass(frozen=True)
class Ahead:
    """The turn as it would be after the held moves: what the person would see, the legal
    moves then, and the judges of what they type next (for the prompt)."""

    observation: dict[str, Any]
    moves: list[str]
    events: list[dict[str, Any]]
    explain: Any
    sequence: Any


def holdable(move: Move) -> bool:
    """Melds and additions: the moves ``undo`` may take back (never a draw or a pile take,
    which showed the player cards, nor a discard, which ends the turn)."""
    return isinstance(move, (Meld, Add))


def ahead(state: GameState, texts: list[str]) -> Ahead | None:
    """The turn after the held ``texts``, or None if they cannot all be held: one is not a
    meld or addition, is not legal then, or would end the turn or the hand (going out
    shows the others' hands: it is played at once)."""
    from ..core.engine import check_sequence
    from ..core.explain import explain
    actor = state.actor
    before = state.log
    for text in texts:
        top = KIND_OF[state.pile[-1]] if state.pile else None
        try:
            move = parse_move(text, top_rank=top)
        except CanastaError:
            return None
        if not holdable(move) or move not in legal_moves(state):
            return None
        state = apply(state, move)
        if state.is_over or state.actor != actor or not state.hands[actor]:
            return None
    fresh = []
    node = state.log
    while node is not None and node is not before:
        fresh.append(node[1].view(actor))
        node = node[0]
    fresh.reverse()
    return Ahead(observation(state, actor, history=False),
                 [format_move(m) for m in legal_moves(state)], fresh,
                 partial(explain, state), partial(check_sequence, state))
