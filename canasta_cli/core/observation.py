"""What one seat may see: the only view of a state that leaves the core for a player."""

from __future__ import annotations

from typing import Any

from .cards import BLACK3, DEUCE, JOKER, KIND_OF, TEXT_OF, display_sorted
from .legality import frozen_against
from .state import GameState, Phase


def observation(state: GameState, seat: int, history: bool = True) -> dict[str, Any]:
    """A JSON-ready view for ``seat``: own hand, counts of the others, the table, the public
    history.  Nothing in it depends on cards the seat cannot see."""
    rules = state.rules
    side = rules.side_of(seat)
    row = state.team[seat]
    top = state.top
    obs: dict[str, Any] = {
        "seat": seat,
        "side": side,
        "players": rules.players,
        "rules": rules.name,
        "hand_no": state.hand_no,
        "dealer": state.dealer,
        "phase": state.phase.value,
        "to_act": state.actor,
        "turn_seat": state.turn_seat,
        "hand": [TEXT_OF[c] for c in display_sorted(state.hands[seat])],
        "hand_counts": [len(h) for h in state.hands],
        "melds": [[m.to_json() for m in row if m is not None] for row in state.melds],
        "red_threes": [[TEXT_OF[c] for c in r] for r in state.red3],
        "pile_top": TEXT_OF[top] if top is not None else None,
        "pile_size": len(state.pile),
        "pile_frozen": state.pile_frozen,
        "pile_frozen_for_me": frozen_against(state, row),
        "pile_stopped": top is not None and KIND_OF[top] in (DEUCE, JOKER, BLACK3),
        "stock_size": len(state.stock),
        "scores": list(state.scores),
        "minimums": [rules.initial_minimum(s) for s in state.scores],
        "side_melded": [state.side_has_melded(state.team[s] if rules.cutthroat else s)
                        for s in range(rules.sides)],
        "turn": {
            "took_pile": state.took_pile,
            "opening_total": state.opening_total,
            "asked": state.asked,
            "permission": state.permission,
        },
    }
    if rules.cutthroat:
        obs["lone_hand"] = state.lone
        obs["meld_side"] = list(state.team)
    if state.phase is Phase.GAME_OVER:
        obs["winner"] = state.winner
        obs["end_reason"] = state.game_end_reason
    if history:
        obs["history"] = [_fresh(view) for view in history_views(state, seat)]
    return obs


def public_observation(state: GameState) -> dict[str, Any]:
    """What everyone at the table may see (a spectator's view): an observation with no hand
    in it and nobody's point of view (``seat`` and ``side`` are None; ``hand_counts`` say how
    many cards each seat holds).  Nothing in it depends on a card nobody may see."""
    obs = observation(state, 0, history=False)
    del obs["hand"]
    obs.update(seat=None, side=None, pile_frozen_for_me=False)
    return obs


def _fresh(value: Any) -> Any:
    """A copy of a JSON value that shares nothing mutable with it: the event views are kept
    for the next observations of the game, so the caller gets its own."""
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    return value


def history_views(state: GameState, seat: int) -> list[dict[str, Any]]:
    """Every event so far as ``seat`` sees it, to read, not to change (``observation`` hands out
    copies).  The views already made for an earlier state of
    the same game are reused (the log only grows), so a game's observations cost the new
    events only, not the whole log each time."""
    cache = state.views
    start = cache.get(seat)
    fresh = []
    node = state.log
    while node is not None and (start is None or node is not start[0]):
        fresh.append(node[1].view(seat))
        node = node[0]
    fresh.reverse()
    views = (start[1] if start is not None and node is not None else []) + fresh
    cache[seat] = (state.log, views)
    return list(views)
