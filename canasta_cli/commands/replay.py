"""``canasta replay``: step through a recorded game, as a seat saw it, or verify it."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated

import typer

from ..core import observation
from ..event_text import describe_event, story
from ..records import RecordError, load_record, sealed_parts
from ..replay import Replay, verify
from ..replay import replay as run_replay
from ..ui.render import Style, fit, render_table, seat_labels
from .options import fail, next_step


def register(app: typer.Typer) -> None:
    app.command()(replay)



def replay(
    record: Annotated[Path, typer.Argument(help="A game record (.jsonl) written by a match.")],
    seat: Annotated[int | None, typer.Option(help="Show the game as this seat saw it.")] = None,
    verify_: Annotated[bool, typer.Option(
        "--verify", help="Re-play every move through the engine and check every event and score.")]
    = False,
    step: Annotated[bool, typer.Option(help="Wait for Enter after each move.")] = False,
    html: Annotated[Path | None, typer.Option(
        help="Write a self-contained HTML replay viewer to this file (opens at --seat's view).")]
    = None,
) -> None:
    """Step through a recorded game, or verify it."""
    if html is not None:
        from .report import replay_to_html
        return replay_to_html(record, html, seat)
    public = False
    try:
        lines = load_record(record)
        secret = None
        if sealed_parts(lines) is None and lines[0].get("secret"):
            # A saved game that goes on later: its hidden cards stay hidden here too.
            from ..play import load_secret  # with the prompt: loaded only for a save
            secret = load_secret(record, lines)
            public = True
            if seat is not None:
                raise fail("this game is not over: only the public view of it is shown")
        rep = verify(lines, secret) if verify_ else run_replay(lines, secret)
    except RecordError as exc:
        raise fail(str(exc)) from None
    players = rep.state.rules.players
    if seat is not None and not 0 <= seat < players:
        raise fail(f"--seat must be from 0 to {players - 1}")
    if verify_:
        if rep.ok:
            n = sum(len(e) for _, _, e in rep.steps)
            typer.echo(f"OK: {len(rep.steps) - 1} moves and {n} events replay identically;"
                       f" scores {list(rep.state.scores)}")
            return
        for m in rep.mismatches:
            typer.echo(f"MISMATCH: {m}")
        raise typer.Exit(1)
    if step and seat is not None:
        _step_through(rep, seat, [str(n) for n in rep.header.get("seats", [])])
        return
    for who, move, evs in rep.steps:
        if move is not None:
            typer.echo(f"--> seat {who}: {move}")
        for e in evs:
            shown = e.view(-1) if public else e.view(seat) if seat is not None else e.full()
            typer.echo("    " + describe_event(shown))
        if step and move is not None and not next_step():
            return


def _step_through(rep: Replay, seat: int, names: list[str]) -> None:
    """``replay --step --seat N``: the table as seat N saw it before each of its decisions
    and after each move, with what happened in between."""
    states = rep.states
    steps = rep.steps
    style = Style(color=False)
    width = shutil.get_terminal_size((80, 24)).columns
    players = len(states[0].hands)
    names = names if len(names) == players else [f"seat {i}" for i in range(players)]
    labels = seat_labels(seat, names, states[0].rules.partnerships)
    for i, ((who, move, evs), state) in enumerate(zip(steps, states, strict=False)):
        lines = [f"--> {labels[who]}: {move}"] if move is not None and who is not None else []
        lines += ["    " + x for x in story([e.view(seat) for e in evs],
                                            lambda s: labels[s] if 0 <= s < players else str(s))]
        typer.echo(fit("\n".join(lines), width))
        if state.is_over:
            break
        obs = observation(state, seat, history=False)
        typer.echo(fit(render_table(obs, [], names, style), width))
        if i + 1 < len(steps) and not next_step():
            return
