"""``canasta demo``: built-in random players play a whole game; each hand's scores, or every
move as it happens."""

from __future__ import annotations

import random
import time
from typing import Annotated

import typer

from ..core import GameState, apply, format_move, legal_moves, new_game
from ..ui.event_text import describe_event
from ..ui.render import Style, event_cards, stream_style
from ..ui.screen import fit, next_step, say, stream_height, stream_width
from ..util.seeds import fresh_seed
from . import bounds
from .options import (
    DealerOpt,
    DeckOpt,
    HandOpt,
    RulesOpt,
    ScoresOpt,
    SetOpt,
    load_decks,
    load_rules,
    load_scores,
)


def register(app: typer.Typer) -> None:
    app.command()(demo)


def demo(rules: RulesOpt = "classic", set_: SetOpt = None,  # noqa: PLR0913 - Typer options
         seed: Annotated[int | None, typer.Option(
             help="Seed for the deal and the players (default: random).")] = None,
         deck: DeckOpt = None,
         dealer: DealerOpt = None,
         step: Annotated[bool, typer.Option(
             "--step", help="Show every move, and wait for Enter after each (q quits).")]
         = False,
         delay: Annotated[float, typer.Option(
             help="Show every move, pausing this many seconds after each.", min=0.0)] = 0.0,
         scores: ScoresOpt = None,
         hand: HandOpt = 1,
         ) -> None:
    """Watch built-in random players play a whole game; prints each hand's scores."""
    bounds.enforce(bounds.check_delay, delay)
    if seed is None:
        seed = fresh_seed()
    r = load_rules(rules, set_)
    start = load_scores(scores, r)
    decks = load_decks(deck, r, dealer, seed)
    state = new_game(r, seed=seed, decks=decks, dealer=dealer, scores=start, hand_no=hand)
    rng = random.Random(seed)
    shown = 0
    label = "Side" if r.partnerships else "Player"
    typer.echo(f"{r.name}: {r.players} players, seed {seed}")
    watch = step or delay > 0
    style = stream_style()
    card = event_cards()  # cards as on the table, on a pipe too
    if watch:
        for e in state.events():
            say("    " + describe_event(e.full(), card=card))
    while not state.is_over:
        moves = legal_moves(state)
        before, actor = state.log, state.actor
        move = moves[rng.randrange(len(moves))]
        state = apply(state, move)
        if watch:
            fresh = []
            node = state.log
            while node is not None and node is not before:
                fresh.append(node[1])
                node = node[0]
            say(f"--> seat {actor}: {format_move(move)}")
            for e in reversed(fresh):
                say("    " + describe_event(e.full(), card=card))
            if step and not state.is_over:
                _table(state, style)
            if step and not next_step():
                return
            if delay:
                time.sleep(delay)
        for res in state.results[shown:]:
            who = ("nobody went out" if res.went_out is None
                   else f"seat {res.went_out} went out" + (" concealed" if res.concealed else ""))
            say(f"hand {res.hand_no:>2}: {who:<28} "
                       + "  ".join(f"{label} {s.side}: {s.total:+6d}" for s in res.sides)
                       + "   totals " + " / ".join(str(t) for t in _running(state, res.hand_no)))
        shown = len(state.results)
    if state.winner is None:
        say(f"Game over ({state.game_end_reason}): a draw at {list(state.scores)}")
    else:
        say(f"Game over ({state.game_end_reason}): {label.lower()} {state.winner} wins"
                   f" with {state.scores[state.winner]}")


def _table(state: GameState, style: Style) -> None:
    """The table as the player to act sees it (every player is a built-in: nothing is
    hidden from anybody who watches), fitted to the terminal."""
    from ..core import observation
    from ..ui.render import Screen, render_table
    width = stream_width()
    height = stream_height()
    seat = state.actor
    names = [f"seat {i}" for i in range(state.rules.players)]
    obs = observation(state, seat, history=False)
    say(f"The table as seat {seat} sees it:")
    screen = Screen(style, width, max(height - 7, 10) if height else 0)
    typer.echo(fit(render_table(obs, [], names, screen), width))


def _running(state: GameState, upto: int) -> list[int]:
    results = state.results
    totals = [0] * len(results[0].sides)
    for res in results[:upto]:
        totals = [a + b for a, b in zip(totals, res.totals, strict=True)]
    return totals
