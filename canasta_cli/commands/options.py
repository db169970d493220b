"""Options and checks that several commands share: the ruleset, scores, decks, the bots' box.

Each check turns a bad value into a one-line ``error: ...`` and exit code 2 (``fail``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from ..core import PRESETS, DeckFileError, RulesError, Ruleset, parse_deck_text, parse_option, preset
from ..core.deal import check_scores
from ..private_files import read_input
from ..seats import box, cgroups, leftovers
from ..seats.contain import hide

RulesOpt = Annotated[str, typer.Option("--rules", "-r",
                                       help=f"Preset: {', '.join(PRESETS)}.")]
SandboxOpt = Annotated[bool, typer.Option(
    "--sandbox", help="Insist on bubblewrap's box for bots (the default box wherever bubblewrap"
    " is installed): fail if it cannot be used.")]
UnboxedOpt = Annotated[bool, typer.Option(
    "--unboxed", help="UNSAFE: run bots without their box (they can read your files, use the"
    " network and keep notes between games). For trusted bots where no box can be built.")]
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


def fail(message: str) -> typer.Exit:
    """``error: message`` on stderr; raise what this returns to exit with code 2."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def _own_data_dirs() -> list[Path]:
    home = Path.home()
    return [Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share") / "canasta",
            Path(os.environ.get("XDG_STATE_HOME") or home / ".local" / "state") / "canasta"]


def setup_box(specs: list[str], sandbox: bool, unboxed: bool, ponder: bool, memory: int,
              procs: int, disk: int, writable: list[Path] | None) -> box.BoxPolicy:
    """The box for this command's bots, set for every seat it starts; a command with bot
    processes (or --sandbox) stops here, in one line, where no such box can be built."""
    if sandbox and unboxed:
        raise fail("--sandbox and --unboxed contradict each other")
    for d in writable or []:
        if not d.is_dir():
            raise fail(f"--bot-writable {d}: not a directory")
    policy = box.BoxPolicy(mode="unboxed" if unboxed else "bubblewrap" if sandbox else "auto",
                           memory_mb=memory, procs=procs, disk_mb=disk, ponder=ponder,
                           writable=tuple(str(d.resolve()) for d in writable or []))
    box.configure(policy)
    cgroups.sweep_stale()
    leftovers.sweep_stale()
    hide(*_own_data_dirs())  # saved games, their sealed seeds: never a bot's to read
    if sandbox or any(not s.split("=", 1)[-1].strip().startswith(("builtin:", "human"))
                      for s in specs):
        try:
            note = box.check(policy)
        except box.BoxUnavailable as exc:
            raise fail(str(exc)) from None
        if note:
            typer.echo(f"note: {note}", err=True)
    return policy


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


def next_step() -> bool:
    """Enter for the next step; q (or the end of input) to stop."""
    try:
        answer = input("[Enter: next step, q: quit] ")
    except (EOFError, KeyboardInterrupt):
        return False
    return answer.strip().lower() not in ("q", "quit")
