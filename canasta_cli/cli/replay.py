"""``canasta replay``: step through a recorded game, as a seat saw it, or verify it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .options import fail


def register(app: typer.Typer) -> None:
    app.command()(replay)



def replay(
    record: Annotated[Path, typer.Argument(help="A game record (.jsonl) written by a match.")],
    seat: Annotated[int | None, typer.Option(
        help="Show the game as this seat saw it (an unfinished save of yours: your seat, by"
        " default).")] = None,
    verify_: Annotated[bool, typer.Option(
        "--verify", help="Re-play every move through the engine and check every event and score.")]
    = False,
    step: Annotated[bool, typer.Option(
        help="Wait for Enter after each player's turn (with --seat: the table as it saw it).")]
    = False,
    each_event: Annotated[bool, typer.Option(
        "--each-event", help="With --step: wait after every event, not every turn (with"
        " --seat: the table after each move's last event).")]
    = False,
    html: Annotated[Path | None, typer.Option(
        help="Write a self-contained HTML replay viewer to this file (opens at --seat's view).")]
    = None,
) -> None:
    """Step through a recorded game, or verify it."""
    if html is not None:
        from .report import replay_to_html
        return replay_to_html(record, html, seat)
    from ..hosting.records import RecordError
    from ..table.replaying import ReplayPlan, ReplayRefused, run
    from ..table.session import NotYourSeat
    try:
        same = run(ReplayPlan(record, seat, verify_, step, each_event))
    except (RecordError, ReplayRefused, NotYourSeat) as exc:
        raise fail(str(exc)) from None
    if not same:
        raise typer.Exit(1)
