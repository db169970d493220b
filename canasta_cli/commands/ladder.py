"""``canasta ladder``: a ladder that remembers (bots, deals and ratings in one SQLite file)."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..safetext import visible
from . import bounds
from .exitcodes import plural
from .options import (
    BotDiskOpt,
    BotMemoryOpt,
    BotProcsOpt,
    RulesOpt,
    SandboxOpt,
    SetOpt,
    UnboxedOpt,
    fail,
    load_rules,
    setup_box,
)

if TYPE_CHECKING:
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
    from ..ladder.store import Ladder, LadderError, default_path
    try:
        return Ladder(db or default_path())
    except (LadderError, OSError) as exc:
        raise fail(visible(str(exc))) from None


@ladder_app.command("add")
def ladder_add(name: Annotated[str, typer.Argument(help="NAME or NAME@VERSION, e.g. mybot@2.")],
               command: Annotated[str, typer.Argument(help="The bot's command line (run from"
                                                      " the folder ladder run is started in),"
                                                      " or builtin:NAME.")],
               db: DbOpt = None) -> None:
    """Put a bot (or a new version of one) on the ladder."""
    from ..ladder.store import LadderError
    if not command.startswith("builtin:"):
        bounds.enforce(bounds.check_command, command)
    ladder = _open(db)
    try:
        ladder.add(name, command)
    except LadderError as exc:
        raise fail(visible(str(exc))) from None
    typer.echo(f"added {visible(name)} to {ladder.path}")


@ladder_app.command("run")
def ladder_run(
    games: Annotated[int, typer.Option(
        help="Duplicate deals to play (each in every seating).", min=1, max=1_000_000)] = 10,
    concurrency: Annotated[int, typer.Option(help="Deals at once.", min=1, max=256)] = 1,
    db: DbOpt = None, rules: RulesOpt = "classic", set_: SetOpt = None,
    seed: Annotated[int | None, typer.Option(
        help="Master seed, on a new ladder only (default: random, kept in the file).")] = None,
    decision_ms: Annotated[int, typer.Option(help="Time per decision.", min=1)] = 1000,
    bank_ms: Annotated[int, typer.Option(help="Time bank per seat and game.", min=0)] = 10000,
    keep_failures: Annotated[int, typer.Option(
        help="Failed games kept per bot (the latest; record, stderr, reason, replay"
        " command): see ladder failures.", min=0, max=10_000)] = 20,
    sandbox: SandboxOpt = False, unboxed: UnboxedOpt = False,
    bot_memory: BotMemoryOpt = 1024, bot_procs: BotProcsOpt = 64, bot_disk: BotDiskOpt = 64,
) -> None:
    """Play duplicate deals between the pairs that most need them; each deal is kept as it
    finishes (an interrupted run loses nothing: the next one plays its unfinished deals).
    A game where a seat failed is kept with its record, the bots' stderr and a replay
    command (ladder failures lists them); the run still exits 0."""
    from ..ladder.run import run_ladder
    from ..ladder.store import LadderError
    from ..referee import TimeControl
    from ..tournament.runner import Config
    r = load_rules(rules, set_)
    ladder = _open(db)
    bots = ladder.bots()
    if len(bots) < 2:
        raise fail(f"{ladder.path} has {plural(len(bots), 'bot')}; ladder add at least two")
    try:
        kept, master = ladder.settings(r.to_dict(), seed)
    except LadderError as exc:
        raise fail(visible(str(exc))) from None
    policy = setup_box(list(bots.values()), sandbox, unboxed, False, bot_memory, bot_procs,
                       bot_disk, None)
    tc = TimeControl(decision_ms=decision_ms, bank_ms=bank_ms)
    config = Config(bots, kept, tc.to_json(), box=policy)
    start = time.monotonic()
    tty = sys.stderr.isatty()

    def show(done: int, deal: object, score: float) -> None:
        if tty:
            typer.echo(f"\r{done}/{games} deals  {time.monotonic() - start:.0f}s", err=True,
                       nl=False)

    from .tournament import _box_args
    box_args = tuple(_box_args(sandbox, unboxed, False, bot_memory, bot_procs, bot_disk, None))
    done, failed = run_ladder(ladder, r, master, games, concurrency, config, show, box_args,
                              keep_failures)
    if tty:
        typer.echo("", err=True)
    typer.echo(f"played {plural(done, 'deal')} in {time.monotonic() - start:.1f}s")
    _print_table(ladder)
    if failed:
        typer.echo(f"failed: a seat got a status in {plural(failed, 'game')} of this run"
                   " (canasta ladder failures lists them, with replay commands)", err=True)


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
    from ..ladder import failures
    ladder = _open(db)
    _print_table(ladder)
    kept = failures.count(ladder.db)
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
    from ..ladder import failures
    from ..private_files import write_private
    ladder = _open(db)
    listed = failures.listing(ladder.db, name, last)
    if not listed:
        typer.echo("no failed games kept" + (f" for {visible(name)}" if name else ""))
        return
    commands = ladder.bots()
    for f in listed:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(f.at))
        typer.echo(f"#{f.id} {when} deal {f.deal} game {f.game}: {visible(f.bot)} (seat"
                   f" {f.seat}) {f.status}: {visible(f.reason)}")
        for line in f.stderr.splitlines()[-8:]:
            typer.echo(f"  | {visible(line)}")
        typer.echo(f"  replay: {visible(f.replay)}")
        text = failures.record_text(ladder.db, f.id) if out is not None else None
        if out is not None and text is not None:
            path = out / f"ladder-failure-{f.id}.jsonl"
            write_private(path, text)
            if f.stderr:
                write_private(out / f"ladder-failure-{f.id}.seat{f.seat}.stderr.log",
                              f.stderr)
            step = _failing_move(text, f.seat)
            command = commands.get(f.bot, "CMD")
            typer.echo(f"  record: {path}; that decision again: canasta bot ask"
                       f" {visible(shlex.quote(command))} {shlex.quote(str(path))}"
                       f" --decision {step}")
        elif out is not None:
            typer.echo("  (no record kept: it was too large)")


def _failing_move(text: str, seat: int) -> int:
    """The move the referee played for ``seat`` after its first failure (from 1)."""
    import json
    step = 1
    for raw in text.splitlines():
        line = json.loads(raw)
        if line.get("type") == "failure" and line.get("seat") == seat:
            break
        step += line.get("type") == "move"
    return step


@ladder_app.command("history")
def ladder_history(name: Annotated[str, typer.Argument(
        help="A bot (NAME@VERSION), or NAME for all its versions.")],
        db: DbOpt = None) -> None:
    """How a bot's rating moved: its rating after each run, from the deals up to that run."""
    from ..ladder.standings import history
    ladder = _open(db)
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
