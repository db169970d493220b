"""``canasta rules`` and ``position``: the rules in force in words, and a position set up by
hand with every legal move in it."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ..core import (
    PRESETS,
    IllegalMoveError,
    NotationError,
    apply,
    describe,
    format_move,
    legal_moves,
    new_game,
    observation,
)
from ..ui.render import Screen, Style, render_table
from ..ui.screen import say, stream_width
from ..util.package_data import rules_file
from .options import (
    DealerOpt,
    DeckOpt,
    HandOpt,
    RulesOpt,
    ScoresOpt,
    SetOpt,
    fail,
    load_decks,
    load_rules,
    load_scores,
)


def register(app: typer.Typer) -> None:
    app.command()(rules)
    app.command()(position)


def rules(rules: RulesOpt = "classic", set_: SetOpt = None,
          as_json: Annotated[bool, typer.Option("--json", help="Print the options as JSON.")]
          = False) -> None:
    """Print the ruleset in force: the preset and every option, in plain words."""
    r = load_rules(rules, set_)
    if as_json:
        typer.echo(json.dumps(r.to_dict(), indent=2))
        return
    say(f"Ruleset: {r.name}" + (" (modified)" if r != PRESETS.get(r.name) else ""))
    typer.echo("")
    narrow = 0 < stream_width() < 72  # the explanation under its option's name
    for key, text in describe(r):
        if narrow:
            say(f"  {key}")
            say(f"      {text}", hang=6)
        else:
            say(f"  {key:<26} {text}", hang=29)
    typer.echo("")
    say("Initial-meld minimum by the side's score: below 0: 15; 0-1495: 50; 1500-2995: 90;"
        " 3000 and more: 120" + (f"; from {r.six_player_150_threshold}: 150"
                                 if r.six_player_150 else "") + ".", hang=0)
    say("Change an option with --set name=value.", hang=0)
    typer.echo(f"Full rules: {rules_file()}")  # a path to copy: whole, never wrapped


def position(  # noqa: PLR0913 - Typer options
    rules: RulesOpt = "classic",
    set_: SetOpt = None,
    seed: Annotated[int, typer.Option(help="Seed for the deal.")] = 0,
    deck: DeckOpt = None,
    dealer: DealerOpt = None,
    moves: Annotated[str, typer.Option(
        help="Moves to play first, separated by ';', e.g. 'draw; meld K K K; discard 4'.")]
    = "",
    as_json: Annotated[bool, typer.Option("--json", help="Print the observation as JSON.")]
    = False,
    scores: ScoresOpt = None,
    hand: HandOpt = 1,
) -> None:
    """Set up a position (stacked deck, scores and moves) and show it with every legal move."""
    r = load_rules(rules, set_)
    start = load_scores(scores, r)
    decks = load_decks(deck, r, dealer, seed)
    state = new_game(r, seed=seed, decks=decks, dealer=dealer, scores=start, hand_no=hand)
    for i, text in enumerate(t.strip() for t in moves.replace("\n", ";").split(";")):
        if not text:
            continue
        try:
            state = apply(state, text)
        except (IllegalMoveError, NotationError) as exc:
            raise fail(f"move {i + 1} ({text!r}) by seat {state.actor}: {exc}") from None
        if state.is_over:
            break
    if state.is_over:
        typer.echo(f"The game is over: {state.game_end_reason}, scores {list(state.scores)}")
        return
    obs = observation(state, state.actor, history=False)
    legal = [format_move(m) for m in legal_moves(state)]
    if as_json:
        typer.echo(json.dumps({"observation": obs, "moves": legal}, indent=2))
        return
    names = [f"seat {i}" for i in range(r.players)]
    say(render_table(obs, [], names, Screen(Style(color=False), stream_width())))
    say("Legal moves: " + ", ".join(legal))
