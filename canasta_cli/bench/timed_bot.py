"""A bot with a clock inside: ``python timed_bot.py BOT.py`` runs ``BOT.py`` as its own
``__main__`` (its ``choose``, name and capabilities, through the kit it imports), with the
kit's ``run`` reading and writing through a wrapper that notes, by the monotonic clock the
referee reads too, when each request's first line reached it, when it read the request, and
when it wrote the answer (just before the write).  At the end of ``run`` it writes them to
stderr in one line (``canasta-kit-times [[id, first, request, answered], ...]``,
nanoseconds), so that ``canasta bench protocol`` can split a round trip's exchange into the
wake-up, the queued events, the kit's own work and the way back.  Nothing is written while
the game is played: the timing changes the bot only by a clock read per line.  A bot that
never calls ``canasta_kit.run`` plays as it would, and writes no stamps."""

from __future__ import annotations

import inspect
import json
import re
import runpy
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

MARK = "canasta-kit-times "
_ID = re.compile(r'"id":(\d+)')


class Clocked:
    """The bot's stdin and stdout: each line's arrival, each answer's writing."""

    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self.stdin, self.stdout = stdin, stdout
        self.times: list[list[int]] = []
        self._first = 0  # the first line read since the last answer
        self._asked: tuple[int, int] | None = None  # the request's id, when it was read

    def __iter__(self) -> Iterator[str]:
        clock = time.monotonic_ns
        for line in self.stdin:
            now = clock()
            if not self._first:
                self._first = now
            if line.startswith('{"type":"act"'):
                found = _ID.search(line)
                self._asked = (int(found.group(1)), now) if found else None
            yield line

    def write(self, text: str) -> int:
        # Stamped before the text is handed on: with PYTHONUNBUFFERED (the referee sets it)
        # the write itself reaches the referee, which may hold the answer before it returns.
        if text.startswith('{"type":"move"'):
            if self._asked is not None:
                self.times.append([self._asked[0], self._first, self._asked[1],
                                   time.monotonic_ns()])
            self._first, self._asked = 0, None
        return self.stdout.write(text)

    def flush(self) -> None:
        self.stdout.flush()


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: timed_bot.py BOT.py (a bot made with canasta_kit.run)", file=sys.stderr)
        return 2
    path = Path(argv[0]).resolve()
    if not path.is_file():
        print(f"timed_bot.py: no bot file {path}", file=sys.stderr)
        return 2
    # As ``python BOT.py`` would: its directory first on the path (the kit beside it, when
    # there is one), its name as argv[0].
    sys.path.insert(0, str(path.parent))
    sys.argv = [str(path)]
    try:
        import canasta_kit
    except ImportError:
        print("timed_bot.py: no canasta_kit to import beside the bot or installed",
              file=sys.stderr)
        return 2
    real = canasta_kit.run
    io = Clocked(sys.stdin, sys.stdout)

    def clocked_run(*args: Any, **kwargs: Any) -> Any:
        bound = inspect.signature(real).bind(*args, **kwargs)
        bound.arguments["stdin"] = bound.arguments["stdout"] = io
        try:
            return real(*bound.args, **bound.kwargs)
        finally:
            sys.stderr.write(MARK + json.dumps(io.times) + "\n")
            sys.stderr.flush()

    canasta_kit.run = clocked_run
    runpy.run_path(str(path), run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
