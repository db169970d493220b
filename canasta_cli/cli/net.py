"""``canasta serve`` and ``canasta join``: a table on a TCP port, and the people, bots and
spectators that join it (canasta_cli/net/)."""

from __future__ import annotations

import os
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..net.wire import DEFAULT_PORT
from .options import (
    BANK_MS,
    DECISION_MS,
    DEFAULT_BOX,
    STARTUP_MS,
    BoxOptions,
    DealerOpt,
    DeckOpt,
    HandOpt,
    RulesOpt,
    ScoresOpt,
    SetOpt,
    box_options,
    fail,
    load_decks,
    load_rules,
    load_scores,
)

if TYPE_CHECKING:
    from ..core import Ruleset
    from ..net.table import GamePlan
    from ..net.tokens import TokenBook

SeatsOpt = Annotated[list[str] | None, typer.Option(
    "--seat", "-s", help="Every seat in order: remote (or remote:NAME) for a person or a bot"
    " joining over the network, human (a person at this terminal), builtin:hard... or a bot"
    " command.")]


def serve(  # noqa: PLR0913 - Typer options
    seat: SeatsOpt = None,
    rules: RulesOpt = "classic",
    set_: SetOpt = None,
    seed: Annotated[int | None, typer.Option(
        help="Seed of game 1; game g uses seed + g - 1 (default: a fresh random seed per game)."
    )] = None,
    games: Annotated[int, typer.Option(help="Games to play at this table.", min=1)] = 1,
    host: Annotated[str, typer.Option(
        help="Address to listen on: 127.0.0.1 (this machine only) unless given, e.g. 0.0.0.0"
        " for every network of this machine.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port (0: any free port).", min=0, max=65535)]
    = DEFAULT_PORT,
    tls_cert: Annotated[Path | None, typer.Option(
        help="TLS certificate (PEM): encrypt every connection. Without TLS anyone on the"
        " network path can read the traffic, cards and tokens included.")] = None,
    tls_key: Annotated[Path | None, typer.Option(help="The certificate's private key (PEM).")]
    = None,
    away_s: Annotated[float, typer.Option(
        help="How long a person's turn waits for them after their connection dropped; then a"
        " built-in player plays their seat until they are back.", min=0.0)] = 120.0,
    away_level: Annotated[str, typer.Option(
        help="The built-in player that stands in for a person who is away: easy, normal, hard,"
        " greedy, random.")] = "normal",
    hint: Annotated[bool, typer.Option(
        "--hint", help="Let the people at this table ask for hints ('hint' at the prompt).")]
    = False,
    undo: Annotated[bool, typer.Option(
        "--undo", help="Let the people at this table take back their melds of the turn"
        " before they discard ('undo' at the prompt); with one person and built-in players"
        " only, it is allowed anyway.")] = False,
    save_dir: Annotated[Path | None, typer.Option(
        help="Where games are saved (default: canasta play's, ~/.local/share/canasta/games).")]
    = None,
    resume: Annotated[Path | None, typer.Option(
        help="Go on with a saved table game (after a restart): same seats, same tokens. A"
        " save, 'last' (the unfinished table you hosted last) or N (the N-th game 'canasta"
        " games' lists); a table served with TLS goes on with TLS only.")]
    = None,
    trust_seats: Annotated[bool, typer.Option(
        "--trust-seats", help="With --resume: start the bot programs the save names without"
        " asking.")] = False,
    decision_ms: Annotated[int, typer.Option(
        help="Time per decision of a bot (the network's round trip counts).", min=1)]
    = DECISION_MS,
    bank_ms: Annotated[int, typer.Option(help="Time bank per bot seat and game.", min=0)]
    = BANK_MS,
    startup_ms: Annotated[int, typer.Option(help="Time for a bot's handshake.", min=1)]
    = STARTUP_MS,
    on_failure: Annotated[str, typer.Option(
        help="After a bot fails: 'default' (a default move) or 'forfeit'.")] = "default",
    handshake_s: Annotated[float, typer.Option(
        help="Time a new connection has to send its token.", min=0.1)] = 10.0,
    join_timeout_s: Annotated[float, typer.Option(
        help="Give up if the remote seats have not all joined by then (0: wait).", min=0.0)]
    = 0.0,
    ban_after: Annotated[int, typer.Option(
        help="Wrong tokens from one address (within a minute) before it is refused; a"
        " connection silent until --handshake-s counts as one.", min=1)]
    = 5,
    ban_s: Annotated[float, typer.Option(help="How long such an address is refused.",
                                         min=0.0)] = 60.0,
    box: BoxOptions = DEFAULT_BOX,
    deck: DeckOpt = None,
    dealer: DealerOpt = None,
    scores: ScoresOpt = None,
    hand: HandOpt = 1,
    ascii_only: Annotated[bool, typer.Option("--ascii", help="Letters instead of suit symbols"
                                             " (a human seat here).")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colours.")] = False,
) -> None:
    """Host a table on a TCP port: people and bots join it from other machines with the
    printed join lines (canasta join), spectators with the spectator's token."""
    from ..hosting.records import RecordError
    from ..hosting.referee import TimeControl
    from ..net.serving import ServeError, ServePlan, run
    from ..net.table import GameSeries, TableOptions, is_remote
    from ..net.tokens import Guard
    from ..seats.contain import hide
    from ..table import session as playmod
    if (tls_cert is None) != (tls_key is None):
        raise fail("--tls-cert and --tls-key go together")
    _check_choices(away_level, on_failure)
    folder = save_dir or playmod.save_dir()
    if resume is not None:  # --resume last or N: --save-dir says where the saves are
        resume = _resumed_save(resume, save_dir, tls_cert is None, host, port)
    tls_files = (str(tls_cert.absolute()), str(tls_key.absolute())) if tls_cert and tls_key \
        else None
    tls = _server_tls(tls_files)
    hide(playmod.secrets_dir(), folder)
    games_of = _resumed_games(resume, trust_seats) if resume is not None else \
        _new_games(_NewTable(seat, rules, set_, seed, games, deck, dealer, scores, hand, folder))
    policy = box.setup([s for s in games_of.specs if not is_remote(s)])
    if not any(is_remote(s) for s in games_of.specs):
        typer.echo("note: no remote seat: only spectators can join this table", err=True)
    series = GameSeries(
        games_of.rules, games_of.plans,
        TimeControl(startup_ms=startup_ms, decision_ms=decision_ms, bank_ms=bank_ms),
        "forfeit" if on_failure == "forfeit" else "default")
    plan = ServePlan(
        tuple(games_of.specs), games_of.seed, series,
        TableOptions(host=host, port=port, tls=tls, tls_files=tls_files, away_s=away_s,
                     away_level=away_level, hint=hint, undo=undo, handshake_s=handshake_s,
                     join_timeout_s=join_timeout_s, guard=Guard(limit=ban_after, ban_s=ban_s)),
        policy,
        (resume.parent if resume is not None else folder) / "logs", games_of.tokens, resume,
        ascii_only, no_color)
    try:
        run(plan, typer.echo)
    except ServeError as exc:
        raise fail(str(exc), then=exc.then) from None
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM, SIGHUP: what to resume was said
        raise typer.Exit(130) from None
    except (RecordError, ValueError) as exc:
        raise fail(str(exc)) from None


def _check_choices(away_level: str, on_failure: str) -> None:
    from ..players import PLAYERS
    if away_level not in PLAYERS:
        raise fail(f"--away-level takes {', '.join(PLAYERS)}, not {away_level!r}")
    if on_failure not in ("default", "forfeit"):
        raise fail("--on-failure takes 'default' or 'forfeit'")


def _resumed_save(resume: Path, save_dir: Path | None, clear: bool, host: str, port: int
                  ) -> Path:
    """The save --resume names; a table once served with TLS is refused in clear."""
    from ..net.table import load_tls, serve_command
    from ..table import session as playmod
    from ..table.saves import SERVE, NoSuchSave, resolve
    from .play import games_command
    try:
        resume = resolve(resume, SERVE, save_dir or playmod.save_dir())
    except NoSuchSave as exc:
        raise fail(str(exc), then=f"List them with: {games_command(save_dir)}") from None
    was_tls = load_tls(resume)
    if was_tls is not None and clear:
        # Its tokens were given out encrypted: they never travel in clear after.
        raise fail(f"{resume} was served with TLS (--tls-cert, --tls-key): its tokens and"
                   " cards never travel in clear, so it goes on with TLS only",
                   then="Go on with: " + serve_command(resume, was_tls, host, port))
    return resume


def _server_tls(tls_files: tuple[str, str] | None) -> ssl.SSLContext | None:
    from ..net.client import server_tls
    try:
        return server_tls(*tls_files) if tls_files else None
    except ValueError as exc:
        raise fail(str(exc)) from None


@dataclass(frozen=True)
class _Games:
    """A table's seats, rules and games: a new table's from the options, a resumed one's
    from its save."""

    specs: list[str]
    rules: Ruleset
    seed: int
    plans: Callable[[int], GamePlan | None]
    tokens: TokenBook | None = None


@dataclass(frozen=True)
class _NewTable:
    seat: list[str] | None
    rules: str
    set_: list[str] | None
    seed: int | None
    games: int
    deck: Path | None
    dealer: int | None
    scores: str | None
    hand: int
    save_dir: Path


def _resumed_games(resume: Path, trust_seats: bool) -> _Games:
    from ..net.table import GamePlan, is_remote, load_tokens
    from ..seats.contain import hide
    from ..table import session as playmod
    from .play import confirm_programs, saves_refused
    with saves_refused():
        hide(resume.resolve().parent)
        setup = playmod.resume_setup(resume)
        tokens = load_tokens(resume, setup.rules.players)
    confirm_programs(playmod.programs([s for s in setup.specs if not is_remote(s)]), trust_seats)
    first = GamePlan(setup.seed, resume, setup.decks, setup.dealer, setup.prefix,
                     setup.secret, setup.scores, setup.hand_no)
    return _Games(setup.specs, setup.rules, setup.seed,
                  lambda g: first if g == 1 else None, tokens)


def _new_games(new: _NewTable) -> _Games:
    from ..hosting.match import game_seeds
    from ..net.table import new_plans
    from .play import saves_refused
    r = load_rules(new.rules, new.set_)
    specs = list(new.seat or [])
    if len(specs) != r.players:
        raise fail(f"{r.name} needs {r.players} seats (--seat once per player, e.g."
                   " --seat remote:ana --seat builtin:hard --seat remote:bo --seat"
                   f" builtin:hard), got {len(specs)}")
    start = load_scores(new.scores, r)
    seeds = game_seeds(new.games, new.seed)  # none given: 128 bits from secrets per game
    decks = load_decks(new.deck, r, new.dealer, seeds[0]) or None
    with saves_refused():
        plans = new_plans(seeds, new.save_dir, decks, new.dealer, start, new.hand)
    return _Games(specs, r, seeds[0], plans)


def join(  # noqa: PLR0913 - Typer options
    address: Annotated[str, typer.Argument(help="The table: HOST:PORT, as the host printed.")],
    token: Annotated[str, typer.Option(
        envvar="CANASTA_TOKEN", help="Your seat's token (or the spectators' with --watch), as"
        " the host printed; also read from $CANASTA_TOKEN.")],
    bot: Annotated[str | None, typer.Option(
        help="Seat a bot instead of you: its command line, started as canasta match starts"
        " bots; its stdin and stdout are piped to the table.")] = None,
    watch: Annotated[bool, typer.Option(
        "--watch", help="Watch with the spectators' token: what every player may see.")]
    = False,
    tls: Annotated[bool, typer.Option("--tls", help="The table uses TLS.")] = False,
    tls_ca: Annotated[Path | None, typer.Option(
        help="The certificate to trust (the host's own, if self-signed); implies --tls.")]
    = None,
    retry_s: Annotated[float, typer.Option(
        help="After a dropped connection, or while the table says it is busy (too many"
        " connections joining), keep joining again for this long.", min=0.0)] = 60.0,
    box: BoxOptions = DEFAULT_BOX,
    bot_log: Annotated[Path | None, typer.Option(
        help="With --bot: the file for the bot's stderr (default: this terminal).")] = None,
    ascii_only: Annotated[bool, typer.Option("--ascii", help="Letters instead of suit symbols.")]
    = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colours (as NO_COLOR).")]
    = False,
) -> None:
    """Join a table hosted with canasta serve: as a person at the prompt, as a bot (--bot),
    or as a spectator (--watch)."""
    from ..net.client import (
        UNREACHABLE,
        JoinError,
        Left,
        Link,
        join_retrying,
        play_person,
        tls_context,
    )
    from ..net.client import watch as watch_
    from ..net.wire import parse_address
    from ..ui.commandline import command_line
    from ..ui.screen import say, stream_width
    if bot is not None and watch:
        raise fail("--bot and --watch do not go together")
    try:
        where = parse_address(address)
    except ValueError as exc:
        raise fail(str(exc)) from None
    host, port = where
    try:
        ctx = tls_context(str(tls_ca) if tls_ca else None) if (tls or tls_ca) else None
    except JoinError as exc:
        raise fail(str(exc)) from None
    if bot is not None:
        import asyncio

        from ..net.botpipe import BotAtTable, pipe
        # Boxed like any bot this program starts (a bot at a table cannot ponder: its
        # clock runs on the server, which cannot freeze it).
        policy = box.setup([bot], ponder=True)
        log = bot_log or (Path("/dev/stderr") if os.path.exists("/dev/stderr") else None)
        try:
            plan = BotAtTable(host, port, token, ctx, bot, policy, log, retry_s)
            why = asyncio.run(pipe(plan, typer.echo))
        except JoinError as exc:
            raise fail(str(exc)) from None
        typer.echo(f"bot left the table: {why}")
        return
    from ..table.session import make_table
    table = make_table(ascii_only, no_color)
    # The line that joins again, with the same TLS: a command to copy, never wrapped.
    again = command_line("join", address, "--token", token, *(
        ["--tls"] if ctx is not None else []), *(
        ["--tls-ca", str(tls_ca.absolute())] if tls_ca is not None else []))
    try:
        if watch:
            link = join_retrying(lambda: Link(host, port, token, "watch", ctx), retry_s,
                                 typer.echo)
            why = watch_(link, typer.echo, table.style, stream_width())
            typer.echo(f"== {why}")
            return
        why = play_person(lambda: Link(host, port, token, "person", ctx), table, retry_s,
                          again)
        table.terminal.show(f"== {why}")
        if why == UNREACHABLE:
            table.terminal.raw(f"Rejoin with: {again}")
    except JoinError as exc:
        raise fail(str(exc)) from None
    except Left:
        say("You left the table; the game goes on without you (a stand-in plays after the"
            " host's away time).")
        typer.echo(f"Rejoin with: {again}")


def register(app: typer.Typer) -> None:
    app.command()(box_options()(serve))
    app.command()(box_options(ponder=False)(join))
