"""``canasta ladder``: a ladder that remembers (bots, deals and ratings in one SQLite file)."""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..util.private_files import os_message
from ..util.safetext import visible
from ..util.words import plural
from . import bounds
from .exitcodes import SEAT_FAILED
from .options import (
    BANK_MS,
    DECISION_MS,
    DEFAULT_BOX,
    BankMsOpt,
    BoxOptions,
    DecisionMsOpt,
    RulesOpt,
    SetOpt,
    box_options,
    fail,
    load_rules,
)

if TYPE_CHECKING:
    from ..core import Ruleset
    from ..hosting.referee import TimeControl
    from ..ladder.store import Ladder

ladder_app = typer.Typer(
    help="A ladder of bots in one SQLite file (--db, default $XDG_DATA_HOME/canasta/"
    "ladder.sqlite): add bots, run duplicate deals between the pairs that most need them, show"
    " ratings (maximum-likelihood Bradley-Terry on the Elo scale, from every deal ever played).",
    no_args_is_help=True, rich_markup_mode=None)

DbOpt = Annotated[Path | None, typer.Option(
    "--db", help="The ladder file (default: $XDG_DATA_HOME/canasta/ladder.sqlite).")]


def register(app: typer.Typer) -> None:
    app.add_typer(ladder_app, name="ladder")


def _open(db: Path | None) -> Ladder:
    """The ladder file, its tables checked (and a file from before migrated: said on
    stderr)."""
    from ..ladder.store import Ladder, default_path, migration_note
    with _damage():
        ladder = Ladder(db or default_path())
    note = migration_note(ladder)
    if note is not None:
        typer.echo(visible(note), err=True)
    return ladder


@contextmanager
def _damage() -> Iterator[None]:
    """A ladder file that is damaged, busy or cannot be written is one line (exit 2)."""
    from ..ladder.store import LadderError
    try:
        yield
    except LadderError as exc:
        raise fail(visible(str(exc))) from None
    except OSError as exc:
        raise fail(visible(os_message(exc))) from None


def _out_of_sight(path: Path, bots: dict[str, str]) -> None:
    """The ladder's folder (its results, the seeds of the deals played) hidden from every
    bot; a folder that holds a bot's own files is refused, as a tournament's --out is."""
    from ..seats.contain import hide
    from ..tournament.outdir import bot_files_inside
    inside = bot_files_inside(path.parent, bots)
    if inside is not None:
        raise fail(f"the ladder file {visible(str(path))!r} is in a folder that holds"
                   f" {visible(inside[1])!r}, a file of bot {visible(inside[0])!r}: that bot"
                   " would see the ladder's results and deals there; give --db a folder of"
                   " its own (e.g. --db ladder/ladder.sqlite)")
    hide(path.parent)


@ladder_app.command("add")
def ladder_add(name: Annotated[str, typer.Argument(help="NAME or NAME@VERSION, e.g. mybot@2.")],
               command: Annotated[str, typer.Argument(help="The bot's command line (run from"
                                                      " the folder ladder run is started in),"
                                                      " or builtin:NAME.")],
               db: DbOpt = None) -> None:
    """Put a bot (or a new version of one) on the ladder."""
    if not command.startswith("builtin:"):
        bounds.enforce(bounds.check_command, command)
    ladder = _open(db)
    with _damage():
        ladder.add(name, command)
    typer.echo(f"added {visible(name)} to {ladder.path}")


