"""The ``canasta`` command."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .core import (
    PRESETS,
    DeckFileError,
    GameState,
    RulesError,
    Ruleset,
    apply,
    describe,
    format_move,
    legal_moves,
    new_game,
    parse_deck_text,
    parse_option,
    preset,
)
from .describe import describe_event
from .seats.contain import hide

if TYPE_CHECKING:
    from .replay import Replay

# Plain help (rich_markup_mode=None): the rich layout labels every flag "<bool>".
app = typer.Typer(help="Canasta: an exact rules engine, a referee and bots.", no_args_is_help=True,
                  rich_markup_mode=None,
                  add_completion=False)
bench_app = typer.Typer(help="Measure performance.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(bench_app, name="bench")

RulesOpt = Annotated[str, typer.Option("--rules", "-r",
                                       help=f"Preset: {', '.join(PRESETS)}.")]
SandboxOpt = Annotated[bool, typer.Option(
    "--sandbox", help="Run each bot under bubblewrap: its own directory read-only, a private"
    " /tmp, no other process in sight, no network (needs the bubblewrap package).")]
SetOpt = Annotated[list[str] | None, typer.Option(
    "--set", help="Change one rule option, e.g. --set wild_le_natural=false (repeatable).")]


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def check_sandbox(sandbox: bool) -> None:
    if sandbox:
        from .seats.contain import SandboxUnavailable, require_sandbox
        try:
            require_sandbox()
        except SandboxUnavailable as exc:
            raise _fail(str(exc)) from None


def load_rules(name: str, options: list[str] | None) -> Ruleset:
    try:
        rules = preset(name)
        changes = dict(parse_option(o) for o in options or [])
        return rules.with_options(**changes) if changes else rules
    except RulesError as exc:
        raise _fail(str(exc)) from None


ScoresOpt = Annotated[str | None, typer.Option(
    help="Start from these cumulative scores, one per side (per player without partners),"
    " e.g. --scores 4995,1200: a game begun on paper, or a situation near the target.")]
HandOpt = Annotated[int, typer.Option(
    "--hand", help="Number of the first hand dealt (with --scores: the hand the game is at).",
    min=1, max=10000)]


def load_scores(text: str | None, rules: Ruleset) -> list[int] | None:
    """--scores as a checked list, or a one-line error that says what is expected."""
    from .core.engine import check_scores
    if text is None:
        return None
    parts = [p.strip() for p in text.replace(" ", ",").split(",") if p.strip()]
    values = []
    for p in parts:
        digits = p[1:] if p[:1] in "+-" else p
        if digits.isdecimal() and digits.isascii() and len(digits) > 8:
            raise _fail(f"--scores: {p[:20]!r} is far too large for a Canasta score")
        if not digits.isdecimal() or not digits.isascii():
            raise _fail(f"--scores: {p[:20]!r} is not a whole number; give one score per"
                        f" {'side' if rules.partnerships else 'player'}, e.g. --scores "
                        + ",".join(["4995", "1200", "0"][:rules.sides] + ["0"] * (rules.sides - 3)))
        values.append(int(p))
    try:
        return list(check_scores(rules, values))
    except ValueError as exc:
        raise _fail(f"--scores: {exc}") from None


def check_dealer(dealer: int | None, rules: Ruleset) -> None:
    if dealer is not None and not 0 <= dealer < rules.players:
        raise _fail(f"--dealer must be a seat from 0 to {rules.players - 1} ({rules.name} has"
                    f" {rules.players} players), got {dealer}")


def load_decks(path: Path | None, rules: Ruleset, dealer: int | None,
               seed: int) -> list[list[int]]:
    """A stacked-deck file for --deck, or a clear error naming the file."""
    check_dealer(dealer, rules)
    if path is None:
        return []
    try:
        return parse_deck_text(path.read_text(encoding="utf-8"), rules, dealer, seed)
    except OSError as exc:
        raise _fail(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise _fail(f"{path}: not a text file (byte {exc.start} is not UTF-8); a deck file"
                    " lists cards such as 'Kh 10d Jo', see docs/ENGINE.md") from None
    except DeckFileError as exc:
        raise _fail(f"{path}: {exc}") from None


@app.command()
def rules(rules: RulesOpt = "classic", set_: SetOpt = None,
          as_json: Annotated[bool, typer.Option("--json", help="Print the options as JSON.")]
          = False) -> None:
    """Print the ruleset in force: the preset and every option, in plain words."""
    r = load_rules(rules, set_)
    if as_json:
        typer.echo(json.dumps(r.to_dict(), indent=2))
        return
    typer.echo(f"Ruleset: {r.name}" + (" (modified)" if r != PRESETS.get(r.name) else ""))
    typer.echo("")
    for key, text in describe(r):
        typer.echo(f"  {key:<26} {text}")
    typer.echo("")
    typer.echo("Initial-meld minimum by the side's score: below 0: 15; 0-1495: 50; 1500-2995: 90;"
               " 3000 and more: 120" + (f"; from {r.six_player_150_threshold}: 150"
                                        if r.players == 6 else "") + ".")
    typer.echo("Full rules: docs/RULES.md.  Change an option with --set name=value.")


@app.command()
def position(
    rules: RulesOpt = "classic",
    set_: SetOpt = None,
    seed: Annotated[int, typer.Option(help="Seed for the deal.")] = 0,
    deck: Annotated[Path | None, typer.Option(help="Stacked deck file (docs/ENGINE.md).")]
    = None,
    dealer: Annotated[int | None, typer.Option(help="First dealer's seat.")] = None,
    moves: Annotated[str, typer.Option(
        help="Moves to play first, separated by ';', e.g. 'draw; meld K K K; discard 4'.")]
    = "",
    as_json: Annotated[bool, typer.Option("--json", help="Print the observation as JSON.")]
    = False,
    scores: ScoresOpt = None,
    hand: HandOpt = 1,
) -> None:
    """Set up a position (stacked deck, scores and moves) and show it with every legal move."""
    from .core import IllegalMoveError, NotationError, format_move, observation
    from .ui.render import Style, render_table
    r = load_rules(rules, set_)
    start = load_scores(scores, r)
    decks = load_decks(deck, r, dealer, seed)
    state = new_game(r, seed=seed, decks=decks, dealer=dealer, scores=start, hand_no=hand)
    for i, text in enumerate(t.strip() for t in moves.replace("\n", ";").split(";")):
        if not text:
            continue
        try:
            state = apply(state, text)
        except (IllegalMoveError, NotationError) as exc:
            raise _fail(f"move {i + 1} ({text!r}) by seat {state.actor}: {exc}") from None
        if state.is_over:
            break
    if state.is_over:
        typer.echo(f"The game is over: {state.game_end_reason}, scores {list(state.scores)}")
        return
    obs = observation(state, state.actor, history=False)
    legal = [format_move(m) for m in legal_moves(state)]
    if as_json:
        typer.echo(json.dumps({"observation": obs, "moves": legal}, indent=2))
        return
    names = [f"seat {i}" for i in range(r.players)]
    typer.echo(render_table(obs, [], names, Style(color=False)))
    typer.echo("Legal moves: " + ", ".join(legal))


@app.command()
def play(
    rules: RulesOpt = "classic",
    set_: SetOpt = None,
    seed: Annotated[int | None, typer.Option(help="Seed for the deal (default: random).")]
    = None,
    seat: Annotated[list[str] | None, typer.Option(
        "--seat", "-s", help="Every seat in order: 'human' (or human:NAME), builtin:greedy,"
        " builtin:random or a bot command. Default: you in seat 0, greedy players elsewhere.")]
    = None,
    resume: Annotated[Path | None, typer.Option(help="Continue a saved game.")] = None,
    save_dir: Annotated[Path | None, typer.Option(
        help="Where games are saved (default: ~/.local/share/canasta/games).")] = None,
    ascii_only: Annotated[bool, typer.Option("--ascii", help="Letters instead of suit symbols.")]
    = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colours (as NO_COLOR).")]
    = False,
    trust_seats: Annotated[bool, typer.Option(
        "--trust-seats", help="With --resume: start the bot programs the save names without"
        " asking.")] = False,
    sandbox: SandboxOpt = False,
    deck: Annotated[Path | None, typer.Option(
        help="Stacked deck file (docs/ENGINE.md): practise a situation.")] = None,
    dealer: Annotated[int | None, typer.Option(help="First dealer's seat.")] = None,
    scores: ScoresOpt = None,
    hand: HandOpt = 1,
    level: Annotated[str, typer.Option(
        help="Strength of the built-in opponents and partner when --seat is not given: easy"
        " (beatable on purpose), normal (greedy), hard (searches; answers within a second)."
        " Seats also take builtin:easy, builtin:normal, builtin:hard, builtin:search.")]
    = "hard",
) -> None:
    """Play Canasta at the prompt against built-in players or bots."""
    import random as _random

    from . import play as playmod
    from .referee import TimeControl
    from .replay import RecordError
    check_sandbox(sandbox)
    table = playmod.make_table(ascii_only, no_color)
    tc = TimeControl()
    hide(playmod.secrets_dir(), save_dir or playmod.save_dir())
    if resume is not None:
        hide(resume.resolve().parent)
    try:
        if resume is not None:
            ignored = [name for name, given in (("--rules", rules != "classic"),
                                                ("--set", bool(set_)), ("--seed", seed is not None),
                                                ("--seat", bool(seat)), ("--save-dir", bool(save_dir)),
                                                ("--deck", deck is not None),
                                                ("--dealer", dealer is not None),
                                                ("--scores", scores is not None),
                                                ("--hand", hand != 1))
                       if given]
            if ignored:
                typer.echo(f"note: {', '.join(ignored)} ignored with --resume: the save decides"
                           " the rules, seats and seed", err=True)
            args = playmod.resume_args(resume)
            record = resume
            _confirm_programs(playmod.programs(args["specs"]), trust_seats)
            table.terminal.show(f"Resuming {resume} ({len(args['prefix'])} moves so far).")
        else:
            r = load_rules(rules, set_)
            start = load_scores(scores, r)
            from .players import LEVELS
            if level not in LEVELS:
                raise _fail(f"--level takes {', '.join(LEVELS)}, not {level!r}")
            specs = seat or playmod.default_seats(r.players, level)
            if len(specs) != r.players:
                raise _fail(f"{r.name} needs {r.players} seats (--seat once per player), got"
                            f" {len(specs)}")
            if not any(s == "human" or s.startswith("human:") for s in specs):
                raise _fail("no human seat: use --seat human for at least one seat (or"
                            " 'canasta match' for bots only)")
            game_seed = seed if seed is not None else _random.SystemRandom().randrange(10**9)
            record = playmod.new_save_path(save_dir or playmod.save_dir())
            args = {"specs": specs, "rules": r, "seed": game_seed, "dealer": dealer,
                    "decks": load_decks(deck, r, dealer, game_seed) or None, "prefix": None,
                    "secret": None, "scores": start, "hand_no": hand}
        result = playmod.run(args["specs"], args["rules"], args["seed"], record, table, tc,
                             args["dealer"], args["decks"], args["prefix"], args["secret"],
                             sandbox, args["scores"], args["hand_no"])
    except RecordError as exc:
        raise _fail(str(exc)) from None
    except ValueError as exc:
        raise _fail(str(exc)) from None
    if result.reason == "saved":
        table.terminal.show(f"Game saved to {record}\nResume with:"
                            f" {playmod.resume_command(record)}")
    else:
        table.terminal.show(f"The game is recorded in {record}\nReplay it with: canasta"
                            f" replay {record}")


def _confirm_programs(commands: list[str], trusted: bool) -> None:
    """A save never starts a program by itself: its bot commands are shown and confirmed."""
    import sys as _sys
    if not commands or trusted:
        return
    listing = "\n".join(f"  {c}" for c in commands)
    if not _sys.stdin.isatty():
        raise _fail(f"this save starts these programs:\n{listing}\nrun them only if you trust"
                    " them: add --trust-seats")
    typer.echo(f"This save starts these programs:\n{listing}")
    if not typer.confirm("Start them?", default=False):
        raise _fail("not resumed: the save's programs were not confirmed")


@app.command()
def demo(rules: RulesOpt = "classic", set_: SetOpt = None,
         seed: Annotated[int | None, typer.Option(
             help="Seed for the deal and the players (default: random).")] = None,
         deck: Annotated[Path | None, typer.Option(help="Stacked deck file (docs/ENGINE.md).")]
         = None,
         dealer: Annotated[int | None, typer.Option(help="First dealer's seat.")] = None,
         step: Annotated[bool, typer.Option(
             "--step", help="Show every move, and wait for Enter after each (q quits).")]
         = False,
         delay: Annotated[float, typer.Option(
             help="Show every move, pausing this many seconds after each.", min=0.0)] = 0.0,
         scores: ScoresOpt = None,
         hand: HandOpt = 1,
         ) -> None:
    """Watch built-in random players play a whole game; prints each hand's scores."""
    if seed is None:
        seed = random.SystemRandom().randrange(10**9)
    r = load_rules(rules, set_)
    start = load_scores(scores, r)
    decks = load_decks(deck, r, dealer, seed)
    state = new_game(r, seed=seed, decks=decks, dealer=dealer, scores=start, hand_no=hand)
    rng = random.Random(seed)
    shown = 0
    label = "Side" if r.partnerships else "Player"
    typer.echo(f"{r.name}: {r.players} players, seed {seed}")
    watch = step or delay > 0
    if watch:
        for e in state.events():
            typer.echo("    " + describe_event(e.full()))
    while not state.is_over:
        moves = legal_moves(state)
        before, actor = state.log, state.actor
        move = moves[rng.randrange(len(moves))]
        state = apply(state, move)
        if watch:
            fresh = []
            node = state.log
            while node is not None and node is not before:
                fresh.append(node[1])
                node = node[0]
            typer.echo(f"--> seat {actor}: {format_move(move)}")
            for e in reversed(fresh):
                typer.echo("    " + describe_event(e.full()))
            if step and not _next_step():
                return
            if delay:
                time.sleep(delay)
        for res in state.results[shown:]:
            who = ("nobody went out" if res.went_out is None
                   else f"seat {res.went_out} went out" + (" concealed" if res.concealed else ""))
            typer.echo(f"hand {res.hand_no:>2}: {who:<28} "
                       + "  ".join(f"{label} {s.side}: {s.total:+6d}" for s in res.sides)
                       + "   totals " + " / ".join(str(t) for t in _running(state, res.hand_no)))
        shown = len(state.results)
    if state.winner is None:
        typer.echo(f"Game over ({state.game_end_reason}): a draw at {list(state.scores)}")
    else:
        typer.echo(f"Game over ({state.game_end_reason}): {label.lower()} {state.winner} wins"
                   f" with {state.scores[state.winner]}")


