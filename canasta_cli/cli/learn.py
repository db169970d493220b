"""``canasta learn``: short lessons from stacked decks, checked by the rules core; the
progress is kept in the XDG data folder, and any lesson can be repeated (table/coach.py
plays them)."""

from __future__ import annotations

from typing import Annotated

import typer

from .options import fail


def register(app: typer.Typer) -> None:
    app.command()(learn)


def learn(
    lesson: Annotated[str | None, typer.Argument(
        help="A lesson's number or name, or 'next' for the first not passed yet; none: the"
        " list of lessons.")] = None,
    reset: Annotated[bool, typer.Option("--reset", help="Forget which lessons were passed.")]
    = False,
    ascii_only: Annotated[bool, typer.Option("--ascii", help="Letters instead of suit symbols.")]
    = False,
) -> None:
    """The whole game in short lessons, for someone who never played: drawing, melds and
    the minimum, wild cards, red threes, the pile, black threes, canastas, going out (and
    concealed), scoring, the target. Each sets up a situation and checks your move."""
    from ..table.coach import LessonBroken, LessonRun, load_progress, record, run, save_progress
    from ..table.lessons import LESSONS, find
    from ..ui.commandline import command_line
    from ..ui.screen import say
    progress = load_progress()
    if reset:
        save_progress({"passed": [], "failed": []})
        # A line with a command to copy: whole, never wrapped (ui/commandline.py).
        typer.echo(f"The lessons' progress is forgotten: start again with"
                   f" {command_line('learn', '1')}")
        return
    if lesson is None:
        say("Lessons (canasta learn N plays one; any can be repeated):")
        for i, les in enumerate(LESSONS, 1):
            mark = ("passed" if les.key in progress["passed"] else
                    "not passed yet" if les.key in progress["failed"] else "")
            say(f"  {i:>2}. {les.title:<40} {mark}".rstrip(), hang=6)
        todo = next((i for i, les in enumerate(LESSONS, 1)
                     if les.key not in progress["passed"]), None)
        if todo:
            typer.echo(f"Next: {command_line('learn', str(todo))}")
        else:
            say("Every lesson is passed. Well played!")
            typer.echo(f"Start a game with: {command_line('play')}")
        return
    chosen = (next((les for les in LESSONS if les.key not in progress["passed"]), LESSONS[0])
              if lesson == "next" else find(lesson))
    if chosen is None:
        raise fail(f"no lesson {lesson[:40]!r}: give 1 to {len(LESSONS)}, a name"
                   f" ({', '.join(les.key for les in LESSONS)}) or 'next'")
    plan = LessonRun(chosen, ascii_only)
    number = plan.number
    try:
        passed = run(plan)
    except LessonBroken as exc:  # cannot happen: the core checked the lesson's lines
        raise fail(str(exc)) from None
    if passed is None:
        return
    record(progress, chosen, passed)
    try:
        save_progress(progress)
    except OSError as exc:
        typer.echo(f"note: the progress was not saved: {exc}", err=True)
    if passed and number < len(LESSONS):
        typer.echo(f"Next: {command_line('learn', str(number + 1))}")
    elif passed:
        say("That was the last lesson: you know the whole game.")
        typer.echo(f"Start a game with: {command_line('play')}")
