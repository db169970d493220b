"""Options and checks that several commands share: the ruleset, scores, decks, the bots' box.

Each check turns a bad value into a one-line ``error: ...`` and exit code 2 (``fail``)."""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated, Any, TypeVar, cast

import typer

from ..core import PRESETS, DeckFileError, RulesError, Ruleset, parse_deck_text, parse_option, preset
from ..core.deal import check_scores
from ..seats import box, cgroups, leftovers
from ..seats.contain import hide
from ..util.private_files import read_input

RulesOpt = Annotated[str, typer.Option("--rules", "-r",
                                       help=f"Preset: {', '.join(PRESETS)}.")]
SandboxOpt = Annotated[bool, typer.Option(
    "--sandbox", help="Insist on bubblewrap's box for bots (the default: the system's bwrap"
    " where one is on PATH, else the one installed with canasta; 'canasta bot check' says"
    " which): fail if it cannot be used.")]
UnboxedOpt = Annotated[bool, typer.Option(
    "--unboxed", help="UNSAFE: run bots without their box (they can read your files, use the"
    " network and keep notes between games). For trusted bots where bubblewrap cannot run;"
    " without it, bots are refused there.")]
PonderOpt = Annotated[bool, typer.Option(
    "--ponder", help="Let bots run while another is on turn (by default a bot is frozen"
    " between its turns, so that no bot takes CPU from the one thinking).")]
BotMemoryOpt = Annotated[int, typer.Option(
    "--bot-memory", help="Memory cap per bot, in MB.", min=16, max=1 << 20)]
BotProcsOpt = Annotated[int, typer.Option(
    "--bot-procs", help="Processes (and threads) per bot at most.", min=1, max=1 << 16)]
BotDiskOpt = Annotated[int, typer.Option(
    "--bot-disk", help="Size of each bot's private /tmp (its HOME), in MB.", min=1,
    max=1 << 20)]
BotWritableOpt = Annotated[list[Path] | None, typer.Option(
    "--bot-writable", help="UNSAFE: a directory every bot may write to (bots can keep notes"
    " between games and pass them to each other there; repeatable).")]
SetOpt = Annotated[list[str] | None, typer.Option(
    "--set", help="Change one rule option, e.g. --set wild_le_natural=false (repeatable).")]
ScoresOpt = Annotated[str | None, typer.Option(
    help="Start from these cumulative scores, one per side (per player without partners),"
    " e.g. --scores 4995,1200: a game begun on paper, or a situation near the target.")]
HandOpt = Annotated[int, typer.Option(
    "--hand", help="Number of the first hand dealt (with --scores: the hand the game is at).",
    min=1, max=10000)]
DeckOpt = Annotated[Path | None, typer.Option(help="Stacked deck file (docs/ENGINE.md).")]
DealerOpt = Annotated[int | None, typer.Option(help="First dealer's seat.")]


# The clock's options, as match, tournament and ladder run give them (serve words its own).
DECISION_MS, BANK_MS, STARTUP_MS, SPIN_US = 1000, 10000, 10000, 300
DecisionMsOpt = Annotated[int, typer.Option(help="Time per decision.", min=1)]
BankMsOpt = Annotated[int, typer.Option(help="Time bank per seat and game.", min=0)]
StartupMsOpt = Annotated[int, typer.Option(help="Time for the handshake.", min=1)]
SpinUsOpt = Annotated[int, typer.Option(
    help="Microseconds to poll for a bot's answer before sleeping (0: sleep at once).", min=0)]


@dataclass(frozen=True)
class BoxOptions:
    """The bots' box as a command's options give it (``box_options`` adds those options)."""

    sandbox: bool = False
    unboxed: bool = False
    ponder: bool = False
    bot_memory: int = 1024
    bot_procs: int = 64
    bot_disk: int = 64
    bot_writable: list[Path] | None = None

    def setup(self, specs: list[str], ponder: bool | None = None) -> box.BoxPolicy:
        """The box for this command's bots (``ponder`` overrides --ponder), to put in its
        plan; a command with bot processes (or --sandbox) stops here, in one line, where no
        such box can be built."""
        if self.sandbox and self.unboxed:
            raise fail("--sandbox and --unboxed contradict each other")
        for d in self.bot_writable or []:
            if not d.is_dir():
                raise fail(f"--bot-writable {d}: not a directory")
        mode: box.Mode = "unboxed" if self.unboxed else "bubblewrap" if self.sandbox else "auto"
        policy = box.BoxPolicy(mode=mode, memory_mb=self.bot_memory, procs=self.bot_procs,
                               disk_mb=self.bot_disk,
                               ponder=self.ponder if ponder is None else ponder,
                               writable=tuple(str(d.resolve()) for d in self.bot_writable or []))
        cgroups.sweep_stale()
        leftovers.sweep_stale()
        hide(*_own_data_dirs())  # saved games, their sealed seeds: never a bot's to read
        if self.sandbox or any(not s.split("=", 1)[-1].strip().startswith(("builtin:", "human"))
                               for s in specs):
            try:
                note = box.check(policy)
            except box.BoxUnavailable as exc:
                raise fail(str(exc)) from None
            if note:
                typer.echo(f"note: {note}", err=True)
        return policy

    def args(self) -> list[str]:
        """These options as command-line arguments (those left at their default omitted)."""
        out = ["--sandbox"] * self.sandbox + ["--unboxed"] * self.unboxed \
            + ["--ponder"] * self.ponder
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, int) and not isinstance(value, bool) and value != f.default:
                out += ["--" + f.name.replace("_", "-"), str(value)]
        for d in self.bot_writable or []:
            out += ["--bot-writable", str(d)]
        return out


