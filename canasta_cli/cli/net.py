"""``canasta serve`` and ``canasta join``: a table on a TCP port, and the people, bots and
spectators that join it (canasta_cli/net/)."""

from __future__ import annotations

import os
from collections.abc import Callable
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
    from ..hosting.referee import FailurePolicy, GameResult, TimeControl
    from ..net.table import GamePlan, Table
    from ..seats.human import SharedTable

SeatsOpt = Annotated[list[str] | None, typer.Option(
    "--seat", "-s", help="Every seat in order: remote (or remote:NAME) for a person or a bot"
    " joining over the network, human (a person at this terminal), builtin:hard... or a bot"
    " command.")]


def serve(
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
    from ..net.client import server_tls
    from ..net.table import (
        GamePlan,
        JoinTimeout,
        Table,
        TableOptions,
        is_remote,
        load_tls,
        load_tokens,
        new_plans,
        serve_command,
    )
    from ..net.tokens import Guard
    from ..players import PLAYERS
    from ..seats.contain import hide
    from ..table import session as playmod
    from ..table.saves import SERVE, FinishedGame, NoSuchSave, resolve
    from .play import _confirm_programs, _games_command
    if (tls_cert is None) != (tls_key is None):
        raise fail("--tls-cert and --tls-key go together")
    if away_level not in PLAYERS:
        raise fail(f"--away-level takes {', '.join(PLAYERS)}, not {away_level!r}")
    if on_failure not in ("default", "forfeit"):
        raise fail("--on-failure takes 'default' or 'forfeit'")
    if resume is not None:  # --resume last or N: --save-dir says where the saves are
        try:
            resume = resolve(resume, SERVE, save_dir or playmod.save_dir())
        except NoSuchSave as exc:
            raise fail(str(exc), then=f"List them with: {_games_command(save_dir)}") from None
        was_tls = load_tls(resume)
        if was_tls is not None and tls_cert is None:
            # Its tokens were given out encrypted: they never travel in clear after.
            raise fail(f"{resume} was served with TLS (--tls-cert, --tls-key): its tokens and"
                       " cards never travel in clear, so it goes on with TLS only",
                       then="Go on with: " + serve_command(resume, was_tls, host, port))
    tls_files = (str(tls_cert.absolute()), str(tls_key.absolute())) if tls_cert and tls_key \
        else None
    try:
        tls = server_tls(*tls_files) if tls_files else None
    except ValueError as exc:
        raise fail(str(exc)) from None
    hide(playmod.secrets_dir(), save_dir or playmod.save_dir())
    tokens = None
    try:
        if resume is not None:
            hide(resume.resolve().parent)
            setup = playmod.resume_setup(resume)
            specs, r = setup.specs, setup.rules
            tokens = load_tokens(resume, r.players)
            _confirm_programs(playmod.programs([s for s in specs if not is_remote(s)]),
                              trust_seats)
            first = GamePlan(setup.seed, resume, setup.decks, setup.dealer, setup.prefix,
                             setup.secret, setup.scores, setup.hand_no)
            seeds = [setup.seed]
            plans: Callable[[int], GamePlan | None] = lambda g: first if g == 1 else None  # noqa: E731
        else:
            r = load_rules(rules, set_)
            specs = list(seat or [])
            if len(specs) != r.players:
                raise fail(f"{r.name} needs {r.players} seats (--seat once per player, e.g."
                            " --seat remote:ana --seat builtin:hard --seat remote:bo --seat"
                            f" builtin:hard), got {len(specs)}")
            start = load_scores(scores, r)
            from ..hosting.match import game_seeds
            seeds = game_seeds(games, seed)  # none given: 128 bits from secrets per game
            decks = load_decks(deck, r, dealer, seeds[0]) or None
            plans = new_plans(seeds, save_dir or playmod.save_dir(), decks, dealer, start, hand)
    except FinishedGame as exc:
        raise fail(f"{exc.path}: that game is already over",
                   then=f"Replay it with: {playmod.replay_command(exc.path)}") from None
    except RecordError as exc:
        raise fail(str(exc)) from None
    box.setup([s for s in specs if not is_remote(s)])
    if not any(is_remote(s) for s in specs):
        typer.echo("note: no remote seat: only spectators can join this table", err=True)
    humans = any(s == "human" or s.startswith("human:") for s in specs)
    terminal = playmod.make_table(ascii_only, no_color) if humans else None
    say = terminal.terminal.show if terminal is not None else typer.echo
    # A line with a command to copy: whole on one line, never wrapped (ui/commandline.py).
    copy = terminal.terminal.raw if terminal is not None else typer.echo
    from ..net.held import undo_by_default
    undo = undo or undo_by_default(specs)
    if terminal is not None:
        terminal.undo = undo
    opts = TableOptions(host=host, port=port, tls=tls, tls_files=tls_files, away_s=away_s,
                        away_level=away_level, hint=hint, undo=undo, handshake_s=handshake_s,
                        join_timeout_s=join_timeout_s,
                        guard=Guard(limit=ban_after, ban_s=ban_s))
    try:
        table = Table(specs, seeds[0], opts, tokens, out=say, resumed=resume is not None,
                      raw=copy)
    except ValueError as exc:
        raise fail(str(exc)) from None
    try:
        table.start()
    except OSError as exc:
        raise fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    log_dir = (resume.parent if resume is not None else save_dir or playmod.save_dir()) / "logs"
    try:
        _serve(table, specs, r, seeds[0], plans, say, terminal, box.sandbox,
               TimeControl(startup_ms=startup_ms, decision_ms=decision_ms, bank_ms=bank_ms),
               "forfeit" if on_failure == "forfeit" else "default", log_dir, resume)
    except JoinTimeout as exc:
        raise fail(str(exc), then=f"Go on with: {table.resume_command(resume)}" if resume
                   is not None else None) from None
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM, SIGHUP: what to resume was said
        raise typer.Exit(130) from None
    except (RecordError, ValueError) as exc:
        raise fail(str(exc)) from None
    finally:
        table.close()


def _serve(table: Table, specs: list[str], rules: Ruleset, seed: int,
           plans: Callable[[int], GamePlan | None], say: Callable[[str], None],
           terminal: SharedTable | None, sandbox: bool, tc: TimeControl,
           on_failure: FailurePolicy, log_dir: Path, resumed_from: Path | None = None) -> None:
    from ..net.table import build_seats, play_games
    from ..seats.human import HumanSeat
    from ..table.session import replay_command
    tls = table.opts.tls is not None
    say(f"Table on {table.opts.host}:{table.hub.port} ("
        + ("TLS" if tls else "no TLS: anyone on the network path can read the traffic, cards"
           " and tokens included; use --tls-cert/--tls-key") + ")")
    try:  # from the first join line on, a stop says how to go on
        for text in table.join_lines():
            table.raw("  " + text)
        if tls:
            say("  (a client needs --tls-ca CERT.pem if the certificate is self-signed)")
        seats = build_seats(table, specs, seed, log_dir, terminal, sandbox)
        resumed = any(r.resumed for r in table.remote)
        for s in seats:
            if isinstance(s, HumanSeat) and resumed:
                s.replaying = True  # the save's earlier hands were shown before
        if table.remote:
            say("Waiting for the remote seats to join...")
        table.wait_joined()
    except KeyboardInterrupt:  # stopped before the game went on: the save is as it was
        if resumed_from is not None:
            say(f"Stopped. The game is saved in {resumed_from}")
            table.raw(f"Go on with: {table.resume_command(resumed_from)}")
        raise

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
            if rep["status"] != "OK":
                say(f"  seat {i} ({rep['name']}): {rep['status']} "
                    + "; ".join(rep["errors"][:2]))
        for remote in table.remote:
            s = remote.summary()
            rtt = (f", network round trip median {s['rtt_ms_median']:.2f} ms (max"
                   f" {s['rtt_ms_max']:.2f} ms, TCP's estimate)" if s["rtt_ms_median"]
                   is not None else "")
            say(f"  seat {s['seat']} ({s['name']}): a {s['kind']}, joined {s['joins']}"
                f" time(s){rtt}")

    play_games(table, seats, rules, tc, on_failure, plans, done)


def join(
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

        from ..net.botpipe import pipe
        # Boxed like any bot this program starts (a bot at a table cannot ponder: its
        # clock runs on the server, which cannot freeze it).
        box.setup([bot], ponder=True)
        log = bot_log or (Path("/dev/stderr") if os.path.exists("/dev/stderr") else None)
        try:
            why = asyncio.run(pipe(host, port, token, ctx, bot, box.sandbox, log, typer.echo,
                                   retry_s))
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
