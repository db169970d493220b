"""``canasta games`` (the saved games) and ``canasta stats`` (how your games went)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer

from .options import fail


def register(app: typer.Typer) -> None:
    app.command()(games)
    app.command()(stats)


def games(
    save_dir: Annotated[Path | None, typer.Option(
        help="Where games are saved (default: ~/.local/share/canasta/games).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the list as JSON.")] = False,
) -> None:
    """List the saved games of 'canasta play', newest first: when, rules, seats, score.
    'canasta play --resume N' resumes number N of this list, '--resume last' the unfinished
    game you played last."""
    from ..table.saves import SERVE, describe_seats, last_played, row, saved_games, winner_name
    from ..table.session import resume_command
    from ..table.session import save_dir as default_dir
    from ..ui.screen import say
    directory = save_dir or default_dir()
    found, problems = saved_games(directory)
    last = last_played(found)
    if as_json:  # number: what play --resume N takes; played_last: what --resume last takes
        typer.echo(json.dumps([dict(row(g), number=i, kind=g.kind, played_last=g is last)
                               for i, g in enumerate(found, 1)], indent=2))
        return
    if not found:
        say(f"No saved games in {directory}.")
    for i, g in enumerate(found, 1):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(g.started))
        state = ("finished" + (f", won by {winner_name(g)}" if g.winner is not None else "")
                 if g.finished else f"not finished, {g.hands} hands played"
                 + ("; played last" if g is last else ""))
        kind = " (a canasta serve table)" if g.kind == SERVE else ""
        say(f"{i:>3}. {when}  {g.rules}{kind}: {describe_seats(g.seats)}; score"
            f" {' / '.join(map(str, g.scores)) or '0'}; {state}", hang=5)
        say(f"     {g.path}", hang=5)
    for p in problems:
        say(f"  (unreadable, left as it is: {p})", err=True)
    where = ["--save-dir", str(save_dir)] if save_dir else []
    # Lines to copy: each whole on one line, never wrapped (ui/commandline.py).
    if last is not None:
        typer.echo(f"Resume the game you played last ({found.index(last) + 1}) with:"
                   f" {resume_command('last', *where)}")
    other = next((i for i, g in enumerate(found, 1) if not g.finished and g is not last
                  and g.kind != SERVE), None)
    if other is not None:
        typer.echo(f"Or another by its number, as {other}: {resume_command(str(other), *where)}")


def stats(
    player: Annotated[str | None, typer.Option(
        help="Only this person's games (hot-seat players are kept apart by name; 'you' for"
        " the plain 'human' seat).")] = None,
    ascii_only: Annotated[bool, typer.Option("--ascii", help="A chart of # and -.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print every stored game as JSON.")]
    = False,
) -> None:
    """How your games of 'canasta play' went: games, wins, points per hand by preset and
    level, canastas, the best game and the last games' margins."""
    import sqlite3

    from ..table.history import load, report, stats_path
    from ..ui.screen import say
    from ..util.private_files import os_message
    from ..util.safetext import visible
    try:
        rows = load(player=player)
    except sqlite3.Error as exc:
        raise fail(f"cannot read {stats_path()}: {exc}") from None
    except OSError as exc:  # a symbolic link or a FIFO in the store's place, say
        raise fail(f"cannot read {visible(os_message(exc))}") from None
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    say(report(rows, ascii_only))