DEFAULT_BOX = BoxOptions()
# Each option of the box, once: its parameter name (a BoxOptions field) and its Typer option.
BOX_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("sandbox", SandboxOpt), ("unboxed", UnboxedOpt), ("ponder", PonderOpt),
    ("bot_memory", BotMemoryOpt), ("bot_procs", BotProcsOpt), ("bot_disk", BotDiskOpt),
    ("bot_writable", BotWritableOpt))

_Command = TypeVar("_Command", bound=Callable[..., Any])


def box_options(ponder: bool = True, writable: bool = True) -> Callable[[_Command], _Command]:
    """Give a command the box's options (``BOX_OPTIONS``, defaults from ``BoxOptions``) where
    its parameter ``box: BoxOptions`` stands; the command receives them as that one object.
    ``ponder``/``writable`` False: a command without --ponder or --bot-writable."""
    names = [n for n, _ in BOX_OPTIONS
             if (ponder or n != "ponder") and (writable or n != "bot_writable")]
    options = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=a,
                                 default=getattr(DEFAULT_BOX, n))
               for n, a in BOX_OPTIONS if n in names]

    def add(command: _Command) -> _Command:
        sig = inspect.signature(command, eval_str=True)
        params: list[inspect.Parameter] = []
        for p in sig.parameters.values():
            params += options if p.name == "box" else [p]

        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> Any:
            given = {n: kwargs.pop(n) for n in names if n in kwargs}
            return command(*args, box=BoxOptions(**given), **kwargs)

        run.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in params}
        run.__annotations__["return"] = sig.return_annotation
        del run.__wrapped__  # Typer reads the new signature, not the command's
        return cast(_Command, run)

    return add


def fail(message: str, then: str | None = None) -> typer.Exit:
    """``error: message`` on stderr (wrapped to a terminal's width), then ``then``, if given:
    a line with a command to copy (``Replay it with: canasta replay ...``), never wrapped
    (ui/commandline.py).  Raise what this returns to exit with code 2."""
    from ..ui.screen import say
    say(f"error: {message}", err=True, hang=7)
    if then is not None:
        typer.echo(then, err=True)
    return typer.Exit(2)


def _own_data_dirs() -> list[Path]:
    home = Path.home()
    return [Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share") / "canasta",
            Path(os.environ.get("XDG_STATE_HOME") or home / ".local" / "state") / "canasta"]


def load_rules(name: str, options: list[str] | None) -> Ruleset:
    try:
        rules = preset(name)
        changes = dict(parse_option(o) for o in options or [])
        return rules.with_options(**changes) if changes else rules
    except RulesError as exc:
        raise fail(str(exc)) from None


def load_scores(text: str | None, rules: Ruleset) -> list[int] | None:
    """--scores as a checked list, or a one-line error that says what is expected."""
    if text is None:
        return None
    parts = [p.strip() for p in text.replace(" ", ",").split(",") if p.strip()]
    values = []
    for p in parts:
        digits = p[1:] if p[:1] in "+-" else p
        if digits.isdecimal() and digits.isascii() and len(digits) > 8:
            raise fail(f"--scores: {p[:20]!r} is far too large for a Canasta score")
        if not digits.isdecimal() or not digits.isascii():
            raise fail(f"--scores: {p[:20]!r} is not a whole number; give one score per"
                       f" {'side' if rules.partnerships else 'player'}, e.g. --scores "
                       + ",".join(["4995", "1200", "0"][:rules.sides] + ["0"] * (rules.sides - 3)))
        values.append(int(p))
    try:
        return list(check_scores(rules, values))
    except ValueError as exc:
        raise fail(f"--scores: {exc}") from None


def check_dealer(dealer: int | None, rules: Ruleset) -> None:
    if dealer is not None and not 0 <= dealer < rules.players:
        raise fail(f"--dealer must be a seat from 0 to {rules.players - 1} ({rules.name} has"
                   f" {rules.players} players), got {dealer}")


DECK_CAP = 1 << 20  # bytes: a deck file lists a few hundred cards per hand


def load_decks(path: Path | None, rules: Ruleset, dealer: int | None,
               seed: int) -> list[list[int]]:
    """A stacked-deck file for --deck, or a clear error naming the file."""
    check_dealer(dealer, rules)
    if path is None:
        return []
    try:
        text = read_input(path, DECK_CAP, "a deck file").decode("utf-8")
        return parse_deck_text(text, rules, dealer, seed)
    except OSError as exc:
        raise fail(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise fail(f"{path}: not a text file (byte {exc.start} is not UTF-8); a deck file"
                   " lists cards such as 'Kh 10d Jo', see docs/ENGINE.md") from None
    except DeckFileError as exc:
        raise fail(f"{path}: {exc}") from None
