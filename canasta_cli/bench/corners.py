"""``canasta bench corners``: the slowest positions we know for one ``legal_moves`` call.

Two kinds: positions reachable in play (a six-player side opening at 150 by the pile), and
hands no deal can give but the API can build (a whole pack in one hand).  Each is timed on a
fresh copy, so no cached move list helps.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

import typer

from ..core import GameState, apply, legal_moves, new_game, preset
from ..core.cards import BLACK3, KIND_OF, RED3, full_deck
from ..core.state import Phase


@dataclass(frozen=True)
class Corner:
    name: str
    reachable: bool
    build: Callable[[], GameState]


def _with_hand(rules_name: str, cards: list[int], scores: list[int] | None = None) -> GameState:
    """Seat 0 to meld, holding ``cards``; everything else in the stock; nobody has melded."""
    st = new_game(rules_name, seed=1, dealer=preset(rules_name).players - 1, scores=scores)
    st = apply(st, "draw")
    held = set(cards)
    rest = [c for c in full_deck(st.rules.decks) if c not in held]
    return st.replace(hands=(tuple(sorted(cards)),) + tuple(() for _ in range(st.rules.players - 1)),
                      stock=tuple(rest[1:]), pile=(rest[0],), pile_frozen=False,
                      red3=tuple(() for _ in st.red3), phase=Phase.MELD)


def _pack_hand(rules_name: str, size: int, scores: list[int] | None = None) -> GameState:
    """``size`` cards in one hand: every wild card, then naturals rank by rank; no threes."""
    decks = preset(rules_name).decks
    pack = [c for c in full_deck(decks) if KIND_OF[c] not in (RED3, BLACK3)]
    wild = [c for c in pack if KIND_OF[c] > 10]
    natural = sorted((c for c in pack if KIND_OF[c] <= 10), key=lambda c: (c % 54) // 4 * 0 + c)
    return _with_hand(rules_name, (wild + natural)[:size], scores)


def _six_player_opening_by_the_pile() -> GameState:
    """Six players, side 0 at 7,500 (minimum 150), opening by a one-card pile: the pick-up is
    pending and only an exhaustive search can tell which melds still finish the turn."""
    rules = preset("six-player")
    for seed in range(400):
        st = new_game(rules, seed=seed, dealer=5, scores=[7500, 0])
        for move in legal_moves(st):
            if type(move).__name__ == "TakePile" and len(st.pile) <= 2:
                after = apply(st, move)
                if after.phase is Phase.PILE_OPENING and len(legal_moves(after)) > 3:
                    return after
    raise RuntimeError("no six-player opening by the pile found in 400 deals")


CORNERS = [
    Corner("six-player, side at 7,500 (minimum 150) opening by the pile", True,
           _six_player_opening_by_the_pile),
    Corner("classic, 30-card hand, all 12 wild cards, unopened", False,
           lambda: _pack_hand("classic", 30)),
    Corner("classic, 98 cards (every card but the threes) in one hand", False,
           lambda: _pack_hand("classic", 98)),
    Corner("six-player, 148 cards in one hand at 7,500 (minimum 150)", False,
           lambda: _pack_hand("six-player", 148, [7500, 0])),
]


def time_corner(corner: Corner, repeat: int = 3) -> tuple[float, int]:
    """The slowest of ``repeat`` timed ``legal_moves`` calls (seconds), and the move count."""
    state = corner.build()
    worst, count = 0.0, 0
    for _ in range(repeat):
        fresh = state.copy()
        start = time.perf_counter()
        count = len(legal_moves(fresh))
        worst = max(worst, time.perf_counter() - start)
    return worst, count


def slowest_in_play(rules_name: str, hands: int, scores: list[int] | None = None,
                    seed: int = 0) -> tuple[float, int, str]:
    """Random play from ``scores``: the slowest ``legal_moves`` call met (seconds), its move
    count and the position."""
    import random
    rng = random.Random(seed)
    rules = preset(rules_name).with_options(max_hands=1)
    worst: tuple[float, int, str] = (0.0, 0, "")
    for game in range(hands):
        st = new_game(rules, seed=seed * 1000 + game, scores=scores)
        while not st.is_over:
            start = time.perf_counter()
            moves = legal_moves(st)
            took = time.perf_counter() - start
            if took > worst[0]:
                worst = (took, len(moves), repr(st))
            st = apply(st, moves[rng.randrange(len(moves))])
    return worst


def register(bench_app: typer.Typer) -> None:
    bench_app.command("corners")(bench_corners_cmd)


def bench_corners_cmd(
    hands: Annotated[int, typer.Option(help="Random hands per preset searched for the slowest"
                                       " call met in play.", min=1)] = 20,
) -> None:
    """The slowest positions known for one legal_moves call: built worst cases, and the slowest
    call met in random play (six players at 7,500, where the minimum is 150)."""
    typer.echo(f"{'ms':>9} {'moves':>6}  position")
    worst = {True: 0.0, False: 0.0}
    for corner in CORNERS:
        took, count = time_corner(corner)
        worst[corner.reachable] = max(worst[corner.reachable], took)
        typer.echo(f"{took * 1000:9.2f} {count:>6}  {corner.name}"
                   + ("" if corner.reachable else " (API only)"))
    for name, scores in (("six-player", [7500, 7500]), ("classic", [0, 0]),
                         ("two-player", [0, 0])):
        took, count, where = slowest_in_play(name, hands, scores)
        worst[True] = max(worst[True], took)
        typer.echo(f"{took * 1000:9.2f} {count:>6}  slowest call in {hands} random {name} hands"
                   f" from {scores}: {where}")
    typer.echo(f"slowest reachable: {worst[True] * 1000:.2f} ms (limit 5 ms); slowest built"
               f" through the API: {worst[False] * 1000:.1f} ms (limit 1000 ms)")
