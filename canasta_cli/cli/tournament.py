"""``canasta tournament``: bot against bot on duplicate deals, in parallel, with statistics."""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..hosting.referee import TimeControl
from ..seats.contain import hide
from ..util.private_files import os_message
from ..util.safetext import visible
from ..util.words import plural
from . import bounds
from .exitcodes import seat_failed
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
    from ..tournament.runner import RunState, TournamentPlan
    from ..tournament.schedule import Format, Table
    from ..tournament.stats import Sprt


def register(app: typer.Typer) -> None:
    app.command()(box_options()(tournament))


def tournament(  # noqa: PLR0913 - Typer options
    bot: Annotated[list[str], typer.Option(
        "--bot", "-b", help="NAME=COMMAND (a bot command line, or a built-in player:"
        " builtin:random, greedy, easy, normal, hard, search).")],
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
    table: Annotated[str | None, typer.Option(
        help="pairs (two bots a game) or threes (three partnerships: three bots a game, in"
        " all 3! = 6 assignments to the partnerships per deal). Default: threes with"
        " six-player-pairs rules and three bots or more, else pairs.")] = None,
    sprt: Annotated[bool, typer.Option(help="Two bots only (or one table of three: the first"
                                       " against the second): stop as soon as a sequential"
                                       " probability ratio test decides.")] = False,
    elo1: Annotated[float, typer.Option(help="SPRT: the Elo gain to detect.")] = 50.0,
    sprt_unit: Annotated[str, typer.Option(
        help="SPRT on each game won or lost ('game'), or on each duplicate deal won or lost"
        " on its seatings together ('deal': the luck of the cards removed).")] = "game",
    cluster: Annotated[str | None, typer.Option(
        help="Run the games on a Dask scheduler, e.g. tls://host:8786 (with --cluster-tls).")
    ] = None,
    cluster_tls: Annotated[Path | None, typer.Option(
        help="The cluster's certificates, made by canasta cluster init DIR.")] = None,
    cluster_insecure: Annotated[bool, typer.Option(
        "--cluster-insecure", help="Allow a plain tcp:// cluster: anyone who reaches the"
        " scheduler, a bot too, can then run code on the workers.")] = False,
    decision_ms: DecisionMsOpt = DECISION_MS,
    bank_ms: BankMsOpt = BANK_MS,
    as_json: Annotated[bool, typer.Option("--json", help="Print results.json.")] = False,
    reuse_bots: Annotated[bool, typer.Option(
        "--reuse-bots", help="Keep bot processes between games (faster; only for trusted,"
        " stateless bots: a bot could remember a deal and play it again from the other"
        " side).")] = False,
    box: BoxOptions = DEFAULT_BOX,
    records: Annotated[bool, typer.Option(
        "--records", help="Keep each game's record in OUT/records/ (for canasta replay and"
        " report).")] = False,
    html: Annotated[Path | None, typer.Option(
        help="At the end, write the HTML report here (keeps the records, with a replay page"
        " per game beside it).")] = None,
) -> None:
    """Bot against bot on duplicate deals, in parallel, with statistics you can trust.

    Bot stderr: for each game where a seat failed, OUT/failures/game-NNNN.json keeps each
    failing bot's stderr tail, the reason and a replay command (the game's record in
    OUT/records/).  Exit codes: 0 no seat failed, 3 a seat failed (the count on stderr), 2
    usage errors."""
    # Loaded when the command runs: the runner brings in multiprocessing.
    from ..tournament.runner import TournamentPlan
    from ..tournament.schedule import size
    r = load_rules(rules, set_)
    bots = _bots(bot)
    if format_ not in ("round-robin", "gauntlet"):
        raise fail("--format takes round-robin or gauntlet")
    fmt: Format = "gauntlet" if format_ == "gauntlet" else "round-robin"
    seated = _table(table, r, bots, sprt)
    test = _sprt(sprt, elo1, sprt_unit)
    policy = box.setup(list(bots.values()))
    bounds.enforce(bounds.check_tournament, bots, games, size(len(bots), fmt, r, seated),
                   concurrency, cluster is not None)
    bounds.enforce(bounds.check_clock, decision_ms, bank_ms)
    bounds.enforce(bounds.check_elo, "--elo1", elo1)
    _check_cluster(cluster, cluster_tls, cluster_insecure, box.unboxed)
    master = _tournament_seed(out, seed, bots)
    hide(out, *([cluster_tls] if cluster and cluster_tls else []))
    from ..tournament.runner import default_concurrency
    plan = TournamentPlan(
        bots, fmt, games, r, master, out, concurrency or default_concurrency(), test,
        TimeControl(decision_ms=decision_ms, bank_ms=bank_ms), reuse_bots, policy,
        records or html is not None, tuple(box.args()), seated)
    state = _run(plan, _Cluster(cluster, cluster_tls, cluster_insecure))
    _results(plan, state, as_json, html)
    from ..tournament.outdir import release
    release(out)
    _exit_on_failure(state, out, as_json)


