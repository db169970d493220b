"""``canasta serve``: a table on a TCP port, its games saved and recorded as ``canasta play``
saves them (sealed records, resumable), its remote seats joined with tokens."""

from __future__ import annotations

import json
import socket
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import Ruleset
from ..core.errors import CanastaError
from ..core.observation import public_observation
from ..core.state import GameState
from ..hosting.records import RecordWriter
from ..hosting.referee import FailurePolicy, GameResult, GameStart, Referee, TimeControl
from ..seats import make_seat
from ..seats.base import Seat
from ..seats.box import BoxPolicy
from ..seats.human import HumanSeat, SharedTable
from ..seats.policy import builtin_seat
from ..table.session import new_save_path, secret_path, secrets_dir
from ..ui.commandline import command_line
from ..util.private_files import write_private
from ..util.seat_names import is_person
from .gallery import Gallery
from .hub import Hub, Listening
from .remote_seat import RemoteSeat, SeatTerms
from .tokens import Guard, TokenBook
from .wire import DEFAULT_PORT, notice

TlsFiles = tuple[str, str]  # the certificate and its key (PEM), as absolute paths


def is_remote(spec: str) -> bool:
    return spec == "remote" or spec.startswith("remote:")


def check_remote(spec: str) -> None:
    name = spec.partition(":")[2]
    if spec.startswith("remote:") and not (0 < len(name) <= 24 and name.isprintable()):
        raise ValueError(f"seat {spec[:40]!r}: remote:NAME takes a name of 1 to 24 characters")


def tokens_path(record: Path) -> Path:
    """The tokens of a saved table game (owner-only, beside its sealed seed), and whether
    they were issued under TLS (``"tls": {"cert": PEM, "key": PEM}``): tokens given out
    encrypted never travel in clear after (``canasta serve --resume`` refuses the table
    without TLS)."""
    return secrets_dir() / f"{record.stem}-net.json"


