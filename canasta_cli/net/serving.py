"""``canasta serve`` as a plan: the table's seats, games, options and the bots' box, and
``run(plan)`` that opens the table, seats everyone, plays and says how to go on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ..core.errors import CanastaError
from ..hosting.referee import GameResult
from ..protocol.statuses import SeatStatus
from ..seats.box import DEFAULT_POLICY, BoxPolicy
from ..seats.human import HumanSeat, SharedTable
from ..table.session import make_table, replay_command
from ..util.seat_names import is_person
from .held import undo_by_default
from .table import (
    GamePlan,
    GameSeries,
    JoinTimeout,
    Table,
    TableOptions,
    build_seats,
    play_games,
)
from .tokens import TokenBook


class ServeError(CanastaError):
    """The table could not be served (the port, a seat, a record): the message, and a line
    with a command to go on with (``then``) where there is one."""

    def __init__(self, message: str, then: str | None = None) -> None:
        super().__init__(message)
        self.then = then


@dataclass(frozen=True)
class ServePlan:
    """One served table: who sits where (``remote[:NAME]`` seats join over the network),
    the games (``games.plans`` gives game g's ``GamePlan``, None after the last), the table's
    network options and the box its bot programs run in."""

    specs: tuple[str, ...]
    seed: int  # the first game's: the tokens derive nothing from it, the seats do
    games: GameSeries
    options: TableOptions
    box: BoxPolicy = DEFAULT_POLICY
    log_dir: Path = Path("logs")  # the bots' stderr logs
    tokens: TokenBook | None = None  # a resumed table's
    resumed_from: Path | None = None
    ascii_only: bool = False  # for a person at this terminal
    no_color: bool = False


def run(plan: ServePlan, say_plain: Callable[[str], None] = print) -> None:
    """Serve the plan's games; a person seated here (``human``) plays at this terminal.
    Raises ServeError with what to do next; Ctrl-C stops with the save's resume line said."""
    specs = list(plan.specs)
    terminal = make_table(plan.ascii_only, plan.no_color) \
        if any(is_person(s) for s in specs) else None
    say = terminal.terminal.show if terminal is not None else say_plain
    copy = terminal.terminal.raw if terminal is not None else say_plain  # never wrapped
    undo = plan.options.undo or undo_by_default(specs)
    if terminal is not None:
        terminal.undo = undo
    options = replace(plan.options, undo=undo)
    try:
        table = Table(specs, plan.seed, options, plan.tokens, out=say,
                      resumed=plan.resumed_from is not None)
        table.raw = copy
    except ValueError as exc:
        raise ServeError(str(exc)) from None
    try:
        table.start()
    except OSError as exc:
        raise ServeError(f"cannot listen on {options.host}:{options.port}:"
                         f" {exc.strerror or exc}") from None
    try:
        _serve(plan, table, terminal, say)
    except JoinTimeout as exc:
        resumed = plan.resumed_from
        raise ServeError(str(exc), then=f"Go on with: {table.resume_command(resumed)}"
                         if resumed is not None else None) from None
    finally:
        table.close()


def _serve(plan: ServePlan, table: Table, terminal: SharedTable | None,
           say: Callable[[str], None]) -> None:
    tls = table.opts.tls is not None
    say(f"Table on {table.opts.host}:{table.hub.port} ("
        + ("TLS" if tls else "no TLS: anyone on the network path can read the traffic, cards"
           " and tokens included; use --tls-cert/--tls-key") + ")")
    try:  # from the first join line on, a stop says how to go on
        for text in table.join_lines():
            table.raw("  " + text)
        if tls:
            say("  (a client needs --tls-ca CERT.pem if the certificate is self-signed)")
        seats = build_seats(table, list(plan.specs), plan.seed, plan.log_dir, terminal,
                            plan.box)
        resumed = any(r.resumed for r in table.remote)
        for s in seats:
            if isinstance(s, HumanSeat) and resumed:
                s.replaying = True  # the save's earlier hands were shown before
        if table.remote:
            say("Waiting for the remote seats to join...")
        table.wait_joined()
    except KeyboardInterrupt:  # stopped before the game went on: the save is as it was
        if plan.resumed_from is not None:
            say(f"Stopped. The game is saved in {plan.resumed_from}")
            table.raw(f"Go on with: {table.resume_command(plan.resumed_from)}")
        raise
    play_games(table, seats, plan.games, _reporter(table, say))


def _reporter(table: Table, say: Callable[[str], None]
              ) -> Callable[[GameResult, GamePlan], None]:
    """What is said after each game: its result or where it is saved, failing seats, and
    each remote seat's connection."""
    def done(result: GameResult, plan: GamePlan) -> None:
        if result.reason in ("saved", "unfinished"):
            say(f"Game saved to {plan.record}")
            table.raw(f"Go on with: {table.resume_command(plan.record)}")
        else:
            won = "a draw" if result.winner is None else f"side {result.winner} wins"
            say(f"Game {result.game} over ({result.reason}): {won}, scores "
                + " / ".join(map(str, result.scores)) + f"; recorded in {plan.record}")
            table.raw(f"Replay it with: {replay_command(plan.record)}")
        for i, rep in enumerate(result.seats):
            if rep["status"] != SeatStatus.OK:
                say(f"  seat {i} ({rep['name']}): {rep['status']} "
                    + "; ".join(rep["errors"][:2]))
        for remote in table.remote:
            s = remote.summary()
            rtt = (f", network round trip median {s['rtt_ms_median']:.2f} ms (max"
                   f" {s['rtt_ms_max']:.2f} ms, TCP's estimate)" if s["rtt_ms_median"]
                   is not None else "")
            say(f"  seat {s['seat']} ({s['name']}): a {s['kind']}, joined {s['joins']}"
                f" time(s){rtt}")
    return done