def _bots(specs: list[str]) -> dict[str, str]:
    bots: dict[str, str] = {}
    for spec in specs:
        name, sep, command = spec.partition("=")
        if not sep or not name.strip() or not command.strip():
            raise fail(f"--bot {spec!r}: expected NAME=COMMAND, e.g. greedy=builtin:greedy")
        if name.strip() in bots:
            raise fail(f"two bots are named {name.strip()!r}")
        bots[name.strip()] = command.strip()
    if len(bots) < 2:
        raise fail("a tournament needs at least two --bot")
    return bots


def _table(table: str | None, r: Ruleset, bots: dict[str, str], sprt: bool) -> Table:
    """--table as the schedule takes it, checked against the rules, the bots and --sprt."""
    from ..tournament.schedule import default_table
    if table not in (None, "pairs", "threes"):
        raise fail("--table takes pairs or threes")
    seated: Table = default_table(r, len(bots)) if table is None else (
        "threes" if table == "threes" else "pairs")
    if seated == "threes" and r.sides != 3:
        raise fail("--table threes needs rules with three sides (six-player-pairs, or three"
                   " players)")
    if seated == "threes" and len(bots) < 3:
        raise fail("--table threes needs at least three --bot")
    if sprt and len(bots) != (3 if seated == "threes" else 2):
        raise fail("--sprt compares exactly two bots (or, at a table of three, the first two"
                   " of exactly three)")
    return seated


def _sprt(sprt: bool, elo1: float, unit: str) -> Sprt | None:
    from ..tournament.stats import Sprt
    try:
        return Sprt(elo1=elo1, unit=unit) if sprt else None
    except ValueError as exc:
        raise fail(f"--sprt-unit: {exc}") from None


@dataclass(frozen=True)
class _Cluster:
    """Where the games run: a Dask scheduler (``address``), or this machine's cores."""

    address: str | None
    tls: Path | None
    insecure: bool


def _check_cluster(address: str | None, tls: Path | None, insecure: bool, unboxed: bool
                   ) -> None:
    from ..tournament.cluster import ClusterError, check_cluster
    try:
        if address:
            check_cluster(address, tls, insecure)
            if unboxed and not insecure:
                raise ClusterError("--unboxed bots could read a worker's key and take the"
                                   " cluster over: keep them boxed (the default) on a TLS"
                                   " cluster")
        elif tls or insecure:
            raise ClusterError("--cluster-tls and --cluster-insecure go with --cluster")
    except ClusterError as exc:
        raise fail(str(exc)) from None


