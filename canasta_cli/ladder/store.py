"""The ladder's SQLite file: bots, duplicate deals (reserved, then finished) and runs.

Every change is one short transaction (``BEGIN IMMEDIATE``, with a busy timeout), so two
``ladder run``s on one file interleave safely.  A run reserves a deal (its number and pair)
before playing it and fills in the result when every seating is played: a run killed midway
leaves reservations whose process is gone, and the next run plays exactly those deals again
(same pair, same seed) before any new one.  Deal seeds derive from the ladder's master seed and
the deal's number, and pairs are chosen from what the file holds, so the deals played do not
depend on how runs were split or interrupted.

Secrets: the master seed is never in the database, which a person may share or keep where a
bot can read it.  It is kept as a saved game's seed is, in an owner-only file of the sealed
seeds' folder (``play.secrets_dir``), which every command hides from every bot; the database
holds only that file's random name.  A deal's seed goes into the database once the deal is
finished, not before.  A file written before this was so (the master seed in ``meta``, every
reserved deal's seed in ``deals``) is migrated when first opened: the seed moves out and is
wiped from the file.  ``ladder run`` also hides the ladder's folder from its bots, and refuses
one that holds a bot's own files.

Nothing read from the file is trusted: every value is checked (``checked.py``) and one that is
wrong, like a table that is not the ladder's, is a LadderError saying the file is damaged.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from ..core.errors import CanastaError
from ..util.private_files import InputFileError, private_database, read_input, write_private
from ..util.processes import pid_alive
from ..util.seeds import MAX_SEED, SEED_BITS, derive, fresh_seed
from . import checked, failures
from .checked import Damage

FORMAT = "2"  # meta 'format': the master seed beside the file, deal seeds once finished
DEALS = """CREATE TABLE {name} (k INTEGER PRIMARY KEY, a TEXT NOT NULL, b TEXT NOT NULL,
                               seed TEXT, run INTEGER NOT NULL,
                               score REAL, diff REAL, failed INTEGER, finished REAL)"""
SCHEMA = [
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE bots (name TEXT PRIMARY KEY, command TEXT NOT NULL, added REAL NOT NULL)",
    "CREATE TABLE runs (id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, started REAL NOT NULL,"
    " ended REAL)",
    DEALS.format(name="deals"),
]
TABLES = {"meta": ("key", "value"), "bots": ("name", "command", "added"),
          "runs": ("id", "pid", "started", "ended"),
          "deals": ("k", "a", "b", "seed", "run", "score", "diff", "failed", "finished")}
NAME = re.compile(r"[A-Za-z0-9_.+-]{1,64}(@[A-Za-z0-9_.+-]{1,32})?")
SECRET = re.compile(r"ladder-[0-9a-f]{16}\.json")
SEED_CAP = 4096  # bytes: the seed file holds two numbers
SCORES = (0.0, 0.5, 1.0)

_P = ParamSpec("_P")
_R = TypeVar("_R")


class LadderError(CanastaError):
    """The ladder file cannot be used as asked; the message is one line."""


@dataclass(frozen=True)
class Deal:
    k: int
    a: str
    b: str
    seed: int


@dataclass(frozen=True)
class Master:
    """The master seed and the size of the deal seeds it derives: 128 bits from a drawn one,
    63 from a given ``--seed`` or a ladder made before (the same deals as they always were)."""

    seed: int
    bits: int

    def deal(self, k: int) -> int:
        return deal_seed(self.seed, k, self.bits)


def default_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "canasta" / "ladder.sqlite"


def secrets_dir() -> Path:
    """Where the master seeds are kept: the sealed seeds' folder, which every command that
    starts a bot hides from it (``play.secrets_dir``)."""
    from ..table.session import secrets_dir as sealed
    return sealed()


def deal_seed(master: int, k: int, bits: int = 63) -> int:
    return derive(f"canasta-ladder/{master}/{k}", bits)


def _guarded(method: Callable[Concatenate[Ladder, _P], _R]
             ) -> Callable[Concatenate[Ladder, _P], _R]:
    """A method whose SQLite errors and damaged values become one LadderError."""

    def run(self: Ladder, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(self, *args, **kwargs)
        except Damage as exc:
            raise self.damaged(str(exc)) from None
        except sqlite3.Error as exc:
            raise self.unusable(exc) from None

    run.__name__, run.__doc__ = method.__name__, method.__doc__
    return run


class Ladder:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.moved_to: Path | None = None  # where this open moved the master seed to
        name = private_database(path)  # owner-only, a regular file, never through a link
        try:
            self.db = sqlite3.connect(name, timeout=60.0, isolation_level=None)
        except sqlite3.Error as exc:
            raise self.unusable(exc) from None
        try:
            self._setup()
        except BaseException:
            self.db.close()
            raise

    @_guarded
    def _setup(self) -> None:
        for pragma in ("journal_mode=WAL", "secure_delete=ON", "trusted_schema=OFF",
                       # Each commit survives the process (SIGKILL included); only a power
                       # cut may lose the last deals, which the next run then plays again.
                       "synchronous=NORMAL"):
            self.db.execute(f"PRAGMA {pragma}")
        with self._tx() as db:
            moved = self._prepare(db)
        if moved:
            self._wipe()

    def close(self) -> None:
        self.db.close()

    def damaged(self, why: str) -> LadderError:
        return LadderError(f"the ladder file {self.path} is damaged: {why}")

    def unusable(self, exc: sqlite3.Error) -> LadderError:
        """An SQLite error in one line: the file busy, out of reach, or damaged."""
        why = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        if "locked" in why or "busy" in why:
            return LadderError(f"the ladder file {self.path} is busy ({why}): try again")
        if any(w in why for w in ("readonly", "unable to open", "disk I/O", "full")):
            return LadderError(f"the ladder file {self.path} cannot be used: {why}")
        return self.damaged(why)

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # The file's tables, and the migration of a file from before ------------------------------
    def _prepare(self, db: sqlite3.Connection) -> bool:
        """Make a new file's tables, or check an existing file's; True if a master seed was
        moved out of it (a file from before)."""
        tables = _tables(db)
        if not tables & set(TABLES):
            for statement in SCHEMA:
                db.execute(statement)
            db.execute("INSERT INTO meta VALUES ('format', ?)", (FORMAT,))
        if "failures" not in tables:  # new, or a file from before failures were kept
            for statement in failures.SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
        form = _meta(db, "format")
        if form == FORMAT:
            if _meta(db, "seed") is not None:
                raise Damage("it holds a master seed, which a ladder file of this format never"
                             " does")
            return False
        if form is not None:
            raise Damage(f"its format {form[:20]!r} is not one this canasta reads")
        return self._migrate(db)

    def _migrate(self, db: sqlite3.Connection) -> bool:
        """A file from before: its master seed moves to the seed file, the seeds of deals not
        yet finished are dropped (they derive from the master seed), and deal seeds are kept
        as text (128 bits do not fit SQLite's integers)."""
        kept = _meta(db, "seed")
        if kept is not None:
            master = checked.seed(kept, "its master seed")
            if _meta(db, "rules") is None:
                raise Damage("it has a master seed but no rules")
            self.moved_to = _new_secret(db, Master(master, 63))
        db.execute(DEALS.format(name="deals_new"))
        db.execute("INSERT INTO deals_new SELECT k, a, b, CASE WHEN finished IS NULL THEN NULL"
                   " ELSE CAST(seed AS TEXT) END, run, score, diff, failed, finished FROM deals")
        db.execute("DROP TABLE deals")
        db.execute("ALTER TABLE deals_new RENAME TO deals")
        db.execute("DELETE FROM meta WHERE key='seed'")
        db.execute("INSERT INTO meta VALUES ('format', ?)", (FORMAT,))
        return self.moved_to is not None

    def _wipe(self) -> None:
        """No page of the file, and no frame of its log, holds the moved seed any more
        (``secure_delete`` zeroed what was deleted; this rewrites the rest)."""
        with contextlib.suppress(sqlite3.OperationalError):  # another process reads it
            self.db.execute("VACUUM")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # Settings --------------------------------------------------------------------------------
    @_guarded
    def meta(self, key: str) -> str | None:
        return _meta(self.db, key)

    @_guarded
    def settings(self, rules: dict[str, Any], seed: int | None) -> tuple[dict[str, Any],
                                                                        Master]:
        """The ladder's rules and master seed: set by its first run, the same ever after (the
        ratings compare deals played under one set of rules)."""
        if seed is not None and not -MAX_SEED < seed < MAX_SEED:
            raise LadderError(f"--seed must be a whole number below 2**128 in size, got"
                              f" {str(seed)[:30]}")
        with self._tx() as db:
            have = _meta(db, "rules")
            if have is None:
                if db.execute("SELECT 1 FROM deals LIMIT 1").fetchone() is not None:
                    raise Damage("it holds deals but no rules")
                db.execute("INSERT INTO meta VALUES ('rules', ?)", (json.dumps(rules),))
                master = Master(seed, 63) if seed is not None else Master(fresh_seed(),
                                                                          SEED_BITS)
                _new_secret(db, master)  # inside the transaction: one first run draws it
            else:
                master = _read_seed(_secret_path(db))
        kept = _rules(have) if have is not None else rules
        if kept != rules:
            raise LadderError(f"{self.path} plays {str(kept.get('name', '?'))[:40]} with its"
                              " own options; a ladder keeps the rules of its first run (use"
                              " another --db)")
        if seed is not None and seed != master.seed:
            raise LadderError(f"{self.path} has its master seed already; drop --seed")
        return kept, master

    # Bots ------------------------------------------------------------------------------------
    @_guarded
    def add(self, name: str, command: str) -> None:
        if not NAME.fullmatch(name):
            raise LadderError(f"{name[:80]!r} is not a ladder name: letters, digits, _.+- and"
                              " an optional @version, e.g. mybot@2")
        if not command.strip():
            raise LadderError("the bot's command line is empty")
        with self._tx() as db:
            names = _bots(db)
            if name in names:
                raise LadderError(f"{name} is on the ladder already (add a new version, e.g."
                                  f" {name.split('@')[0]}@{_next_version(names, name)})")
            db.execute("INSERT INTO bots VALUES (?, ?, ?)", (name, command, time.time()))

    @_guarded
    def bots(self) -> dict[str, str]:
        return _bots(self.db)

    # Runs and deals --------------------------------------------------------------------------
    @_guarded
    def start_run(self) -> int:
        with self._tx() as db:
            cur = db.execute("INSERT INTO runs (pid, started) VALUES (?, ?)",
                             (os.getpid(), time.time()))
            return int(cur.lastrowid or 0)

    @_guarded
    def end_run(self, run: int) -> None:
        with self._tx() as db:
            db.execute("UPDATE runs SET ended=? WHERE id=?", (time.time(), run))

    @_guarded
    def reserve(self, run: int, master: Master) -> Deal | None:
        """The next deal to play: a deal left by a run that is gone, or a new one between
        the pair that most needs deals (fewest between them, then the fewest for either, then
        by name).  None: fewer than two bots."""
        with self._tx() as db:
            names = sorted(_bots(db))
            left = _left_over(db, names)
            if left is not None:
                k, a, b = left
                db.execute("UPDATE deals SET run=? WHERE k=?", (run, k))
                return Deal(k, a, b, master.deal(k))
            if len(names) < 2:
                return None
            a, b = _neediest_pair(db, names)
            k = _whole(db.execute("SELECT COALESCE(MAX(k), 0) FROM deals").fetchone()[0],
                       "the last deal's number") + 1
            db.execute("INSERT INTO deals (k, a, b, seed, run) VALUES (?, ?, ?, NULL, ?)",
                       (k, a, b, run))
            return Deal(k, a, b, master.deal(k))

    @_guarded
    def finish(self, deal: Deal, score: float, diff: float, failed: int,
               kept: list[dict[str, Any]] | None = None, keep: int = failures.KEEP) -> None:
        """The deal's result and, now that it is over, its seed; and its failed games
        (``failures.from_row``; the latest ``keep`` of each bot are kept), in one
        transaction."""
        with self._tx() as db:
            db.execute("UPDATE deals SET seed=?, score=?, diff=?, failed=?, finished=? WHERE"
                       " k=?", (str(deal.seed), score, diff, failed, time.time(), deal.k))
            if kept:
                failures.keep(db, kept, keep)

    def release(self, run: int) -> None:
        """A run stopped before its reserved deals were played: they go to the next run."""
        self.end_run(run)

    @_guarded
    def results(self, upto_run: int | None = None) -> list[tuple[str, str, float]]:
        """Every finished deal (optionally only those of runs up to ``upto_run``)."""
        q = "SELECT k, a, b, score, seed FROM deals WHERE finished IS NOT NULL"
        args: tuple[Any, ...] = ()
        if upto_run is not None:
            q += " AND run <= ?"
            args = (upto_run,)
        names = _bots(self.db)
        out = []
        for k, a, b, score, seed in self.db.execute(q + " ORDER BY k", args):
            deal = f"deal {_whole(k, 'a deal number')}"
            _pair(a, b, names, deal)
            checked.seed(seed, f"the seed of {deal}")
            if checked.finite(score, 0, 1, f"the score of {deal}") not in SCORES:
                raise Damage(f"the score of {deal} is {score}, not 0, 0.5 or 1")
            out.append((a, b, float(score)))
        return out

    @_guarded
    def runs(self) -> list[tuple[int, float, int]]:
        """Each run with a finished deal: (id, start time, deals it finished)."""
        return [(_whole(r, "a run's number"),
                 checked.finite(t, 0, checked.LATEST, f"the start of run {r}"),
                 _whole(n, "a count of deals")) for r, t, n in self.db.execute(
            "SELECT runs.id, runs.started, COUNT(deals.k) FROM runs JOIN deals ON"
            " deals.run = runs.id AND deals.finished IS NOT NULL GROUP BY runs.id ORDER BY"
            " runs.id")]

    def check(self) -> None:
        """Read every bot, finished deal and run, so that a damaged file is refused before a
        run plays anything (each reader checks its rows)."""
        self.bots()
        self.results()
        self.runs()

    # Failed games ----------------------------------------------------------------------------
    @_guarded
    def failed_games(self, bot: str | None = None, last: int = 10) -> list[failures.Failure]:
        return failures.listing(self.db, bot, last)

    @_guarded
    def failed_record(self, failure_id: int) -> str | None:
        return failures.record_text(self.db, failure_id)

    @_guarded
    def failed_count(self) -> int:
        return failures.count(self.db)


def migration_note(ladder: Ladder) -> str | None:
    """What a command says when opening the file moved its master seed out."""
    if ladder.moved_to is None:
        return None
    return (f"note: moved the master seed of the ladder file {ladder.path} out of it, into"
            f" {ladder.moved_to} (owner-only, hidden from bots); a deal's seed is kept in the"
            " file once the deal is played")


def _tables(db: sqlite3.Connection) -> set[str]:
    """The file's tables, once they are checked to be the ladder's: all of them or none (a
    new file), each with the ladder's columns, and no view or trigger (canasta makes none:
    one could change what is read or written)."""
    objects = db.execute("SELECT type, name FROM sqlite_master").fetchall()
    odd = [(t, n) for t, n in objects if t not in ("table", "index")]
    if odd:
        raise Damage(f"it holds a {odd[0][0]} {str(odd[0][1])[:40]!r}, which canasta never"
                     " makes")
    tables = {str(n) for t, n in objects if t == "table"}
    missing = [t for t in TABLES if t not in tables]
    if tables & set(TABLES) and missing:
        raise Damage(f"its table {missing[0]!r} is missing")
    for name, columns in [*TABLES.items(), ("failures", failures.COLUMNS)]:
        found = tuple(str(r[1]) for r in db.execute(f"PRAGMA table_info({name})"))
        if name in tables and found != columns:
            raise Damage(f"its table {name!r} is not the ladder's (other columns)")
    return tables


def _meta(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return None if row is None else checked.text(row[0], checked.MAX_TEXT, f"its {key!r}")


def _rules(text: str) -> dict[str, Any]:
    try:
        kept = json.loads(text)
    except (ValueError, RecursionError):
        kept = None
    if not isinstance(kept, dict):
        raise Damage("its rules are not a JSON object")
    return kept


def _whole(value: object, what: str) -> int:
    return checked.whole(value, 0, checked.MAX_ROW_ID, what)


def _bots(db: sqlite3.Connection) -> dict[str, str]:
    """The bots, by name, each checked."""
    out = {}
    for name, command in db.execute("SELECT name, command FROM bots ORDER BY name"):
        key = checked.text(name, checked.MAX_NAME, "a bot's name")
        out[key] = checked.text(command, checked.MAX_COMMAND, f"the command of {key[:40]!r}")
    return out


def _pair(a: object, b: object, names: dict[str, str] | list[str], what: str) -> None:
    if a not in names or b not in names or a == b:
        raise Damage(f"{what} is between {str(a)[:40]!r} and {str(b)[:40]!r}, not two bots"
                     " of the ladder")


def _left_over(db: sqlite3.Connection, names: list[str]) -> tuple[int, str, str] | None:
    """The first unfinished deal of a run that is gone."""
    for r, pid, ended in db.execute("SELECT id, pid, ended FROM runs").fetchall():
        run = f"run {_whole(r, 'a run number')}"
        checked.whole(pid, 0, checked.MAX_PID, f"the process of {run}")
        if ended is not None:
            checked.finite(ended, 0, checked.LATEST, f"the end of {run}")
        elif pid_alive(pid):
            continue
        row = db.execute("SELECT k, a, b FROM deals WHERE run=? AND finished IS NULL ORDER BY"
                         " k LIMIT 1", (r,)).fetchone()
        if row is not None:
            k = _whole(row[0], "a deal number")
            _pair(row[1], row[2], names, f"deal {k}")
            return k, row[1], row[2]
    return None


def _neediest_pair(db: sqlite3.Connection, names: list[str]) -> tuple[str, str]:
    """The pair with the fewest deals between them, then the fewest for either, then by
    name."""
    between: dict[tuple[str, str], int] = {}
    each = dict.fromkeys(names, 0)
    for a, b, n in db.execute("SELECT a, b, COUNT(*) FROM deals GROUP BY a, b"):
        _pair(a, b, names, "a deal")
        between[(a, b)] = between.get((a, b), 0) + _whole(n, "a count of deals")
        each[a] += n
        each[b] += n
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    return min(pairs, key=lambda p: (between.get(p, 0), each[p[0]] + each[p[1]], p))


def _next_version(names: dict[str, str], name: str) -> int:
    base = name.split("@")[0]
    versions = [n.split("@", 1)[1] for n in names if n.split("@")[0] == base and "@" in n]
    numbers = [int(v) for v in versions if v.isdigit() and len(v) <= 32]
    return max(numbers, default=1) + 1


def _new_secret(db: sqlite3.Connection, master: Master) -> Path:
    """Keep ``master`` in a new seed file (named at random, never after the seed) and its
    name in the file's ``meta``; inside the caller's transaction."""
    name = f"ladder-{secrets.token_hex(8)}.json"
    path = secrets_dir() / name
    write_private(path, json.dumps({"seed": master.seed, "bits": master.bits}) + "\n")
    db.execute("INSERT OR REPLACE INTO meta VALUES ('secret', ?)", (name,))
    return path


def _secret_path(db: sqlite3.Connection) -> Path:
    """The seed file the ladder file names."""
    name = _meta(db, "secret")
    if name is None or not SECRET.fullmatch(name):
        raise Damage(f"its seed file's name is {str(name)[:40]!r}, not one canasta gives")
    return secrets_dir() / name


def _read_seed(path: Path) -> Master:
    """The master seed, read strictly (a small regular file, not a link, two whole numbers);
    a missing one is an error, never a new seed drawn in silence."""
    if not os.path.lexists(path):
        raise LadderError(f"the ladder's master seed is kept in {path}, which is missing:"
                          " restore it, or copy it there from the machine the ladder was"
                          " made on (another seed would deal other deals); or start a new"
                          " ladder with another --db")
    damaged = f"the ladder's seed file {path} is damaged"
    try:
        data = read_input(path, SEED_CAP, "a ladder's seed file", follow=False)
        obj = json.loads(data.decode("utf-8"), parse_float=_not_whole,
                         parse_constant=_not_whole)
    except InputFileError as exc:
        raise LadderError(str(exc)) from None
    except OSError as exc:
        raise LadderError(f"cannot read {path}: {exc.strerror}") from None
    except (ValueError, RecursionError):
        raise LadderError(f"{damaged} (not a JSON object of whole numbers)") from None
    seed = obj.get("seed") if isinstance(obj, dict) else None
    bits = obj.get("bits") if isinstance(obj, dict) else None
    if type(seed) is not int or not -MAX_SEED < seed < MAX_SEED or bits not in (63, SEED_BITS) \
            or type(bits) is not int:
        raise LadderError(f"{damaged} ('seed' must be a whole number below 2**128 in size,"
                          " 'bits' 63 or 128)")
    return Master(seed, bits)


def _not_whole(text: str) -> object:
    raise ValueError(f"{text[:20]} is not a whole number")
