"""News from the table wakes the prompt of ``canasta join`` (so that it is shown at once):
the line the person was typing is still there when the prompt comes back, cursor and all,
and what is typed next goes on from it."""

from __future__ import annotations

import io
import threading
import time

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from canasta_cli.net.client import Wake
from canasta_cli.ui.prompt import Choice, Terminal


def _as_typed(text: str) -> Choice:
    return Choice(command=text)


def _wake_once_typed(terminal: Terminal, typed: str, cursor: int | None = None
                     ) -> threading.Thread:
    """Wake the running prompt, from another thread as the client's alarm does, once its
    line reads ``typed`` with the cursor at ``cursor`` (default: the end)."""
    assert terminal.session is not None
    app = terminal.session.app

    def watch() -> None:
        deadline = time.monotonic() + 60  # a hang guard only
        while time.monotonic() < deadline:
            loop = app.loop
            line = app.current_buffer
            if (app.is_running and loop is not None and line.text == typed
                    and line.cursor_position == (len(typed) if cursor is None else cursor)):
                loop.call_soon_threadsafe(terminal.interrupt, Wake())
                return
            time.sleep(0.005)
        if app.loop is not None:  # never typed: end the prompt, so the test fails, not hangs
            app.loop.call_soon_threadsafe(lambda: app.exit(exception=TimeoutError()))

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_a_woken_prompt_keeps_the_half_typed_line() -> None:
    with create_pipe_input() as keys:
        terminal = Terminal(True, out=io.StringIO(), pt_input=keys, pt_output=DummyOutput())
        waker = _wake_once_typed(terminal, "meld A A")
        keys.send_text("meld A A")
        with pytest.raises(Wake):
            terminal.read_line("> ", _as_typed, lambda: [])
        waker.join()
        keys.send_text(" A\r")
        assert terminal.read_line("> ", _as_typed, lambda: []) == Choice(command="meld A A A")
        # Kept once: the prompt after that starts empty.
        keys.send_text("draw\r")
        assert terminal.read_line("> ", _as_typed, lambda: []) == Choice(command="draw")


def test_the_cursor_is_kept_where_it_was() -> None:
    with create_pipe_input() as keys:
        terminal = Terminal(True, out=io.StringIO(), pt_input=keys, pt_output=DummyOutput())
        waker = _wake_once_typed(terminal, "meld K", cursor=4)
        keys.send_text("meld K\x1b[D\x1b[D")  # two steps left: the cursor before " K"
        with pytest.raises(Wake):
            terminal.read_line("> ", _as_typed, lambda: [])
        waker.join()
        keys.send_text("X\r")
        assert terminal.read_line("> ", _as_typed, lambda: []) == Choice(command="meldX K")
