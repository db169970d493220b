"""A tournament's ``--out`` folder read back for its report: the summary the tournament wrote
(results.json), its games (games.jsonl, read only: never rewritten here), the records kept
with ``--records``, and what the report derives from them with the tournament's own code
(``outcome``, ``paired_diffs``, ``Sprt``)."""

from __future__ import annotations

import json
import math
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import Ruleset
from ..hosting.playstats import PlayStats, bot_stats, seat_stats
from ..hosting.records import RecordError, load_record
from ..tournament.records import record_path
from ..tournament.rows import shape_problem
from ..tournament.runner import outcome
from ..tournament.runner import outcomes as game_outcomes
from ..tournament.stats import Sprt, SprtTally, paired_diffs

MAX_FILE = 1 << 30          # bytes: past this a file is not the tournament's
MAX_LINE = 1 << 20          # a games.jsonl row is a few hundred bytes
MAX_REASON = 2000           # characters of a failure's reason shown
MAX_TAIL = 4096             # characters of a failing bot's stderr shown (the tournament
                            # keeps its last 4096 bytes)
MAX_DOC = 1 << 20           # bytes of a failures/game-NNNN.json read


@dataclass
class Failure:
    game: int               # index in the schedule
    seat: int
    bot: str
    status: str
    reason: str
    count: int = 1
    step: int | None = None  # the replay page's step of its first occurrence
    decision: int | None = None  # the seat's decision it failed (``bot ask --decision``)


@dataclass
class FailedSeat:
    """A seat that failed in a game, as the report shows it."""

    seat: int
    bot: str
    status: str
    reason: str
    stderr: str            # the end of the bot's stderr ('' when none was kept)
    ask: str | None        # ``canasta bot ask`` putting the failing decision to it again
    decision: int | None   # which of its decisions that is


@dataclass
class FailedGame:
    game: int              # index in the schedule
    seats: list[FailedSeat]
    replay: str | None     # ``canasta match`` playing the game again (failures/game-NNNN.json)


@dataclass
class Tourney:
    folder: Path
    summary: dict[str, Any]
    rules: Ruleset
    rows: list[dict[str, Any]]              # counted games, in schedule order
    records: dict[int, Path]                # schedule index -> record kept for it
    failures: list[Failure]
    diffs: dict[tuple[str, str], list[float]]   # per pairing: each duplicate deal's difference
    sprt: Sprt | None = None
    llr: list[tuple[int, float]] = field(default_factory=list)   # (games so far, LLR)
    warnings: list[str] = field(default_factory=list)


def _read(path: Path) -> bytes:
    if not path.is_file():
        raise RecordError(f"{path}: missing (or not a file)")
    try:
        size = path.stat().st_size
        if size > MAX_FILE:
            raise RecordError(f"{path}: {size} bytes is not a tournament's file")
        return path.read_bytes()
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None


def _summary(folder: Path) -> dict[str, Any]:
    path = folder / "results.json"
    if not path.is_file():
        raise RecordError(f"{path} is missing: is {folder} a tournament's --out folder (the"
                          " file is written when the tournament ends)?")
    try:
        obj = json.loads(_read(path).decode("utf-8"))
    except (ValueError, RecursionError):
        raise RecordError(f"{path}: not JSON") from None
    problem = _summary_problem(obj)
    if problem:
        raise RecordError(f"{path}: {problem}")
    assert isinstance(obj, dict)
    return obj


def _num(x: object) -> bool:
    return x is None or (isinstance(x, int | float) and not isinstance(x, bool))


def _summary_problem(obj: object) -> str | None:
    if not isinstance(obj, dict):
        return "not an object"
    if not isinstance(obj.get("rules"), dict) or not isinstance(obj.get("standings"), list):
        return "no 'rules' or 'standings'"
    for row in obj["standings"]:
        if not isinstance(row, dict) or not isinstance(row.get("bot"), str):
            return "a standings row without its bot"
        for key in ("games", "wins", "draws", "losses", "points", "mean_diff", "ci95", "elo",
                    "elo_low", "elo_high"):
            if not _num(row.get(key)):
                return f"standings: {key!r} of {row['bot'][:40]!r} is not a number"
        if not isinstance(row.get("failures", {}), dict):
            return "standings: 'failures' is not an object"
    if not isinstance(obj.get("cross_table", {}), dict):
        return "'cross_table' is not an object"
    if "sprt" in obj and not isinstance(obj["sprt"], dict):
        return "'sprt' is not an object"
    return None


