"""The lessons' runner: a lesson played at the prompt (its table, its questions, answers
checked by the rules core with refusals explained), and the progress kept between them."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from ..core import GameState, apply, format_move, legal_moves, observation, parse_move
from ..core.cards import KIND_OF
from ..core.engine import check_sequence
from ..core.errors import CanastaError
from ..core.explain import explain
from ..core.moves import Ask
from ..ui.commandline import command_line
from ..ui.interrupt import Interrupted
from ..ui.prompt import Choice, InputError, Terminal, check_input
from ..ui.render import Screen, Side, Style, render_hand_end, render_table, seat_labels
from ..util.private_files import read_input, write_private
from .lessons import LESSONS, Lesson, play_texts

MAX_TRIES = 2  # wrong answers to a question before the lesson counts as not passed
# What a right answer is greeted with: no seat's name (You, Left, Partner, Right...), so that
# it cannot read as a player speaking.
PRAISE = "Well done: "
NAMES = ["human", "builtin:left", "builtin:partner", "builtin:right"]


class LessonBroken(CanastaError):
    """A lesson's own line of play was refused by the rules core (a lesson's mistake)."""


@dataclass(frozen=True)
class LessonRun:
    """One lesson to play: which, and how the table is drawn."""

    lesson: Lesson
    ascii_only: bool = False

    @property
    def number(self) -> int:
        return LESSONS.index(self.lesson) + 1


def progress_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "canasta" / "lessons.json"


def load_progress() -> dict[str, list[str]]:
    try:  # a regular file: never a FIFO waited on
        data = json.loads(read_input(progress_path(), 100_000, "the lessons' progress"))
    except (OSError, ValueError):
        return {"passed": [], "failed": []}
    if not isinstance(data, dict):
        return {"passed": [], "failed": []}
    return {k: [str(x) for x in data.get(k, []) if isinstance(x, str)][:100]
            for k in ("passed", "failed")}


def save_progress(progress: dict[str, list[str]]) -> None:
    write_private(progress_path(), json.dumps(progress, indent=2) + "\n")  # never through a link


def record(progress: dict[str, list[str]], lesson: Lesson, passed: bool) -> None:
    """Note the lesson as passed or not (the latest try counts)."""
    for key in ("passed", "failed"):
        progress[key] = [k for k in progress[key] if k != lesson.key]
    progress["passed" if passed else "failed"].append(lesson.key)


def run(plan: LessonRun) -> bool | None:
    """Play the plan's lesson at this terminal: True if every question was answered right (a
    second try allowed), False if not, None if the learner quit."""
    return play(plan.lesson, plan.number, _terminal(), _style(plan.ascii_only))


def _terminal() -> Terminal:
    return Terminal(sys.stdin.isatty() and sys.stdout.isatty())


def _style(ascii_only: bool) -> Style:
    encoding = (getattr(sys.stdout, "encoding", "") or "").lower()
    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    return Style(color=color, ascii=ascii_only or "utf" not in encoding)


def play(lesson: Lesson, number: int, term: Terminal, style: Style) -> bool | None:
    """Play ``lesson``: True if every question was answered right (a second try allowed),
    False if not, None if the learner quit."""
    state = lesson.start()
    term.show(style.bold(f"== Lesson {number}: {lesson.title} =="))
    for step in lesson.steps:
        wrong = 0
        while True:
            _show(state, term, style, number_question=step.number is not None)
            term.show(step.intro)
            answer = _ask(state, step.number is not None, term)
            if answer is None:
                term.show("Stopped: the lesson can be taken again at any time.")
                return None
            if step.number is not None:
                ok, why = step.number(state, int(answer[0]))
            else:
                moves = _moves(state, answer)
                if isinstance(moves[0], Ask) and not step.after:
                    # Asked where the lesson does not teach asking: the partner says yes.
                    state = play_texts(state, [*answer, "yes"])
                    term.show("Your partner answers yes: you must go out this turn.")
                    continue
                assert step.judge is not None
                ok, why = step.judge(state, moves)
            if ok:
                term.show(style.good(PRAISE) + why)
                if step.number is None:
                    try:
                        state = play_texts(state, [*answer, *step.after])
                    except CanastaError as exc:  # cannot happen: the core checked the line
                        raise LessonBroken(f"lesson {number}: {exc}") from None
                break
            wrong += 1
            term.show(style.warn("Not quite: ") + why)
            if wrong >= MAX_TRIES:
                term.raw(f"Lesson {number} is not passed yet: try it again with"
                         f" {command_line('learn', str(number))}")
                return False
            term.show("Try again.")
    term.show(style.bold(f"Lesson {number} passed."))
    return True


def _show(state: GameState, term: Terminal, style: Style, number_question: bool) -> None:
    if number_question:
        event = _last_hand_end(state)
        if event is not None:  # the totals are the question: they are not shown
            text = render_hand_end(event, Side(0, True, seat_labels(0, NAMES, True)), style)
            term.show("\n".join(line for line in text.split("\n")
                                if not line.startswith(("Hand total", "Game total"))))
        return
    obs = observation(state, 0, history=False)
    height = term.height
    term.show(render_table(obs, [], NAMES, Screen(style, term.width,
                                                  max(height - 8, 8) if height else 0)))


def _last_hand_end(state: GameState) -> dict[str, Any] | None:
    node = state.log
    while node is not None:
        view: dict[str, Any] = node[1].view(0)
        if view.get("type") == "hand_ended":
            return view
        node = node[0]
    return None


def _ask(state: GameState, number: bool, term: Terminal) -> list[str] | None:
    """A legal line of moves (checked by the rules core, refusals explained), or a number;
    None if the learner quits."""
    legal = [format_move(m) for m in legal_moves(state)]
    top = KIND_OF[state.pile[-1]] if state.pile else None

    def check(text: str) -> Choice:
        words = text.strip().lower()
        if words in ("quit", "q"):
            return Choice(command="quit")
        if number:
            if not words.lstrip("-").isdigit() or len(words) > 7:
                raise InputError("type the points as a number, e.g. 450")
            return Choice(move=str(int(words)))
        return check_input(text, legal, top, partial(explain, state),
                           partial(check_sequence, state))

    while True:
        try:
            choice = term.read_line("Points> " if number else "Your move> ", check,
                                    lambda: [*legal, "moves", "quit"])
        except Interrupted:
            return None
        if choice.command == "quit":
            return None
        if choice.move is not None:
            return [choice.move, *choice.then]
        if choice.command == "moves":
            term.show("Legal moves: " + ", ".join(legal))
        else:
            term.show("Type a move (moves lists them), or quit.")


def _moves(state: GameState, texts: list[str]) -> list[Any]:
    """The moves of a checked line, read in turn (each after the one before)."""
    out = []
    for text in texts:
        top = KIND_OF[state.pile[-1]] if state.pile else None
        move = parse_move(text, top_rank=top)
        out.append(move)
        state = apply(state, move)
    return out
