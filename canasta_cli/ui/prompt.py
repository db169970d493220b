"""Reading a person's move: completion from the legal moves, validation with reasons, history.

``check_input`` is the one judge of what a person typed; the prompt-toolkit completer and
validator, and the plain line reader used when stdin is not a terminal, all go through it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import IO

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import Output

from ..core import Move, NotationError, format_move, parse_move
from ..core.engine import SHORT_LINE
from ..core.errors import CanastaError
from .interrupt import Interrupted
from .screen import fit, split_rows

COMMANDS = ("help", "moves", "log", "score", "hint", "undo", "quit")


@dataclass(frozen=True)
class Choice:
    """What a line of input means: a command, or a legal move in canonical notation."""

    command: str | None = None
    move: str | None = None
    then: tuple[str, ...] = ()  # the rest of a line of several moves, already checked


class InputError(CanastaError):
    """A line that is neither a command nor a legal move; the message says why."""


Sequence = Callable[[list[Move]], "tuple[int, str] | None"]


def check_input(text: str, legal: list[str], top_rank: int | None,
                explain: Callable[[Move], str] | None,
                sequence: Sequence | None = None) -> Choice:
    words = text.strip()
    if not words:
        raise InputError("type a move (Tab completes), or 'moves' to list them, 'help' for help")
    parts = [p.strip() for p in words.split(";") if p.strip()]
    if len(parts) > 1:
        return _check_line(parts, top_rank, sequence)
    words = parts[0] if parts else words
    low = words.lower()
    if low in COMMANDS or low == "?":
        return Choice(command="help" if low == "?" else low)
    try:
        move = parse_move(words, top_rank=top_rank)
    except NotationError as exc:
        raise InputError(str(exc)) from None
    text_move = format_move(move)
    if text_move in legal:
        return Choice(move=text_move)
    if explain is not None:
        raise InputError(f"'{text_move}' is not allowed: {explain(move)}")
    raise InputError(f"'{text_move}' is not a legal move now; type 'moves' to list them")


def _check_line(parts: list[str], top_rank: int | None, sequence: Sequence | None) -> Choice:
    """Several moves in one line, ``meld 6 6 6; meld A A A; discard 9``: played whole, or
    refused whole with the reason (nothing is laid down)."""
    if sequence is None:
        raise InputError("several moves in one line cannot be checked here: type one at a time")
    moves = []
    for part in parts:
        if part.lower() in COMMANDS:
            raise InputError(f"'{part}' is a command: a line of moves holds moves only")
        try:
            moves.append(parse_move(part, top_rank=top_rank))
        except NotationError as exc:
            raise InputError(f"nothing was played: '{part}': {exc}") from None
    problem = sequence(moves)
    if problem is not None:
        i, reason = problem
        if reason.startswith(SHORT_LINE):
            raise InputError(f"nothing was played: {reason}")
        raise InputError(f"nothing was played: '{format_move(moves[i])}' (move {i + 1} of"
                         f" {len(moves)}) is not allowed: {reason}")
    texts = [format_move(m) for m in moves]
    return Choice(move=texts[0], then=tuple(texts[1:]))


class MoveCompleter(Completer):
    """Completes whole moves (and commands) from what has been typed so far."""

    def __init__(self, options: Callable[[], Iterable[str]]) -> None:
        self.options = options

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterable[Completion]:
        typed = document.text_before_cursor.lstrip().lower()
        for option in self.options():
            if option.lower().startswith(typed):
                yield Completion(option, start_position=-len(document.text_before_cursor))


def choices_text(choices: list[str], width: int, height: int) -> str:
    """``choices`` in columns (down, then across) fitted to ``width``, in at most
    ``height - 3`` rows (one a row when ``width`` is 0); those that do not fit are counted on
    the last row."""
    if width <= 0:
        return "\n".join(f"  {c}" for c in choices)
    cell = max(len(c) for c in choices) + 3
    across = max(1, (width - 2) // cell)
    room = max(1, height - 3) if height > 0 else len(choices)
    down = -(-len(choices) // across)
    shown = choices
    if down > room:  # keep a row for the count
        down = max(1, room - 1)
        shown = choices[:down * across]
    rows = ["  " + "".join(shown[c * down + r].ljust(cell) for c in range(across)
                           if c * down + r < len(shown)).rstrip() for r in range(down)]
    if len(shown) < len(choices):
        rows.append(f"  ... and {len(choices) - len(shown)} more (type more, then Tab)")
    return "\n".join(fit(r, width) for r in rows)


class Terminal:
    """Where a person plays: a prompt-toolkit session on a terminal, or plain lines on pipes."""

    def __init__(self, interactive: bool, out: IO[str] | None = None,
                 pt_input: Input | None = None, pt_output: Output | None = None) -> None:
        self.interactive = interactive
        self.out = out or sys.stdout
        self.session: PromptSession[str] | None = None
        # What was typed when the prompt was last woken (``interrupt``): the next prompt
        # starts with it, so news from the table never costs the person a half-typed line.
        self.draft: Document | None = None
        if interactive:
            # reserve_space_for_menu=0: no blank rows pushing the table off a small screen.
            # No completion menu, then: with the prompt on the screen's last row it would
            # have no room (nothing shown, and Up and Down would move in it unseen); Tab
            # prints the choices above the prompt instead (``_tab``).
            self.session = PromptSession(history=InMemoryHistory(), input=pt_input,
                                         reserve_space_for_menu=0,
                                         output=pt_output, key_bindings=self._keys())

    @property
    def width(self) -> int:
        """Columns to fit the text to (0 on pipes: no wrapping)."""
        if not self.interactive:
            return 0
        import shutil
        return shutil.get_terminal_size((80, 24)).columns

    @property
    def height(self) -> int:
        """Rows of the screen (0 on pipes: no page is too long)."""
        if not self.interactive:
            return 0
        import shutil
        return shutil.get_terminal_size((80, 24)).lines

    def show(self, text: str) -> None:
        print(fit(text, self.width), file=self.out, flush=True)

    def raw(self, text: str) -> None:
        """A line as it is, never wrapped (a command to copy: the terminal folds it)."""
        print(text, file=self.out, flush=True)

    def page(self, text: str) -> None:
        """``text`` a screen at a time: pages end at a form feed or when the screen is full,
        each but the last followed by "Enter for more".  On pipes, the whole text at once."""
        parts = [p.strip("\n") for p in text.split("\f")]
        if self.height <= 0:
            self.show("\n".join(parts))
            return
        pages = [chunk for part in parts
                 for chunk in split_rows(part, self.width, self.height - 1)]
        for i, chunk in enumerate(pages):
            print(chunk, file=self.out, flush=True)
            if i < len(pages) - 1:
                self.pause(f"-- Enter for more ({i + 1} of {len(pages)}) -- ")

    def clear(self) -> None:
        """Clear the screen, then the terminal's scrollback (ESC [3J), so that nothing of the
        previous player's hand can be scrolled back to in hot-seat play (many terminals move
        the screen into the scrollback when it is cleared: hence this order)."""
        if self.interactive:
            self.out.write("\x1b[H\x1b[2J\x1b[3J")
            self.out.flush()

    def interrupt(self, exception: BaseException) -> None:
        """Make the running prompt raise ``exception``, its line (text and cursor) kept for
        the next prompt; call it in the prompt's event loop (``call_soon_threadsafe``)."""
        app = self.session.app if self.session is not None else None
        if app is not None and app.is_running and not app.is_done:
            self.draft = app.current_buffer.document
            app.exit(exception=exception)

    def pause(self, text: str, quit_ok: bool = False) -> None:
        """Wait for Enter on a terminal (hot-seat hand-over, end of hand); nothing on pipes.
        With ``quit_ok``, 'quit' typed there raises Interrupted (the game is saved)."""
        def check(typed: str) -> Choice:
            if quit_ok and typed.strip().lower() == "quit":
                raise Interrupted()
            return Choice(command="continue")

        if self.interactive:  # wrapped between words: the terminal would cut a word
            self.read_line(fit(text, self.width, hang=0), check,
                           lambda: ["quit"] if quit_ok else [])

    def _keys(self) -> KeyBindings:
        keys = KeyBindings()
        keys.add("tab")(self._tab)
        return keys

    def _tab(self, event: KeyPressEvent) -> None:
        """Tab: the one choice that starts with what is typed, put in its place; with
        several, the part they share typed on and all of them listed above the prompt (in
        columns fitted to the screen; if too many, the first screenful and how many more)."""
        buffer = event.current_buffer
        if buffer.completer is None:
            return
        typed = buffer.document.text_before_cursor
        found = [c.text for c in buffer.completer.get_completions(
            buffer.document, CompleteEvent(completion_requested=True))]
        if not found:
            return
        shared = os.path.commonprefix(found) if len(found) > 1 else found[0]
        if len(shared) > len(typed.lstrip()):
            buffer.delete_before_cursor(len(typed))
            buffer.insert_text(shared)
        if len(found) > 1:
            listing = choices_text(found, self.width, self.height)
            run_in_terminal(lambda: print(listing, file=self.out, flush=True))

    def read_line(self, prompt: str, check: Callable[[str], Choice],
                  options: Callable[[], Iterable[str]]) -> Choice:
        """A checked line of input.  Ctrl-C, Ctrl-D and the end of input raise Interrupted."""
        while True:
            try:
                if self.session is not None:
                    draft, self.draft = self.draft, None
                    text = self.session.prompt(prompt, completer=MoveCompleter(options),
                                               complete_while_typing=False,
                                               default=draft if draft is not None else "")
                else:
                    self.out.write(prompt)
                    self.out.flush()
                    line = sys.stdin.readline()
                    if not line:
                        raise EOFError
                    text = line.rstrip("\n")
                    self.out.write(text + "\n")  # echo, so that a log reads like a session
            except (EOFError, KeyboardInterrupt):
                raise Interrupted() from None
            try:
                return check(text)
            except InputError as exc:
                # Said right above the next prompt, which starts empty: nothing refused is
                # glued to what is typed next (Up recalls the refused line to edit it).
                self.show(f"  refused: {exc}" + ("  (Up recalls the line)" if self.session
                                                 else ""))
