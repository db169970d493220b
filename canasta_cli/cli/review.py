"""``canasta review``: every decision of one seat of a recorded game set against the search."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .options import fail

DEALS = 192  # table/review.py's DEFAULT_DEALS (the 'hard' level's), here for --help
THRESHOLD = 50  # table/review.py's DEFAULT_THRESHOLD


def register(app: typer.Typer) -> None:
    app.command()(review)


def review(  # noqa: PLR0913 - Typer options
    game: Annotated[Path, typer.Argument(
        help="A game record: a save of canasta play or serve, a record of canasta match or"
        " tournament.", show_default=False)],
    seat: Annotated[int, typer.Option(
        help="The seat whose decisions are reviewed (an unfinished save: only your own).",
        show_default=False)],
    html: Annotated[Path | None, typer.Option(
        help="Also write the review as one self-contained HTML page to this file.")] = None,
    deals: Annotated[int, typer.Option(
        help="Deals the search plays per move judged (more: slower and more precise; the"
        " same deals, the same review).")] = DEALS,
    threshold: Annotated[float, typer.Option(
        help="Flag a decision that loses more than this many points a hand (a mistake; three"
        " times as many: a blunder).")] = THRESHOLD,
    seed: Annotated[int, typer.Option(help="Seed of the search's deals.")] = 0,
) -> None:
    """Review one seat's decisions with the search: each move against the best found, its
    loss in points, the mistakes and blunders, from that seat's information only."""
    from ..core.errors import CanastaError
    from ..table.review import ReviewPlan, run
    from ..table.review_text import review_lines
    if html is not None and html.is_dir():
        raise fail(f"--html {html}: a directory, not a file to write")
    plan = ReviewPlan(game, seat, deals, threshold, seed, progress=True)
    try:
        result = run(plan)
    except CanastaError as exc:  # a RecordError, a ReviewError: one line
        raise fail(str(exc)) from None
    for line in review_lines(result):
        typer.echo(line)
    if html is not None:
        from ..viewer.review_page import write_review_page
        try:
            write_review_page(result, html)
        except CanastaError as exc:
            raise fail(str(exc)) from None
        typer.echo(f"wrote {html}")