def _rows(folder: Path, warnings: list[str]) -> list[dict[str, Any]]:
    path = folder / "games.jsonl"
    if not path.exists():
        warnings.append(f"{path} is missing: no games to show")
        return []
    rows: dict[int, dict[str, Any]] = {}
    for no, raw in enumerate(_read(path).split(b"\n"), start=1):
        if not raw.strip():
            continue
        problem: str | None
        try:
            if len(raw) > MAX_LINE:
                raise ValueError
            row = json.loads(raw.decode("utf-8"))
            problem = shape_problem(row, {str(row.get("key"))} if isinstance(row, dict) else set())
        except (ValueError, RecursionError, AttributeError, TypeError):
            problem, row = "not a games.jsonl row", None
        if problem is None and (not isinstance(row["index"], int) or row["index"] in rows
                                or row["index"] < 0):
            problem = "a second row for the same game"
        if problem is not None:
            warnings.append(f"{path}:{no}: {problem}; left out")
            continue
        rows[row["index"]] = row
    return [rows[i] for i in sorted(rows)]


def _record_failures(path: Path, index: int, seating: list[str]) -> list[Failure] | None:
    try:
        lines = load_record(path, torn_ok=True)
    except RecordError:
        return None
    seen: dict[tuple[int, str, str], Failure] = {}  # the same failure again: counted
    moves = 0
    decisions = [0] * len(seating)   # each seat's decisions so far, as bot ask counts them
    waiting: dict[int, list[Failure]] = {}  # failures whose seat has not moved since
    for ln in lines:
        if ln["type"] == "move":
            moves += 1
            seat = ln.get("seat")
            if isinstance(seat, int) and 0 <= seat < len(seating) \
                    and ln.get("by", "bot") in ("bot", "default", "human"):
                decisions[seat] += 1
                for f in waiting.pop(seat, []):
                    f.decision = decisions[seat]  # the decision the failure was at
        if ln["type"] == "failure" and isinstance(ln.get("seat"), int) \
                and 0 <= ln["seat"] < len(seating):
            key = (ln["seat"], str(ln.get("status"))[:40], str(ln.get("reason"))[:MAX_REASON])
            if key in seen:
                seen[key].count += 1
            else:
                # A failure line comes before the move it led to: that move's step.
                seen[key] = Failure(index, key[0], seating[key[0]], key[1], key[2],
                                    step=moves + 1)
                waiting.setdefault(key[0], []).append(seen[key])
    return list(seen.values())


def _failures(rows: list[dict[str, Any]], records: dict[int, Path]) -> list[Failure]:
    out: list[Failure] = []
    for row in rows:
        counted = [(seat, str(status), k) for seat, counts in enumerate(row["failures"])
                   for status, k in counts.items() if isinstance(k, int) and k > 0]
        if not counted:
            continue
        seating = [str(x) for x in row["seating"]]
        found = _record_failures(records[row["index"]], row["index"], seating) \
            if row["index"] in records else None
        if found:
            out.extend(found)
            continue
        why = "no record kept (run the tournament with --records or --html to keep reasons)"
        for seat, status, k in counted:
            bot = seating[seat] if seat < len(seating) else "?"
            out.append(Failure(row["index"], seat, bot, status[:40], why, k))
    return out


def llr_path(rows: list[dict[str, Any]], rules: Ruleset, sprt: Sprt) -> list[tuple[int, float]]:
    """The SPRT's log-likelihood ratio as the tournament computed it (runner._check_sprt):
    games in schedule order, decisive games (unit 'game') or decisive deals over their
    seatings together (unit 'deal').  One point per game for 'game', per deal for 'deal'; the
    test decides only at the end of a deal."""
    points = [(0, 0.0)]
    tally = SprtTally(sprt.unit)
    for i, row in enumerate(rows):
        if row["index"] != i:
            break  # a game not played yet: the test stops here too
        o = outcome(row, rules)
        last_of_deal = i + 1 == len(rows) or rows[i + 1]["deal"] != row["deal"]
        if tally.add(o.diff, o.result, last_of_deal):
            points.append((i + 1, sprt.llr(tally.wins, tally.losses)))
    return points