@ladder_app.command("run")
@box_options(ponder=False, writable=False)
def ladder_run(  # noqa: PLR0913 - Typer options
    games: Annotated[int, typer.Option(
        help="Duplicate deals to play (each in every seating).", min=1, max=1_000_000)] = 10,
    concurrency: Annotated[int, typer.Option(help="Deals at once.", min=1, max=256)] = 1,
    db: DbOpt = None, rules: RulesOpt = "classic", set_: SetOpt = None,
    seed: Annotated[int | None, typer.Option(
        help="Master seed, on a new ladder only (default: random, kept in the file).")] = None,
    decision_ms: DecisionMsOpt = DECISION_MS,
    bank_ms: BankMsOpt = BANK_MS,
    keep_failures: Annotated[int, typer.Option(
        help="Failed games kept per bot (the latest; record, stderr, reason, replay"
        " command): see ladder failures.", min=0, max=10_000)] = 20,
    box: BoxOptions = DEFAULT_BOX,
) -> None:
    """Play duplicate deals between the pairs that most need them; each deal is kept as it
    finishes (an interrupted run loses nothing: the next one plays its unfinished deals).
    A game where a seat failed is kept with its record, the bots' stderr and a replay
    command (ladder failures lists them).  Exit codes as match's: 3 when a seat failed in
    some game of the run (the deals are kept all the same), 2 usage errors."""
    from ..hosting.referee import TimeControl
    r = load_rules(rules, set_)
    ladder = _open(db)
    asked = _Asked(r, seed, games, concurrency,
                   TimeControl(decision_ms=decision_ms, bank_ms=bank_ms), keep_failures)
    with _damage():
        _run(ladder, asked, box)


@dataclass(frozen=True)
class _Asked:
    rules: Ruleset
    seed: int | None
    deals: int
    concurrency: int
    time_control: TimeControl
    keep: int


def _run(ladder: Ladder, asked: _Asked, box: BoxOptions) -> None:
    """``ladder run`` on an open ladder file."""
    from ..ladder.run import LadderPlan, run_ladder
    from ..tournament.runner import Config
    games = asked.deals
    ladder.check()
    bots = ladder.bots()
    if len(bots) < 2:
        raise fail(f"{ladder.path} has {plural(len(bots), 'bot')}; ladder add at least two")
    _out_of_sight(ladder.path, bots)
    kept, master = ladder.settings(asked.rules.to_dict(), asked.seed)
    policy = box.setup(list(bots.values()), ponder=False)
    config = Config(bots, kept, asked.time_control.to_json(), box=policy)
    start = time.monotonic()
    tty = sys.stderr.isatty()

    def show(done: int, deal: object, score: float) -> None:
        if tty:
            typer.echo(f"\r{done}/{games} deals  {time.monotonic() - start:.0f}s", err=True,
                       nl=False)

    plan = LadderPlan(asked.rules, master, games, config, asked.concurrency, tuple(box.args()),
                      asked.keep)
    done, failed = run_ladder(ladder, plan, show)
    if tty:
        typer.echo("", err=True)
    typer.echo(f"played {plural(done, 'deal')} in {time.monotonic() - start:.1f}s")
    _print_table(ladder)
    if failed:
        typer.echo(f"failed: a seat got a status in {plural(failed, 'game')} of this run"
                   " (canasta ladder failures lists them, with replay commands)", err=True)
        raise typer.Exit(SEAT_FAILED)


def _print_table(ladder: Ladder) -> None:
    from ..ladder.rating import ratings
    names = sorted(ladder.bots())
    table = ratings(names, ladder.results())
    typer.echo(f"{'rank':<5}{'bot':<24}{'Elo':>7}{'95%':>8}{'deals':>7}")
    for i, t in enumerate(table, 1):
        elo = "0" if round(t.elo) == 0 else f"{round(t.elo):+d}"
        typer.echo(f"{i:<5}{visible(t.name):<24}{elo:>7}{'+-' + str(round(t.error)):>8}"
                   f"{t.deals:>7}")
    typer.echo("(Bradley-Terry maximum likelihood over every duplicate deal played; a deal is"
               " won on its summed score difference, a tie counts half)")


@ladder_app.command("show")
def ladder_show(db: DbOpt = None) -> None:
    """Ratings with 95% error bars and deals played, from every deal on the ladder."""
    ladder = _open(db)
    with _damage():
        _print_table(ladder)
        kept = ladder.failed_count()
    if kept:
        typer.echo(f"{plural(kept, 'failed game')} kept (the latest of each bot): canasta"
                   " ladder failures")


