"""``canasta play``: a game at the prompt against built-in players or bots, saved as it goes."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..seats.contain import hide
from ..ui.commandline import command_line
from ..util.private_files import os_message
from ..util.safetext import visible
from ..util.seat_names import is_person
from ..util.seeds import fresh_seed
from . import bounds
from .options import (
    DEFAULT_BOX,
    BoxOptions,
    DealerOpt,
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
    from ..table.session import GameSetup


def register(app: typer.Typer) -> None:
    app.command()(box_options()(play))


def play(  # noqa: PLR0913 - Typer options
    rules: RulesOpt = "classic",
    set_: SetOpt = None,
    seed: Annotated[int | None, typer.Option(help="Seed for the deal (default: random).")]
    = None,
    seat: Annotated[list[str] | None, typer.Option(
        "--seat", "-s", help="Every seat in order: 'human' (or human:NAME), builtin:greedy,"
        " builtin:random or a bot command. Default: you in seat 0, built-in players of --level"
        " (hard) elsewhere.")]
    = None,
    resume: Annotated[Path | None, typer.Option(
        help="Continue a saved game: its file, 'last' for the unfinished one you played last,"
        " or the number canasta games gives it.")] = None,
    save_dir: Annotated[Path | None, typer.Option(
        help="Where games are saved (default: ~/.local/share/canasta/games).")] = None,
    ascii_only: Annotated[bool, typer.Option("--ascii", help="Letters instead of suit symbols.")]
    = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colours (as NO_COLOR).")]
    = False,
    trust_seats: Annotated[bool, typer.Option(
        "--trust-seats", help="With --resume: start the bot programs the save names without"
        " asking.")] = False,
    box: BoxOptions = DEFAULT_BOX,
    deck: Annotated[Path | None, typer.Option(
        help="Stacked deck file (docs/ENGINE.md): practise a situation.")] = None,
    dealer: DealerOpt = None,
    scores: ScoresOpt = None,
    hand: HandOpt = 1,
    level: Annotated[str, typer.Option(
        help="Strength of the built-in opponents and partner when --seat is not given: easy"
        " (beatable on purpose), normal (greedy), hard (searches; answers within a second)."
        " Seats also take builtin:easy, builtin:normal, builtin:hard, builtin:search.")]
    = "hard",
    four_color: Annotated[bool | None, typer.Option(
        "--four-color/--two-color", help="Each suit its own colour (clubs green, diamonds"
        " blue), or hearts and diamonds red; the choice is kept for the next games.")]
    = None,
    plain: Annotated[bool, typer.Option(
        "--plain", help="Plain lines, no colour, no screen control (screen readers, scripts):"
        " as when the output is piped.")] = False,
    undo: Annotated[bool, typer.Option(
        "--undo", help="Offer 'undo' (take back your melds of the turn before you discard)"
        " even with bot programs or other people at the table; with built-in players only,"
        " it is offered anyway.")] = False,
) -> None:
    """Play Canasta at the prompt against built-in players or bots."""
    # Loaded when the command runs, as in every command module: the prompt (prompt_toolkit)
    # would slow every other command's start.
    from ..table import session as playmod
    policy = box.setup(seat or [])
    bounds.enforce(bounds.check_directory, "--save-dir", save_dir)
    colors = _four_color(four_color)
    if plain and sum(1 for s in seat or [] if is_person(s)) > 1:
        raise fail("--plain cannot hide one player's hand from the next: a hot-seat game needs"
                   " the terminal's screen")
    hide(playmod.secrets_dir(), save_dir or playmod.save_dir())
    new = _NewGame(rules, set_, seed, seat, save_dir, deck, dealer, scores, hand, level)
    display = playmod.Display(ascii_only, no_color, colors, plain)
    with saves_refused():
        if resume is not None:
            resume, saved = _resume(resume, new, trust_seats)
            plan = playmod.TablePlan(saved, resume, display, policy, undo, resumed=True)
        else:
            setup, record = _new_game(new)
            plan = playmod.TablePlan(setup, record, display, policy, undo)
        playmod.play(plan)


def _four_color(choice: bool | None) -> bool:
    """--four-color/--two-color, kept for the next games; else the kept choice."""
    from ..table import session as playmod
    if choice is None:
        return bool(playmod.load_settings().get("four_color"))
    try:
        playmod.save_setting("four_color", choice)
    except OSError as exc:
        typer.echo(f"note: the colour choice was not saved: {exc}", err=True)
    return choice


@dataclass(frozen=True)
class _NewGame:
    """The options that make a new game (ignored, and said so, with --resume)."""

    rules: str
    set_: list[str] | None
    seed: int | None
    seat: list[str] | None
    save_dir: Path | None
    deck: Path | None
    dealer: int | None
    scores: str | None
    hand: int
    level: str

    def ignored(self, looked_up: bool) -> list[str]:
        """The options given that a save overrides (--save-dir only where it named the
        save itself rather than where --resume last or N looked)."""
        given = (("--rules", self.rules != "classic"), ("--set", bool(self.set_)),
                 ("--seed", self.seed is not None), ("--seat", bool(self.seat)),
                 ("--save-dir", bool(self.save_dir) and not looked_up),
                 ("--deck", self.deck is not None), ("--dealer", self.dealer is not None),
                 ("--scores", self.scores is not None), ("--hand", self.hand != 1))
        return [name for name, was in given if was]


def _resume(resume: Path, new: _NewGame, trust_seats: bool) -> tuple[Path, GameSetup]:
    """The save --resume names (a file, 'last' or N: --save-dir says where to look), its bot
    programs confirmed."""
    from ..table import session as playmod
    from ..table.saves import PLAY, NoSuchSave, resolve
    try:
        found = resolve(resume, PLAY, new.save_dir or playmod.save_dir())
    except NoSuchSave as exc:
        then = (f"Start one with: {command_line('play')}" if str(resume) == "last" else
                f"List them with: {games_command(new.save_dir)}")
        raise fail(str(exc), then=then) from None
    hide(found.resolve().parent)
    ignored = new.ignored(looked_up=found != resume)
    if ignored:
        typer.echo(f"note: {', '.join(ignored)} ignored with --resume: the save decides"
                   " the rules, seats and seed", err=True)
    setup = playmod.resume_setup(found)
    confirm_programs(playmod.programs(setup.specs), trust_seats)
    return found, setup


@contextlib.contextmanager
def saves_refused() -> Iterator[None]:
    """A finished or damaged save, a bad seat, a save that cannot be written: one line (with
    what to do next where there is something) and exit code 2."""
    from ..hosting.records import RecordError
    from ..table import session as playmod
    from ..table.saves import FinishedGame
    try:
        yield
    except FinishedGame as exc:
        raise fail(f"{exc.path}: that game is already over",
                   then=f"Replay it with: {playmod.replay_command(exc.path)}") from None
    except (RecordError, ValueError) as exc:
        raise fail(str(exc)) from None
    except OSError as exc:  # the save cannot be written (a full disk, a link in its place)
        raise fail(f"cannot write {visible(os_message(exc))}") from None


def games_command(save_dir: Path | None) -> str:
    """``canasta games`` (with this --save-dir), as it can be typed here."""
    return command_line("games", *(["--save-dir", str(save_dir)] if save_dir else []))


def _new_game(new: _NewGame) -> tuple[GameSetup, Path]:
    """A new game's setup from the options, checked, and the path of its save."""
    from ..players import LEVELS
    from ..seats import builtin_seat
    from ..table import session as playmod
    r = load_rules(new.rules, new.set_)
    start = load_scores(new.scores, r)
    level = new.level
    if level.partition(":")[0] not in LEVELS:
        raise fail(f"--level takes {', '.join(LEVELS)}, not {level!r}")
    try:  # hard:deals=N and the like
        builtin_seat(f"builtin:{level}")
    except ValueError as exc:
        raise fail(f"--level: {exc}") from None
    specs = new.seat or playmod.default_seats(r.players, level)
    if len(specs) != r.players:
        raise fail(f"{r.name} needs {r.players} seats (--seat once per player), got"
                   f" {len(specs)}")
    if not any(is_person(s) for s in specs):
        raise fail("no human seat: use --seat human for at least one seat (or"
                   " 'canasta match' for bots only)")
    game_seed = new.seed if new.seed is not None else fresh_seed()
    record = playmod.new_save_path(new.save_dir or playmod.save_dir())
    setup = playmod.GameSetup(specs=specs, rules=r, seed=game_seed, dealer=new.dealer,
                              decks=load_decks(new.deck, r, new.dealer, game_seed) or None,
                              scores=start, hand_no=new.hand)
    return setup, record


def confirm_programs(commands: list[str], trusted: bool) -> None:
    """A save never starts a program by itself: its bot commands are shown and confirmed."""
    if not commands or trusted:
        return
    listing = "\n".join(f"  {visible(c)}" for c in commands)
    if not sys.stdin.isatty():
        raise fail(f"this save starts these programs:\n{listing}\nrun them only if you trust"
                   " them: add --trust-seats")
    typer.echo(f"This save starts these programs:\n{listing}")
    if not typer.confirm("Start them?", default=False):
        raise fail("not resumed: the save's programs were not confirmed")