def load_tournament(folder: Path) -> Tourney:
    """The tournament in ``folder``; a RecordError says why it cannot be read."""
    if not folder.is_dir():
        raise RecordError(f"{folder} is not a folder (give a tournament's --out)")
    summary = _summary(folder)
    try:
        rules = Ruleset.from_dict(summary["rules"])
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"{folder / 'results.json'}: bad rules: {exc}") from None
    warnings: list[str] = []
    rows = []
    for row in _rows(folder, warnings):
        if len(row["seating"]) != rules.players or len(row["scores"]) != rules.sides \
                or not set(row["pair"]) <= set(row["seating"]):
            warnings.append(f"games.jsonl: game {row['index'] + 1} does not fit the rules or"
                            " its pairing; left out")
            continue
        rows.append(row)
    sprt = None
    sp = summary.get("sprt")
    if isinstance(sp, dict):
        try:
            sprt = Sprt(elo0=float(sp["elo0"]), elo1=float(sp["elo1"]),
                        alpha=float(sp["alpha"]), beta=float(sp["beta"]),
                        unit=str(sp.get("unit", "game")))
            if not (0 < sprt.alpha < 1 and 0 < sprt.beta < 1):
                raise ValueError("alpha and beta must be between 0 and 1")
        except (KeyError, TypeError, ValueError) as exc:
            warnings.append(f"results.json: the SPRT's parameters are damaged ({exc})")
            sprt = None
    counted = int(summary.get("games", len(rows))) if _num(summary.get("games")) else len(rows)
    rows = rows[:max(0, counted)]
    records = {r["index"]: record_path(folder, r["index"]) for r in rows
               if record_path(folder, r["index"]).is_file()}
    outcomes = [o for r in rows for o in game_outcomes(r, rules)]
    t = Tourney(folder, summary, rules, rows, records, _failures(rows, records),
                paired_diffs(outcomes), sprt, warnings=warnings)
    if sprt is not None:
        t.llr = [(g, x) for g, x in llr_path(rows, rules, sprt) if math.isfinite(x)]
    return t


@dataclass
class PlayTable:
    """The statistics of play per bot (hosting/playstats.py), from the records kept."""

    bots: list[tuple[str, PlayStats]]   # in the standings' order
    games: int                          # games whose record was read
    unread: int                         # records that could not be read


def play_table(t: Tourney) -> PlayTable | None:
    """Each bot's statistics of play over the games whose record was kept, by the seatings of
    games.jsonl; None when no record was kept."""
    if not t.records:
        return None
    games: list[tuple[list[str], list[PlayStats]]] = []
    unread = 0
    for row in t.rows:
        path = t.records.get(row["index"])
        if path is None:
            continue
        try:
            games.append(([str(x) for x in row["seating"]],
                          seat_stats(load_record(path, torn_ok=True))))
        except RecordError:
            unread += 1
    per_bot = bot_stats(games)
    order = [str(s["bot"]) for s in sorted(t.summary["standings"],
                                           key=lambda r: -_points(r.get("points")))]
    order += sorted(b for b in per_bot if b not in order)
    return PlayTable([(b, per_bot.get(b, PlayStats())) for b in order], len(games), unread)


def _points(x: object) -> float:
    return float(x) if isinstance(x, int | float) and math.isfinite(x) else 0.0


def _fig(x: float | None, fmt: str) -> str:
    return "-" if x is None else fmt.format(x)


def _ms(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:.0f}"


# The statistics of play as the reports show them: (text heading, HTML heading, width).
PLAY_COLUMNS: list[tuple[str, str, int]] = [
    ("hands", "hands", 6), ("out%", "went out", 5), ("conc%", "concealed", 6),
    ("take/h", "pile takes per hand", 7), ("pile", "mean pile taken", 5),
    ("nat/h", "natural canastas per hand", 6), ("mix/h", "mixed canastas per hand", 6),
    ("red3/h", "red threes per hand", 7), ("left", "points left when another side went out", 6),
    ("stock", "stock-exhausted hands", 6), ("ms/dec", "mean decision (ms)", 7)]