def _running(state: GameState, upto: int) -> list[int]:
    results = state.results
    totals = [0] * len(results[0].sides)
    for res in results[:upto]:
        totals = [a + b for a, b in zip(totals, res.totals, strict=True)]
    return totals


@app.command()
def match(
    seat: Annotated[list[str], typer.Option(
        "--seat", "-s", help="A bot command line, or builtin:random / builtin:greedy."
        " One per player, seat 0 first.")],
    games: Annotated[int, typer.Option(help="Games to play.", min=1)] = 1,
    seed: Annotated[int | None, typer.Option(
        help="Seed of game 1; game g uses seed + g - 1 (default: a fresh random seed per game,"
        " revealed in each record when the game is over).")] = None,
    rules: RulesOpt = "classic",
    set_: SetOpt = None,
    record: Annotated[Path | None, typer.Option(
        help="Directory for one JSON Lines record per game and the bots' stderr logs.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
    transcript: Annotated[Path | None, typer.Option(
        help="Directory for every seat's conversation with the referee (seatN.jsonl).")] = None,
    decision_ms: Annotated[int, typer.Option(help="Time per decision.", min=1)] = 1000,
    bank_ms: Annotated[int, typer.Option(help="Time bank per seat and game.", min=0)] = 10000,
    startup_ms: Annotated[int, typer.Option(help="Time for the handshake.", min=1)] = 10000,
    on_failure: Annotated[str, typer.Option(
        help="After a bot fails: 'default' (the referee plays a default move) or 'forfeit'.")]
    = "default",
    spin_us: Annotated[int, typer.Option(
        help="Microseconds to poll for a bot's answer before sleeping (0: sleep at once).",
        min=0)] = 300,
    sandbox: SandboxOpt = False,
    scores: ScoresOpt = None,
    hand: HandOpt = 1,
) -> None:
    """Play games between bots and print a results table."""
    from .match import run_match
    from .referee import TimeControl
    r = load_rules(rules, set_)
    if len(seat) != r.players:
        raise _fail(f"{r.name} needs {r.players} seats (--seat ... once per player), got "
                    f"{len(seat)}")
    if on_failure not in ("default", "forfeit"):
        raise _fail("--on-failure takes 'default' or 'forfeit'")
    start = load_scores(scores, r)
    check_sandbox(sandbox)
    tc = TimeControl(startup_ms=startup_ms, decision_ms=decision_ms, bank_ms=bank_ms)
    hide(*(d for d in (record, transcript) if d is not None))
    try:
        result = run_match(seat, r, games, seed, record, tc,
                           "forfeit" if on_failure == "forfeit" else "default", transcript,
                           spin_us, sandbox, start, hand)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
        return
    label = "side" if r.partnerships else "player"
    seeds = (f"seeds {seed}..{seed + games - 1}" if seed is not None else
             "random seeds (each record reveals its game's when it is over)")
    typer.echo(f"{games} game(s) of {r.name}, {seeds}")
    typer.echo(f"{label:<6}{'wins':>6}{'points':>10}{'per hand':>10}  seats")
    for row in result.side_table():
        typer.echo(f"{row['side']:<6}{row['wins']:>6}{row['points']:>10}"
                   f"{row['mean_per_hand']:>10.1f}  {', '.join(row['seats'])}")
    draws = sum(1 for g in result.games if g.winner is None)
    if draws:
        typer.echo(f"draws: {draws}")
    for i, rep in enumerate(result.seat_summary()):
        if rep["status"] != "OK" or rep["failures"]:
            typer.echo(f"seat {i} ({rep['name']}): {rep['status']} "
                       + ", ".join(f"{k} x{v}" for k, v in rep["failures"].items()))
            for err in rep["errors"][:3]:
                typer.echo(f"    {err}")
    where = f"records in {record}" if record else f"bot stderr logs in {result.log_dir}"
    typer.echo(where)


@app.command()
def replay(
    record: Annotated[Path, typer.Argument(help="A game record (.jsonl) written by a match.")],
    seat: Annotated[int | None, typer.Option(help="Show the game as this seat saw it.")] = None,
    verify_: Annotated[bool, typer.Option(
        "--verify", help="Re-play every move through the engine and check every event and score.")]
    = False,
    step: Annotated[bool, typer.Option(help="Wait for Enter after each move.")] = False,
) -> None:
    """Step through a recorded game, or verify it."""
    from .replay import RecordError, load_record, sealed_parts, verify
    from .replay import replay as run_replay
    public = False
    try:
        lines = load_record(record)
        secret = None
        if sealed_parts(lines) is None and lines[0].get("secret"):
            # A saved game that goes on later: its hidden cards stay hidden here too.
            from .play import load_secret
            secret = load_secret(record, lines)
            public = True
            if seat is not None:
                raise _fail("this game is not over: only the public view of it is shown")
        rep = verify(lines, secret) if verify_ else run_replay(lines, secret)
    except RecordError as exc:
        raise _fail(str(exc)) from None
    players = rep.state.rules.players
    if seat is not None and not 0 <= seat < players:
        raise _fail(f"--seat must be from 0 to {players - 1}")
    if verify_:
        if rep.ok:
            n = sum(len(e) for _, _, e in rep.steps)
            typer.echo(f"OK: {len(rep.steps) - 1} moves and {n} events replay identically;"
                       f" scores {list(rep.state.scores)}")
            return
        for m in rep.mismatches:
            typer.echo(f"MISMATCH: {m}")
        raise typer.Exit(1)
    if step and seat is not None:
        _step_through(rep, seat, [str(n) for n in rep.header.get("seats", [])])
        return
    for who, move, evs in rep.steps:
        if move is not None:
            typer.echo(f"--> seat {who}: {move}")
        for e in evs:
            shown = e.view(-1) if public else e.view(seat) if seat is not None else e.full()
            typer.echo("    " + describe_event(shown))
        if step and move is not None and not _next_step():
            return


def _next_step() -> bool:
    """Enter for the next step; q (or the end of input) to stop."""
    try:
        answer = input("[Enter: next step, q: quit] ")
    except (EOFError, KeyboardInterrupt):
        return False
    return answer.strip().lower() not in ("q", "quit")


def _step_through(rep: Replay, seat: int, names: list[str]) -> None:
    """``replay --step --seat N``: the table as seat N saw it before each of its decisions
    and after each move, with what happened in between."""
    import shutil

    from .core import observation
    from .describe import story
    from .ui.render import Style, fit, render_table, seat_labels
    states = rep.states
    steps = rep.steps
    style = Style(color=False)
    width = shutil.get_terminal_size((80, 24)).columns
    players = len(states[0].hands)
    names = names if len(names) == players else [f"seat {i}" for i in range(players)]
    labels = seat_labels(seat, names, states[0].rules.partnerships)
    for i, ((who, move, evs), state) in enumerate(zip(steps, states, strict=False)):
        lines = [f"--> {labels[who]}: {move}"] if move is not None and who is not None else []
        lines += ["    " + x for x in story([e.view(seat) for e in evs],
                                            lambda s: labels[s] if 0 <= s < players else str(s))]
        typer.echo(fit("\n".join(lines), width))
        if state.is_over:
            break
        obs = observation(state, seat, history=False)
        typer.echo(fit(render_table(obs, [], names, style), width))
        if i + 1 < len(steps) and not _next_step():
            return


@app.command()
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
) -> None:
    """Bot against bot on duplicate deals, in parallel, with statistics you can trust."""
    from .referee import TimeControl
    from .tournament import report
    from .tournament.runner import (
        DaskExecutor,
        Executor,
        InlineExecutor,
        LocalExecutor,
        default_concurrency,
        run_tournament,
        stderr_progress,
    )
    from .tournament.stats import Sprt
    r = load_rules(rules, set_)
    bots: dict[str, str] = {}
    for spec in bot:
        name, sep, command = spec.partition("=")
        if not sep or not name.strip() or not command.strip():
            raise _fail(f"--bot {spec!r}: expected NAME=COMMAND, e.g. greedy=builtin:greedy")
        if name.strip() in bots:
            raise _fail(f"two bots are named {name.strip()!r}")
        bots[name.strip()] = command.strip()
    if len(bots) < 2:
        raise _fail("a tournament needs at least two --bot")
    if format_ not in ("round-robin", "gauntlet"):
        raise _fail("--format takes round-robin or gauntlet")
    if sprt and len(bots) != 2:
        raise _fail("--sprt compares exactly two bots")
    try:
        test = Sprt(elo1=elo1, unit=sprt_unit) if sprt else None
    except ValueError as exc:
        raise _fail(f"--sprt-unit: {exc}") from None
    check_sandbox(sandbox)
    seed = _tournament_seed(out, seed)
    hide(out)
    k = concurrency or default_concurrency()
    executor: Executor
    try:
        executor = (DaskExecutor(cluster) if cluster else
                    LocalExecutor(k) if k > 1 else InlineExecutor())
    except (RuntimeError, OSError) as exc:
        raise _fail(str(exc)) from None
    tc = TimeControl(decision_ms=decision_ms, bank_ms=bank_ms)
    try:
        state = run_tournament(bots, "gauntlet" if format_ == "gauntlet" else "round-robin",
                               games, r, seed, out, executor, k, test, stderr_progress(r), tc,
                               reuse_bots, sandbox,
                               warn=lambda m: typer.echo(f"warning: {m}", err=True))
    except BaseException:
        executor.abort()  # interrupted: games in progress are dropped, finished ones are kept
        raise
    executor.close()
    import sys as _sys
    _sys.stderr.write("\n")
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
    import secrets as _secrets
    path = out / "seed.json"
    stored: int | None = None
    if path.exists():
        try:
            stored = int(json.loads(path.read_text(encoding="utf-8"))["seed"])
        except (OSError, ValueError, KeyError, TypeError):
            raise _fail(f"{path} is damaged: remove it, or pass the tournament's --seed") from None
    if seed is not None and stored is not None and seed != stored:
        raise _fail(f"{out} holds a tournament with another seed ({stored}): use another --out")
    chosen = seed if seed is not None else stored if stored is not None else \
        _secrets.randbelow(2**63)
    if stored is None:
        from .files import write_private
        write_private(path, json.dumps({"seed": chosen}) + "\n")
    return chosen


bot_app = typer.Typer(help="Tools for bot authors.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(bot_app, name="bot")
from .env.commands import register as _register_env  # noqa: E402 - docs/ML.md

_register_env(bench_app, bot_app)


@bot_app.command("check")
def bot_check(command: Annotated[str, typer.Argument(help="The bot's command line.")],
              timeout_ms: Annotated[int, typer.Option(help="Time allowed per answer.")] = 5000,
              sandbox: SandboxOpt = False) -> None:
    """Conformance check: the handshake, every request type and the rule edges."""
    from .botcheck import run_checks
    check_sandbox(sandbox)
    checks = run_checks(command, timeout_ms / 1000, sandbox)
    for c in checks:
        typer.echo(f"{'PASS' if c.passed else 'FAIL'}  {c.name} ({c.ms:.0f} ms): {c.detail}")
    failed = sum(1 for c in checks if not c.passed)
    typer.echo(f"{len(checks) - failed} passed, {failed} failed")
    if failed:
        raise typer.Exit(1)


@bot_app.command("run")
def bot_run(
    name: Annotated[str, typer.Argument(
        help="A built-in player: search, greedy, random, or a level: easy, normal, hard.")],
    level: Annotated[str | None, typer.Option(
        help="With 'search': easy, normal or hard (hard: the search player).")] = None,
    ms: Annotated[int | None, typer.Option(
        help="search/hard: milliseconds per decision (default 900 for search, 400 for hard).",
        min=1, max=600000)] = None,
    seed: int = 0,
) -> None:
    """Run a built-in player as a protocol bot on stdin/stdout, to play against it from any
    tooling: e.g. canasta match --seat "canasta bot run search --ms 200" ..."""
    from .players import PLAYERS
    from .players.stdio import run
    kind = level if (name == "search" and level) else name
    if level is not None and name != "search":
        raise _fail("--level goes with 'search' (or name the level itself: easy, normal, hard)")
    if kind not in PLAYERS:
        raise _fail(f"unknown built-in player {kind!r}: choose one of {', '.join(PLAYERS)}")
    if ms is not None and kind not in ("search", "hard"):
        raise _fail("--ms is for search and hard")
    player = PLAYERS[kind](seed, str(ms) if ms is not None else "")
    run(player, f"canasta bot run {kind}")


@bench_app.command("engine")
def bench_engine_cmd(
    hands: Annotated[int, typer.Option(help="Hands to play per preset.")] = 2000,
    seed: int = 0,
    rules: Annotated[list[str] | None, typer.Option(
        "--rules", "-r", help="Presets to measure (default: all).")] = None,
    compare: Annotated[str | None, typer.Option(
        help="A git revision to compare with (e.g. 3ce4f47): fresh processes, interleaved this,"
        " REV, this, REV...; prints the hands/s ratio per round, its median and spread, the load"
        " average, and whether both played the same games.")] = None,
    rounds: Annotated[int, typer.Option(help="Rounds with --compare.", min=1)] = 3,
) -> None:
    """Random legal play: hands/s, decisions/s, mean and max legal moves per decision."""
    from .bench import bench_engine
    names = rules or list(PRESETS)
    if compare is not None:
        import os

        from .benchcompare import CompareError, summary
        from .benchcompare import compare as run_compare
        typer.echo(f"load average at start: {os.getloadavg()[0]:.2f}; {hands} hands per run")
        try:
            done = run_compare(compare, names, hands, rounds, typer.echo)
        except CompareError as exc:
            raise _fail(str(exc)) from None
        for line in summary(done, compare):
            typer.echo(line)
        typer.echo(f"load average at end: {os.getloadavg()[0]:.2f}")
        return
    typer.echo(f"{'preset':<14}{'players':>8}{'hands':>8}{'hands/s':>10}{'decisions/s':>13}"
               f"{'mean moves':>12}{'max moves':>11}")
    for name in names:
        r = load_rules(name, None)
        b = bench_engine(r, hands, seed)
        typer.echo(f"{name:<14}{r.players:>8}{b.hands:>8}{b.hands_per_second:>10.0f}"
                   f"{b.decisions_per_second:>13.0f}{b.mean_moves:>12.1f}{b.max_moves:>11}")


@bench_app.command("referee")
def bench_referee_cmd(
    rules: RulesOpt = "classic",
    set_: SetOpt = None,
    games: Annotated[int, typer.Option(help="Games per round.", min=1)] = 20,
    rounds: Annotated[int, typer.Option(help="Rounds (referee, engine, referee...).", min=1)]
    = 7,
    seed: int = 0,
) -> None:
    """In-process games of four built-in random players through the referee, against the
    bare engine playing the very same moves; interleaved rounds, the median ratio and spread."""
    import os

    from .benchreferee import bench_referee
    r = load_rules(rules, set_ or ["max_hands=5"])
    typer.echo(f"load average at start: {os.getloadavg()[0]:.2f}")
    bench_referee(r, games, rounds, seed, typer.echo)


@bench_app.command("levels")
def bench_levels_cmd(
    rules: RulesOpt = "two-player",
    games: Annotated[int, typer.Option(help="One-hand games per level.", min=1)] = 4,
    seed: int = 0,
) -> None:
    """Time per decision of each built-in level (mean and 99th percentile), each playing
    one-hand games against builtin:greedy, with the load average."""
    import os
    import statistics
    import time as _time

    from .players import LEVELS, PLAYERS
    from .referee import Referee
    from .seats import builtin_seat
    from .seats.policy import PolicySeat
    r = load_rules(rules, ["max_hands=1"])
    typer.echo(f"{'level':<8}{'decisions':>10}{'mean ms':>10}{'p99 ms':>10}{'max ms':>10}")
    for level in (*LEVELS, "search"):
        player = PLAYERS[level](seed, "")
        times: list[float] = []

        def timed(msg: dict[str, object], player=player, times=times):  # type: ignore[no-untyped-def]
            if msg.get("type") != "act":
                return player(msg)
            t0 = _time.perf_counter()
            reply = player(msg)
            times.append((_time.perf_counter() - t0) * 1000)
            return reply

        seats = [PolicySeat(level, timed)] + [builtin_seat("builtin:greedy", i)
                                              for i in range(1, r.players)]
        ref = Referee(seats, r)  # type: ignore[arg-type]
        for g in range(games):
            ref.play(g + 1, seed=seed + g)
        times.sort()
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        typer.echo(f"{level:<8}{len(times):>10}{statistics.mean(times):>10.1f}{p99:>10.1f}"
                   f"{times[-1]:>10.1f}")
    typer.echo(f"load average: {os.getloadavg()[0]:.2f}")


@bench_app.command("corners")
def bench_corners_cmd(
    hands: Annotated[int, typer.Option(help="Random hands per preset searched for the slowest"
                                       " call met in play.", min=1)] = 20,
) -> None:
    """The slowest positions known for one legal_moves call: built worst cases, and the slowest
    call met in random play (six players at 7,500, where the minimum is 150)."""
    from .benchcorners import CORNERS, slowest_in_play, time_corner
    typer.echo(f"{'ms':>9} {'moves':>6}  position")
    worst = {True: 0.0, False: 0.0}
    for corner in CORNERS:
        took, count = time_corner(corner)
        worst[corner.reachable] = max(worst[corner.reachable], took)
        typer.echo(f"{took * 1000:9.2f} {count:>6}  {corner.name}"
                   + ("" if corner.reachable else " (API only)"))
    for name, scores in (("six-player", [7500, 7500]), ("classic", [0, 0]),
                         ("two-player", [0, 0])):
        took, count, where = slowest_in_play(name, hands, scores)
        worst[True] = max(worst[True], took)
        typer.echo(f"{took * 1000:9.2f} {count:>6}  slowest call in {hands} random {name} hands"
                   f" from {scores}: {where}")
    typer.echo(f"slowest reachable: {worst[True] * 1000:.2f} ms (limit 5 ms); slowest built"
               f" through the API: {worst[False] * 1000:.1f} ms (limit 1000 ms)")


BotOpt = Annotated[str, typer.Option(help="Bot command (default: bots/random_bot.py with this"
                                        " Python).")]


def _bench_bot(bot: str) -> list[str]:
    import shlex
    import sys
    if bot.startswith("builtin:"):
        return [bot]
    if bot:
        return shlex.split(bot)
    default = _bots_dir() / "random_bot.py"
    if not default.is_file():
        # An installed copy has no bots/ directory: timing a bot that cannot start would
        # only time the referee's default moves.
        raise _fail(f"the example bot {default} is not there (bots/ comes with a checkout of the"
              " project, not with an installed copy): pass --bot 'COMMAND', e.g. --bot"
              " 'python3 path/to/bots/random_bot.py'")
    return [sys.executable, str(default)]


@bench_app.command("protocol")
def bench_protocol_cmd(
    bot: BotOpt = "",
    games: Annotated[int, typer.Option(help="One-hand games to time (one round each).", min=1)]
    = 15,
    seed: int = 0,
    spin_us: Annotated[int, typer.Option(
        help="Microseconds the referee polls before sleeping (0: sleep at once).", min=0)] = 300,
) -> None:
    """Round trip per decision through a subprocess bot vs a bare JSON echo; game times."""
    import os

    from .bench import bench_protocol
    b = bench_protocol(_bench_bot(bot), games, seed, spin_us)
    typer.echo(f"decisions measured: {b.decisions}")
    typer.echo(f"round trip, referee + bot:  median {b.referee_median_ms:.3f} ms"
               f"  p90 {b.referee_p90_ms:.3f} ms")
    typer.echo(f"bare JSON-line echo floor:  median {b.echo_median_ms:.3f} ms"
               f"  p90 {b.echo_p90_ms:.3f} ms")
    rs = sorted(b.round_ratios)
    typer.echo(f"ratio, median of {len(rs)} interleaved rounds (a game, then its echo):"
               f" {b.ratio:.2f}x (min {rs[0]:.2f}, max {rs[-1]:.2f}); load average"
               f" {os.getloadavg()[0]:.2f}")
    typer.echo(f"echo floor with one echo process per seat, as in a match: median"
               f" {b.echo4_median_ms:.3f} ms, ratio {b.ratio4:.2f}x")
    typer.echo(f"one-hand 4-player game: subprocess bots {b.subprocess_game_s * 1000:.0f} ms,"
               f" in-process {b.inprocess_game_s * 1000:.0f} ms, ratio {b.game_ratio:.1f}x")


@bench_app.command("tournament")
def bench_tournament_cmd(
    bot: BotOpt = "",
    games: Annotated[int, typer.Option(help="Duplicate deals (two games each).", min=1)] = 100,
    hands: Annotated[int, typer.Option(help="Hands per game (max_hands).", min=1)] = 1,
    rounds: Annotated[int, typer.Option(help="Rounds of concurrency 1 then 2.", min=1)] = 3,
    reuse_bots: Annotated[bool, typer.Option(
        "--reuse-bots", help="Keep bot processes between games, as tournament"
        " --reuse-bots does.")] = False,
) -> None:
    """Games per second with concurrency 1 and 2, interleaved, the speed-up per round and its
    median, the cores each run kept busy and the load average.  --bot builtin:random measures
    the runner itself (each game one process); a subprocess bot adds the bots' own work, which
    already runs in parallel."""
    import os
    import statistics

    from .bench import bench_tournament
    t0_load = os.getloadavg()[0]
    b = bench_tournament(_bench_bot(bot), games, hands=hands, rounds=rounds,
                         reuse_bots=reuse_bots)
    typer.echo(f"{b.games} games a run; load average at start {t0_load:.2f}")
    ups = b.speedups()
    for i, (one, two) in enumerate(zip(b.runs[::2], b.runs[1::2], strict=True)):
        typer.echo(f"round {i + 1}: concurrency 1 {b.rate(one):.1f} games/s ({one.cores:.2f}"
                   f" cores busy, load {one.load:.2f}); concurrency 2 {b.rate(two):.1f} games/s"
                   f" ({two.cores:.2f} cores busy, load {two.load:.2f}); speed-up {ups[i]:.2f}x")
    busy = statistics.median(r.cores for r in b.runs[::2])
    typer.echo(f"speed-up: median {statistics.median(ups):.2f}x (min {min(ups):.2f}, max"
               f" {max(ups):.2f}, {len(ups)} rounds); at most {2 / max(busy, 1):.2f}x on two"
               f" cores for work that keeps {busy:.2f} cores busy at concurrency 1")


def _bots_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "bots"


def _version(value: bool) -> None:
    if value:
        from . import __version__
        typer.echo(f"canasta {__version__} (protocol canasta/1)")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")]
        = False) -> None:
    """Canasta: an exact rules engine, a referee and bots."""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: the command stops as on Ctrl-C, closing records and ending bots."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated(signum)


def main() -> None:
    import signal
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _terminate)
    app()


if __name__ == "__main__":
    main()