def _table_file(record: Path) -> object:
    try:
        return json.loads(tokens_path(record).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None


def load_tokens(record: Path, players: int) -> TokenBook | None:
    return TokenBook.from_json(_table_file(record), players)


def load_tls(record: Path) -> TlsFiles | None:
    """The certificate and key a saved table was served with, if it was served with TLS
    (None for a table without, or a save from before tables kept it)."""
    data = _table_file(record)
    tls = data.get("tls") if isinstance(data, dict) else None
    if not isinstance(tls, dict):
        return None
    cert, key = tls.get("cert"), tls.get("key")
    return (cert if isinstance(cert, str) and cert else "CERT.pem",
            key if isinstance(key, str) and key else "KEY.pem")


def serve_command(record: Path | str, tls: TlsFiles | None = None, host: str = "127.0.0.1",
                  port: int = DEFAULT_PORT) -> str:
    """``canasta serve --resume RECORD`` with what the table needs to be the same table: its
    certificate and key (a TLS table stays TLS), its address and port (where the people's
    clients join again by themselves), as it can be typed here."""
    args = ["serve", "--resume", str(record)]
    if tls is not None:
        args += ["--tls-cert", tls[0], "--tls-key", tls[1]]
    if host != "127.0.0.1":
        args += ["--host", host]
    if port != DEFAULT_PORT:
        args += ["--port", str(port)]
    return command_line(*args)


class PublicTee(RecordWriter):
    """The record, and each line of it that is public goes to the spectators as written."""

    def __init__(self, path: Path, gallery: Gallery) -> None:
        super().__init__(path)
        self.gallery = gallery

    def write(self, line: dict[str, Any]) -> None:
        super().write(line)
        self.gallery.publish(line)


class TableReferee(Referee):
    """The referee, and the spectators get each public record line as it is written, and
    the table as everyone sees it (``public_observation``) before each decision."""

    def __init__(self, seats: list[Seat], rules: Ruleset, time_control: TimeControl,
                 on_failure: FailurePolicy, gallery: Gallery) -> None:
        super().__init__(seats, rules, time_control, on_failure)
        self.gallery = gallery

    def _open_record(self, game: int, path: Path | None = None) -> RecordWriter | None:
        if path is None:
            return super()._open_record(game, path)
        return PublicTee(path, self.gallery)

    def _publish(self, game: int, state: GameState, sent: Any,
                 record: RecordWriter | None) -> Any:
        sent = super()._publish(game, state, sent, record)
        self.gallery.table(lambda: public_observation(state))
        return sent


@dataclass
class TableOptions:
    host: str = "127.0.0.1"
    port: int = 0
    tls: ssl.SSLContext | None = None
    tls_files: TlsFiles | None = None  # the certificate and key of ``tls``: said to resume
    away_s: float = 120.0
    away_level: str = "normal"
    hint: bool = False
    undo: bool = False  # people may take back melds of their turn (net/held.py)
    handshake_s: float = 10.0
    join_timeout_s: float = 0.0  # 0: wait for the remote seats as long as it takes
    guard: Guard = field(default_factory=Guard)


class JoinTimeout(CanastaError, RuntimeError):
    """Not every remote seat joined in time."""


class Table:
    """The hub, the remote seats, the spectators and the tokens of one served table."""

    def __init__(self, specs: list[str], seed: int, opts: TableOptions,
                 tokens: TokenBook | None = None, out: Callable[[str], None] = print,
                 resumed: bool = False) -> None:
        for spec in specs:
            if is_remote(spec):
                check_remote(spec)
        self.specs = specs
        self.opts = opts
        self.out = out
        # A line with a command to copy: printed as it is, never wrapped (ui/commandline.py);
        # a host's terminal that wraps ``out`` sets its own.
        self.raw = out
        self.tokens = tokens or TokenBook.fresh([is_remote(s) for s in specs])
        self.hub = Hub(self.tokens, Listening(opts.host, opts.port, opts.tls, opts.handshake_s,
                                              opts.guard), log=out)
        self.gallery = Gallery(self.hub)
        self.hub.targets[("watch", -1)] = self.gallery
        self.remote: list[RemoteSeat] = []
        for i, spec in enumerate(specs):
            if not is_remote(spec):
                continue
            stand_in = builtin_seat(f"builtin:{opts.away_level}", seed * 7919 + i)
            seat = RemoteSeat(spec, i, self.hub, stand_in,
                              SeatTerms(opts.away_s, opts.hint, opts.undo), self.announce)
            seat.resumed = resumed
            self.remote.append(seat)
            self.hub.targets[("seat", i)] = seat

    def start(self) -> None:
        self.hub.start()

    def announce(self, text: str) -> None:
        """Said to everyone: the host's console, every person and every spectator."""
        self.out(f"[table] {text}")
        data = notice(text)
        self.gallery.tell(data)

        def people() -> None:
            for conn in list(self.hub.conns):
                if conn.client == "person" and not conn.closed:
                    conn.write(data)
        self.hub.call(people)

    def join_lines(self) -> list[str]:
        """``seat 0 (remote:ana): canasta join HOST:PORT --token T``, one per remote seat,
        and the spectators' line: each a command to copy, printed whole (``raw``)."""
        host = self.opts.host
        if host in ("", "0.0.0.0", "::"):
            host = socket.gethostname()
        shown = f"[{host}]" if ":" in host else host
        where = f"{shown}:{self.hub.port}"
        tls = ["--tls"] if self.opts.tls is not None else []
        lines = []
        for seat in self.remote:
            tok = self.tokens.seats[seat.index]
            lines.append(f"seat {seat.index} ({seat.name}): "
                         + command_line("join", where, "--token", str(tok), *tls))
        lines.append("spectators: " + command_line("join", where, "--token",
                                                   self.tokens.spectator, *tls, "--watch"))
        return lines

    def resume_command(self, record: Path) -> str:
        """The command that goes on with this table's saved game ``record``."""
        return serve_command(record, self.opts.tls_files, self.opts.host, self.hub.port)

    def saved_state(self) -> dict[str, object]:
        """What is kept beside a game's seed for ``--resume``: the tokens, and whether they
        were issued under TLS (with which certificate and key)."""
        data: dict[str, object] = dict(self.tokens.to_json())
        if self.opts.tls is not None:
            files = self.opts.tls_files
            data["tls"] = {"cert": files[0], "key": files[1]} if files is not None else {}
        return data

    def wait_joined(self, tick: Callable[[], None] | None = None) -> None:
        """Until every remote seat has a client (a bot must still be connected)."""
        limit = self.opts.join_timeout_s
        start = time.monotonic()
        seen: set[int] = set()
        while True:
            missing = [s for s in self.remote if not s.connected]
            for s in self.remote:
                if s.connected and s.index not in seen:
                    seen.add(s.index)
                    self.out(f"[table] seat {s.index} ({s.name}): a {s.kind} joined")
            if not missing:
                return
            if limit and time.monotonic() - start > limit:
                raise JoinTimeout("not joined in time: " + ", ".join(
                    f"seat {s.index} ({s.name})" for s in missing))
            if tick is not None:
                tick()
            time.sleep(0.05)

    def close(self) -> None:
        self.hub.close()


def build_seats(table: Table, specs: list[str], seed: int, log_dir: Path,
                terminal: SharedTable | None, box: BoxPolicy) -> list[Seat]:
    """The seats in order: remote ones from the table, the others as ``canasta play`` makes
    them (a person at the host's own terminal, built-in players, bot programs)."""
    remote = {s.index: s for s in table.remote}
    seats: list[Seat] = []
    for i, spec in enumerate(specs):
        if i in remote:
            seats.append(remote[i])
        elif is_person(spec):
            if terminal is None:
                raise ValueError("a human seat needs the host's terminal")
            seats.append(HumanSeat(terminal, name=spec))
        else:
            seats.append(make_seat(spec, i, seed, log_dir, box=box))
    return seats


@dataclass
class GamePlan:
    """One game to play: a new one, or a saved one going on (``prefix`` its moves so far)."""

    seed: int
    record: Path
    decks: list[list[int]] | None = None
    dealer: int | None = None
    prefix: list[dict[str, Any]] | None = None
    secret: Path | None = None
    scores: list[int] | None = None
    hand_no: int = 1


@dataclass(frozen=True)
class GameSeries:
    """The games a table plays: ``plans(g)`` is game g's plan (None after the last), all under
    ``rules``, the clock and what follows a bot's failure."""

    rules: Ruleset
    plans: Callable[[int], GamePlan | None]
    time_control: TimeControl = TimeControl()
    on_failure: FailurePolicy = "default"


def play_games(table: Table, seats: list[Seat], games: GameSeries,
               done: Callable[[GameResult, GamePlan], None]) -> list[GameResult]:
    """Game after game (``plans(g)`` until it gives None or a person saves); the tokens are
    kept beside each unfinished game's seed, so that ``--resume`` takes the same ones."""
    plans = games.plans
    referee = TableReferee(seats, games.rules, games.time_control, games.on_failure,
                           table.gallery)
    results: list[GameResult] = []
    plan: GamePlan | None = None
    try:
        referee.start()
        g = 1
        while (plan := plans(g)) is not None:
            keep = tokens_path(plan.record)
            write_private(keep, json.dumps(table.saved_state()) + "\n")
            setup = GameStart(plan.decks, plan.dealer, plan.prefix, plan.scores, plan.hand_no)
            result = referee.play(g, plan.seed, setup, plan.record,
                                  plan.secret or secret_path(plan.record))
            results.append(result)
            if result.reason not in ("saved", "unfinished"):
                keep.unlink(missing_ok=True)
            done(result, plan)
            if result.reason in ("saved", "unfinished"):
                _stopping(table)
                break
            g += 1
        referee.end_match(results)
    except BaseException:  # Ctrl-C, SIGTERM: the record is closed, the game can go on
        _stopping(table)
        if plan is not None:
            table.out(f"Stopped. The game is saved in {plan.record}")
            table.raw(f"Go on with: {table.resume_command(plan.record)}")
        raise
    finally:
        referee.close()
    return results


def _stopping(table: Table) -> None:
    for seat in table.remote:
        seat.stopping = True


def new_plans(seeds: list[int], save_dir: Path, decks: list[list[int]] | None,
              dealer: int | None, scores: list[int] | None,
              hand_no: int) -> Callable[[int], GamePlan | None]:
    """Plans for ``len(seeds)`` new games, each saved under ``save_dir``."""
    def plan(g: int) -> GamePlan | None:
        if g > len(seeds):
            return None
        return GamePlan(seeds[g - 1], new_save_path(save_dir), decks if g == 1 else None,
                        dealer if g == 1 else None, None, None, scores, hand_no)
    return plan
