"""``canasta tournament``: bot against bot on duplicate deals, in parallel, with statistics."""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..private_files import write_private
from ..referee import TimeControl
from ..seats.contain import hide
from .options import (
    BotDiskOpt,
    BotMemoryOpt,
    BotProcsOpt,
    BotWritableOpt,
    PonderOpt,
    RulesOpt,
    SandboxOpt,
    SetOpt,
    UnboxedOpt,
    fail,
    load_rules,
    setup_box,
)


def register(app: typer.Typer) -> None:
    app.command()(tournament)


def tournament(
    bot: Annotated[list[str], typer.Option(
        "--bot", "-b", help="NAME=COMMAND (a bot command line or builtin:greedy/random).")],
    out: Annotated[Path, typer.Option(help="Directory for games.jsonl, results.json and CSV"
                                      " files; rerun the same command to resume.")],
    format_: Annotated[str, typer.Option("--format", help="round-robin or gauntlet (the first"
                                         " bot against each other).")] = "round-robin",
    games: Annotated[int, typer.Option(
        help="Duplicate deals per pairing; each is played in every seating.", min=1)] = 10,
    concurrency: Annotated[int | None, typer.Option(
        help="Games at once (default: the number of cores).", min=1)] = None,
    seed: Annotated[int | None, typer.Option(
        help="Master seed; every deal's seed derives from it (default: random, kept in the"
        " output directory so that a rerun resumes).")] = None,
    rules: RulesOpt = "classic",
    set_: SetOpt = None,
    sprt: Annotated[bool, typer.Option(help="Two bots only: stop as soon as a sequential"
                                       " probability ratio test decides.")] = False,
    elo1: Annotated[float, typer.Option(help="SPRT: the Elo gain to detect.")] = 50.0,
    sprt_unit: Annotated[str, typer.Option(
        help="SPRT on each game won or lost ('game'), or on each duplicate deal won or lost"
        " on its seatings together ('deal': the luck of the cards removed).")] = "game",
    cluster: Annotated[str | None, typer.Option(
        help="Run the games on a Dask scheduler, e.g. tcp://host:8786.")] = None,
    decision_ms: Annotated[int, typer.Option(help="Time per decision.", min=1)] = 1000,
    bank_ms: Annotated[int, typer.Option(help="Time bank per seat and game.", min=0)] = 10000,
    as_json: Annotated[bool, typer.Option("--json", help="Print results.json.")] = False,
    reuse_bots: Annotated[bool, typer.Option(
        "--reuse-bots", help="Keep bot processes between games (faster; only for trusted,"
        " stateless bots: a bot could remember a deal and play it again from the other"
        " side).")] = False,
    sandbox: SandboxOpt = False,
    unboxed: UnboxedOpt = False,
    ponder: PonderOpt = False,
    bot_memory: BotMemoryOpt = 1024,
    bot_procs: BotProcsOpt = 64,
    bot_disk: BotDiskOpt = 64,
    bot_writable: BotWritableOpt = None,
) -> None:
    """Bot against bot on duplicate deals, in parallel, with statistics you can trust."""
    # Loaded when the command runs: the runner brings in multiprocessing.
    from ..tournament import report
    from ..tournament.runner import (
        DaskExecutor,
        Executor,
        InlineExecutor,
        LocalExecutor,
        default_concurrency,
        run_tournament,
        stderr_progress,
    )
    from ..tournament.stats import Sprt
    r = load_rules(rules, set_)
    bots: dict[str, str] = {}
    for spec in bot:
        name, sep, command = spec.partition("=")
        if not sep or not name.strip() or not command.strip():
            raise fail(f"--bot {spec!r}: expected NAME=COMMAND, e.g. greedy=builtin:greedy")
        if name.strip() in bots:
            raise fail(f"two bots are named {name.strip()!r}")
        bots[name.strip()] = command.strip()
    if len(bots) < 2:
        raise fail("a tournament needs at least two --bot")
    if format_ not in ("round-robin", "gauntlet"):
        raise fail("--format takes round-robin or gauntlet")
    if sprt and len(bots) != 2:
        raise fail("--sprt compares exactly two bots")
    try:
        test = Sprt(elo1=elo1, unit=sprt_unit) if sprt else None
    except ValueError as exc:
        raise fail(f"--sprt-unit: {exc}") from None
    policy = setup_box(list(bots.values()), sandbox, unboxed, ponder, bot_memory, bot_procs,
                       bot_disk, bot_writable)
    seed = _tournament_seed(out, seed)
    hide(out)
    k = concurrency or default_concurrency()
    executor: Executor
    try:
        executor = (DaskExecutor(cluster) if cluster else
                    LocalExecutor(k) if k > 1 else InlineExecutor())
    except (RuntimeError, OSError) as exc:
        raise fail(str(exc)) from None
    tc = TimeControl(decision_ms=decision_ms, bank_ms=bank_ms)
    try:
        state = run_tournament(bots, "gauntlet" if format_ == "gauntlet" else "round-robin",
                               games, r, seed, out, executor, k, test, stderr_progress(r), tc,
                               reuse_bots, policy,
                               warn=lambda m: typer.echo(f"warning: {m}", err=True))
    except BaseException:
        executor.abort()  # interrupted: games in progress are dropped, finished ones are kept
        raise
    executor.close()
    sys.stderr.write("\n")
    summary = report.summarize(state, bots, r, format_, games, seed, test)
    report.write(summary, out)
    if as_json:
        typer.echo((out / "results.json").read_text(encoding="utf-8"))
    else:
        typer.echo(report.render(summary))
        typer.echo(f"results in {out}/results.json, standings.csv, crosstable.csv")


def _tournament_seed(out: Path, seed: int | None) -> int:
    """The master seed: given, or drawn at random the first time; kept in the output
    directory (owner-only, hidden from bots) so that running the command again resumes."""
    path = out / "seed.json"
    stored: int | None = None
    if path.exists():
        try:
            stored = int(json.loads(path.read_text(encoding="utf-8"))["seed"])
        except (OSError, ValueError, KeyError, TypeError):
            raise fail(f"{path} is damaged: remove it, or pass the tournament's --seed") from None
    if seed is not None and stored is not None and seed != stored:
        raise fail(f"{out} holds a tournament with another seed ({stored}): use another --out")
    chosen = seed if seed is not None else stored if stored is not None else \
        secrets.randbelow(2**63)
    if stored is None:
        write_private(path, json.dumps({"seed": chosen}) + "\n")
    return chosen