PLAY_LEGEND = ("hands: hands played, counted per seat; out%: hands it went out (conc%:"
               " concealed); take/h: pile takes per hand; pile: mean cards of a pile taken;"
               " nat/h, mix/h: natural and mixed canastas it completed per hand; red3/h: red"
               " threes it laid per hand; left: mean points left in its hand when another"
               " side went out; stock: hands that ended with the stock exhausted; ms/dec: mean"
               " time per decision")


def play_cells(s: PlayStats, percent: str = "{:.0f}") -> list[str]:
    """One bot's figures, in the order of ``PLAY_COLUMNS``."""
    def pct(x: float | None) -> str:
        return _fig(None if x is None else 100 * x, percent)
    return [str(s.hands), pct(s.go_out_rate), pct(s.concealed_rate),
            _fig(s.takes_per_hand, "{:.2f}"), _fig(s.mean_pile, "{:.1f}"),
            _fig(s.natural_per_hand, "{:.2f}"), _fig(s.mixed_per_hand, "{:.2f}"),
            _fig(s.red_threes_per_hand, "{:.2f}"), _fig(s.mean_left, "{:.0f}"),
            str(s.stock_hands), _ms(s.mean_decision_ms)]


def failure_doc(folder: Path, index: int) -> dict[str, Any] | None:
    """The game's ``OUT/failures/game-NNNN.json`` (None: missing or damaged)."""
    from ..tournament.failures import failure_path
    try:
        with open(failure_path(folder, index), "rb") as f:
            doc = json.loads(f.read(MAX_DOC))
    except (OSError, ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


def _where(replay: str) -> tuple[str | None, str]:
    """The folder a replay command runs in (its ``cd``) and how it names canasta."""
    head, sep, rest = replay.partition(" && ")
    cwd = None
    if sep and head.startswith("cd "):
        try:
            parts = shlex.split(head)
        except ValueError:
            parts = []
        cwd = parts[1] if len(parts) == 2 else None
    program = rest.split(" match ", 1)[0] if sep and " match " in rest else "canasta"
    return cwd, program or "canasta"


def ask_command(t: Tourney, f: Failure, replay: str | None) -> str | None:
    """``canasta bot ask`` putting the decision where ``f`` happened to its bot again, from
    the game's record; None for a built-in player, or without a record or a decision."""
    bots = t.summary.get("bots")
    command = bots.get(f.bot) if isinstance(bots, dict) else None
    record = t.records.get(f.game)
    if not isinstance(command, str) or command.startswith("builtin:") or record is None \
            or f.decision is None:
        return None
    cwd, program = _where(replay) if replay else (None, "canasta")
    line = f"{program} " + shlex.join(["bot", "ask", command, str(record.resolve()),
                                        "--decision", str(f.decision), "--seat", str(f.seat)])
    return f"cd {shlex.quote(cwd)} && {line}" if cwd else line


def failed_games(t: Tourney) -> list[FailedGame]:
    """Each game where a seat failed: each failing seat's reason, the end of its stderr and a
    ``bot ask`` for the failing decision (from the record and failures/game-NNNN.json), and
    the command that replays the game."""
    out: list[FailedGame] = []
    by_game: dict[int, list[Failure]] = {}
    for f in t.failures:
        by_game.setdefault(f.game, []).append(f)
    for index, failures in sorted(by_game.items()):
        doc = failure_doc(t.folder, index) or {}
        replay = doc.get("replay") if isinstance(doc.get("replay"), str) else None
        tails: dict[int, str] = {}
        reasons: dict[int, str] = {}
        for s in doc.get("seats") or []:
            if isinstance(s, dict) and isinstance(s.get("seat"), int):
                if isinstance(s.get("stderr_tail"), str):
                    tails[s["seat"]] = s["stderr_tail"][-MAX_TAIL:]
                if isinstance(s.get("reason"), str):
                    reasons[s["seat"]] = s["reason"][:MAX_REASON]
        seats: list[FailedSeat] = []
        for f in failures:
            if any(x.seat == f.seat for x in seats):
                continue  # a seat's first failure of the game: the one to look into
            # Without the record, the reason the failure file kept.
            reason = f.reason if index in t.records else reasons.get(f.seat, f.reason)
            seats.append(FailedSeat(f.seat, f.bot, f.status, reason, tails.get(f.seat, ""),
                                    ask_command(t, f, replay), f.decision))
        out.append(FailedGame(index, seats, replay))
    return out
