"""``canasta report DIR|--ladder [--html OUT.html]`` and the HTML writers behind ``replay --html``
and ``tournament --html``."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Annotated

import typer

from ..hosting.records import RecordError
from .options import fail as _fail


def replay_to_html(record: Path, out: Path, seat: int | None) -> None:
    """``canasta replay FILE --html OUT.html``."""
    from ..viewer.replay_page import write_replay_page
    try:
        data = write_replay_page(record, out, seat)
    except RecordError as exc:
        raise _fail(str(exc)) from None
    for m in data["mismatches"]:
        typer.echo(f"warning: the record disagrees with the engine: {m}", err=True)
    view = "the public view only (the game is not over)" if data["public"] else "every hand"
    typer.echo(f"wrote {out}: {len(data['steps']) - 1} moves, {view}")


def html_report(folder: Path, out: Path, err: bool = False) -> None:
    """The HTML report of the tournament in ``folder``, and a replay page per kept record."""
    from ..viewer.report_page import pages_dir, write_report
    from ..viewer.tourney import load_tournament
    try:
        t = load_tournament(folder)
        for w in t.warnings:
            typer.echo(f"warning: {w}", err=True)
        pages = write_report(t, out, lambda m: typer.echo(f"warning: {m}", err=True))
    except RecordError as exc:
        raise _fail(str(exc)) from None
    where = f", {pages} replay pages in {pages_dir(out)}" if pages else ""
    typer.echo(f"wrote {out}{where}", err=err)


def _width() -> int:
    """Columns to fit a text report to: the terminal's, or COLUMNS on a pipe (like every
    text command, ui/screen.stream_width), else 100 (the plots need a width)."""
    from ..ui.screen import stream_width
    return stream_width() or 100


def ladder_report(db: Path | None, html: Path | None) -> None:
    """``canasta report --ladder [--db FILE] [--html OUT.html]``."""
    from ..ladder.store import Ladder, LadderError, default_path, migration_note
    from ..util.safetext import visible
    from ..viewer.ladder_report import ladder_html, ladder_text, load_ladder
    from ..viewer.replay_page import write_text
    path = db or default_path()
    if not path.is_file():
        raise _fail(f"{visible(str(path))}: no ladder file (canasta ladder add makes one)")
    try:
        ladder = Ladder(path)
        note = migration_note(ladder)
        if note is not None:
            typer.echo(visible(note), err=True)
        view = load_ladder(ladder)
        ladder.close()
    except (LadderError, OSError, sqlite3.Error) as exc:
        raise _fail(visible(str(exc).splitlines()[0] if str(exc) else repr(exc))) from None
    if html is None:
        typer.echo(ladder_text(view, _width()))
        return
    try:
        write_text(html, ladder_html(view))
    except RecordError as exc:
        raise _fail(str(exc)) from None
    typer.echo(f"wrote {html}")


def register(app: typer.Typer) -> None:
    @app.command()
    def report(
        folder: Annotated[Path | None, typer.Argument(
            help="A tournament's --out folder (not with --ladder).")] = None,
        html: Annotated[Path | None, typer.Option(
            help="Write the report as one HTML page (plots inline); for a tournament, with a"
            " replay page per recorded game in a folder beside it.")] = None,
        ladder: Annotated[bool, typer.Option(
            "--ladder", help="Report the ladder (--db) instead of a tournament.")] = False,
        db: Annotated[Path | None, typer.Option(
            "--db", help="With --ladder: the ladder file (default:"
            " $XDG_DATA_HOME/canasta/ladder.sqlite).")] = None,
    ) -> None:
        """A tournament's report (standings, cross table, Elo, score differences, the SPRT,
        the statistics of play from its records, failures and the games) or, with --ladder,
        the ladder's (standings, Elo, each entry's rating history); as text fitted to the
        terminal, or as HTML."""
        if ladder == (folder is not None):
            raise _fail("give a tournament's folder or --ladder, not both" if ladder
                        else "give a tournament's folder, or --ladder")
        if db is not None and not ladder:
            raise _fail("--db goes with --ladder")
        if ladder:
            ladder_report(db, html)
            return
        assert folder is not None
        if html is not None:
            html_report(folder, html)
            return
        from ..viewer.report_text import report_text
        from ..viewer.tourney import load_tournament
        try:
            t = load_tournament(folder)
        except RecordError as exc:
            raise _fail(str(exc)) from None
        typer.echo(report_text(t, _width()))