@ladder_app.command("failures")
def ladder_failures(
        name: Annotated[str | None, typer.Argument(
            help="A bot (NAME@VERSION), or NAME for all its versions (default: every bot).")]
        = None,
        last: Annotated[int, typer.Option(help="How many, the latest.", min=1,
                                          max=10_000)] = 10,
        out: Annotated[Path | None, typer.Option(
            help="Write each listed game's record to OUT/ladder-failure-ID.jsonl (for bot"
            " ask) and each failing bot's stderr tail beside it.")] = None,
        db: DbOpt = None) -> None:
    """The latest failed games of the ladder (a seat got CRASHED, TIMEOUT, PROTOCOL_ERROR or
    ILLEGAL_MOVE): the reason, the end of the bot's stderr, and a command that plays the game
    again; with --out, the records, for canasta bot ask."""
    ladder = _open(db)
    with _damage():
        _failures(ladder, name, last, out)


def _failures(ladder: Ladder, name: str | None, last: int, out: Path | None) -> None:
    """``ladder failures`` on an open ladder file: every row and record read and checked
    before a line is printed or a file written."""
    from ..util.private_files import write_private
    listed = ladder.failed_games(name, last)
    if not listed:
        typer.echo("no failed games kept" + (f" for {visible(name)}" if name else ""))
        return
    commands = ladder.bots()
    records = {f.id: _kept_record(ladder, f.id, f.seat) for f in listed} if out else {}
    for f in listed:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(f.at))
        typer.echo(f"#{f.id} {when} deal {f.deal} game {f.game}: {visible(f.bot)} (seat"
                   f" {f.seat}) {f.status}: {visible(f.reason)}")
        for line in f.stderr.splitlines()[-8:]:
            typer.echo(f"  | {visible(line)}")
        typer.echo(f"  replay: {visible(f.replay)}")
        kept = records.get(f.id)
        if out is not None and kept is not None:
            path = out / f"ladder-failure-{f.id}.jsonl"
            write_private(path, kept[0])
            if f.stderr:
                write_private(out / f"ladder-failure-{f.id}.seat{f.seat}.stderr.log",
                              f.stderr)
            command = commands.get(f.bot, "CMD")
            typer.echo(f"  record: {path}; that decision again: canasta bot ask"
                       f" {visible(shlex.quote(command))} {shlex.quote(str(path))}"
                       f" --decision {kept[1]}")
        elif out is not None:
            typer.echo("  (no record kept: it was too large)")


def _kept_record(ladder: Ladder, failure: int, seat: int) -> tuple[str, int] | None:
    """A failure's kept record and the decision bot ask puts again, or None if none was
    kept."""
    text = ladder.failed_record(failure)
    return None if text is None else (text, _failing_move(ladder, failure, text, seat))


def _failing_move(ladder: Ladder, failure: int, text: str, seat: int) -> int:
    """The move the referee played for ``seat`` after its first failure (from 1); a kept
    record whose lines are not a record's is damage (records.py reads them)."""
    from ..hosting.records import RecordError, parse_record
    try:
        lines = parse_record(text.encode("utf-8"), f"the record of failure #{failure}")
    except RecordError as exc:
        raise ladder.damaged(str(exc)) from None
    step = 1
    for line in lines:
        if line["type"] == "failure" and line.get("seat") == seat:
            break
        step += line["type"] == "move"
    return step


@ladder_app.command("history")
def ladder_history(name: Annotated[str, typer.Argument(
        help="A bot (NAME@VERSION), or NAME for all its versions.")],
        db: DbOpt = None) -> None:
    """How a bot's rating moved: its rating after each run, from the deals up to that run."""
    ladder = _open(db)
    with _damage():
        _history(ladder, name)


def _history(ladder: Ladder, name: str) -> None:
    """``ladder history`` on an open ladder file."""
    from ..ladder.standings import history
    names = sorted(ladder.bots())
    mine = [n for n in names if n == name or n.split("@")[0] == name]
    if not mine:
        raise fail(f"{visible(name)} is not on the ladder")
    typer.echo(f"{'run':<5}{'started':<21}{'bot':<24}{'Elo':>7}{'95%':>8}{'deals':>7}")
    for point in history(ladder):
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(point.started))
        for n in mine:
            t = point.table[n]
            if t.deals:
                elo = "0" if round(t.elo) == 0 else f"{round(t.elo):+d}"
                typer.echo(f"{point.run:<5}{when:<21}{visible(n):<24}{elo:>7}"
                           f"{'+-' + str(round(t.error)):>8}{t.deals:>7}")