def _run(plan: TournamentPlan, cluster: _Cluster) -> RunState:
    from ..tournament.cluster import ClusterError, DaskExecutor
    from ..tournament.runner import (
        Executor,
        InlineExecutor,
        LocalExecutor,
        ResultsError,
        run_tournament,
        stderr_progress,
    )

    def warn(message: str) -> None:
        typer.echo(f"warning: {visible(message)}", err=True)

    k = plan.concurrency
    executor: Executor
    try:
        executor = (DaskExecutor(cluster.address, cluster.tls, cluster.insecure, [plan.out],
                                 warn)
                    if cluster.address else LocalExecutor(k) if k > 1 else InlineExecutor())
    except (RuntimeError, OSError) as exc:
        raise fail(str(exc)) from None
    try:
        state = run_tournament(plan, executor, stderr_progress(plan.rules), warn)
    except ClusterError as exc:
        executor.abort()
        raise fail(visible(str(exc))) from None
    except (OSError, ResultsError) as exc:
        executor.abort()  # a full disk, unreadable results: the rows written so far are kept
        raise fail(visible(os_message(exc) if isinstance(exc, OSError) else str(exc))) from None
    except BaseException:
        executor.abort()  # interrupted: games in progress are dropped, finished ones are kept
        raise
    executor.close()
    sys.stderr.write("\n")
    return state


def _results(plan: TournamentPlan, state: RunState, as_json: bool, html: Path | None) -> None:
    from ..tournament import report
    out = plan.out
    summary = report.summarize(state, plan)
    try:
        report.write(summary, out)
    except OSError as exc:
        raise fail(f"cannot write the results: {visible(os_message(exc))}") from None
    if as_json:
        typer.echo((out / "results.json").read_text(encoding="utf-8"))
    else:
        typer.echo(report.render(summary))
        typer.echo(f"results in {out}/results.json, standings.csv, crosstable.csv")
    if html is not None:
        from .report import html_report
        html_report(out, html, err=as_json)


def _exit_on_failure(state: RunState, out: Path, quiet: bool) -> None:
    """Games where a seat failed: where their details are, the first replay commands, and
    exit code 3 (exitcodes.py)."""
    from ..protocol.statuses import SeatStatus
    from ..tournament.failures import failed, failure_path
    rows = [state.rows[i] for i in sorted(state.rows) if failed(state.rows[i])]
    if not rows:
        return
    statuses: Counter[str] = Counter(s for r in rows for s in r["status"] if s != SeatStatus.OK)
    if not quiet:
        from ..ui.commandline import command_line
        typer.echo(f"{plural(len(rows), 'game')} where a seat failed: reasons, stderr tails and"
                   f" replay commands in {out}/failures/")
        typer.echo(f"List them with: {command_line('report', str(out))}")  # one line: copied
        for r in rows[:3]:
            path = failure_path(out, r["index"])
            typer.echo(f"  game {r['index'] + 1}: " + "; ".join(
                f"seat {i} {visible(r['seating'][i])} {st}: {visible(r['why'][i] or '')}"
                for i, st in enumerate(r["status"]) if st != SeatStatus.OK))
            typer.echo(f"    details: {path}")
    raise seat_failed(len(rows), statuses)


def _tournament_seed(out: Path, seed: int | None, bots: dict[str, str]) -> int:
    """The master seed (see tournament/outdir.py), once ``out`` is this run's alone."""
    from ..tournament.outdir import OutDirError, bot_files_inside, hold, tournament_seed
    bounds.enforce(bounds.check_directory, "--out", out)
    inside = bot_files_inside(out, bots)
    if inside is not None:
        raise fail(f"--out {visible(str(out))!r} holds {visible(inside[1])!r}, a file of bot"
                   f" {visible(inside[0])!r}: that bot would see the tournament's seed and"
                   " results there; give --out a folder of its own (e.g. --out results)")
    try:
        hold(out)
        return tournament_seed(out, seed)
    except OutDirError as exc:
        raise fail(visible(str(exc))) from None
    except OSError as exc:
        raise fail(visible(os_message(exc))) from None
