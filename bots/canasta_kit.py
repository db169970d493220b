"""Canasta bot kit: the message loop, the handshake, the clock and the table, so that a bot is
one function.

Standard library only, one file: copy it next to your bot (or keep it here) and write

    import canasta_kit

    def choose(observation, moves):
        return moves[0]            # a listed move (or its index, or a move text)

    canasta_kit.run(choose, name="my-bot 0.1")

The kit speaks protocol canasta/1.1 (protocol/README.md), asks for the ``annotations``
capability (each listed move then carries ``facts``: points, canasta, goes_out,
freezes_pile, cards_left) and keeps track of what the table has shown, from the events:
``observation["public"]`` holds each player's discards this hand, the cards known to be in each
hand (picked up with the pile), the discard pile, and the cards this seat has not seen.
``canasta_kit.time_left()`` says how many seconds the current decision has left.  Unknown
messages and fields are ignored, as the protocol asks.  With a referee that only speaks
canasta/1 nothing changes but the missing ``facts``.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, TextIO

PROTOCOL = "canasta/1.1"
RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
SUITS = ("c", "d", "h", "s")

Choose = Callable[[dict[str, Any], list[dict[str, Any]]], Any]


def _take(counter: Counter[str], cards: list[str]) -> None:
    for c in cards:
        if counter[c] > 0:
            counter[c] -= 1
            if not counter[c]:
                del counter[c]


class Table:
    """What this seat has seen of the current hand, kept up to date from the events."""

    def __init__(self, players: int = 4, decks: int = 2) -> None:
        self.players = players
        self.decks = decks
        self.reset_hand()

    def reset_hand(self) -> None:
        self._unread: list[dict[str, Any] | str] = []  # events, or their lines
        self.pile: list[str] = []
        self.discards: list[list[str]] = [[] for _ in range(self.players)]
        self.known: list[Counter[str]] = [Counter() for _ in range(self.players)]
        self._pending_meld: dict[str, Any] | None = None

    def start_game(self, msg: dict[str, Any]) -> None:
        self.players = int(msg.get("players", self.players))
        rules = msg.get("rules")
        if isinstance(rules, dict):
            self.decks = 3 if int(rules.get("players", self.players)) == 6 else 2
        self.reset_hand()

    def note(self, e: dict[str, Any]) -> None:
        """Keep one event for later: the table catches up only when it is read (``facts``),
        so a bot that never looks at it pays for nothing but keeping the hand's events."""
        if e.get("type") == "hand_started":
            self._unread.clear()
        self._unread.append(e)

    def note_line(self, line: str) -> None:
        """An event message's line, kept unparsed: parsing is most of a kit's work on a
        decision, and a bot that never reads the table needs none of it."""
        if '"hand_started"' in line:
            e = _event_of(line)
            if e is not None and e.get("type") == "hand_started":
                self._unread.clear()
        self._unread.append(line)

    def _catch_up(self) -> None:
        unread, self._unread = self._unread, []
        for kept in unread:
            e = _event_of(kept) if isinstance(kept, str) else kept
            if e is not None:
                self.update(e)

    def update(self, e: dict[str, Any]) -> None:
        """One event, as the referee sent it.  A meld by the pile's taker is told before the
        take, so a meld is settled when the next event shows whether it was one."""
        if self._unread:
            self._catch_up()
        kind = e.get("type")
        who = e.get("seat")
        seat = who if isinstance(who, int) else 0
        pending, self._pending_meld = self._pending_meld, None
        if pending is not None and not (kind == "took_pile" and seat == pending["seat"]):
            _take(self.known[pending["seat"]], list(pending["cards"]))
        if kind == "hand_started":
            self.reset_hand()
        elif kind == "upcard":
            self.pile.append(e["card"])
        elif kind == "discard":
            self.pile.append(e["card"])
            self.discards[seat].append(e["card"])
            _take(self.known[seat], [e["card"]])
        elif kind == "took_pile":
            if self.pile:
                self.pile.pop()
            _take(self.known[seat], list(e["with"]))
        elif kind == "picked_up":
            self.known[seat].update(e["cards"])
            self.pile = []
        elif kind == "red_three" and e.get("source") == "pile":
            _take(self.known[seat], [e["card"]])
        elif kind == "meld":
            self._pending_meld = e
        elif kind == "add":
            _take(self.known[seat], [e["card"]])

    def facts(self, obs: dict[str, Any]) -> dict[str, Any]:
        """The public facts at this decision (the same as canasta/1.1's ``public``)."""
        self._catch_up()
        known = [Counter(k) for k in self.known]
        if self._pending_meld is not None:  # a meld not followed by a take: it left the hand
            _take(known[self._pending_meld["seat"]], list(self._pending_meld["cards"]))
        unseen: Counter[str] = Counter()
        for r in RANKS:
            for s in SUITS:
                unseen[r + s] = self.decks
        unseen["Jo"] = 2 * self.decks
        seen = list(obs.get("hand", [])) + list(self.pile)
        seen += [c for row in obs.get("melds", []) for m in row for c in m.get("cards", [])]
        seen += [c for row in obs.get("red_threes", []) for c in row]
        me = obs.get("seat")
        seen += [c for s in range(self.players) if s != me for c in known[s].elements()]
        _take(unseen, seen)
        return {"discards": [list(d) for d in self.discards],
                "known": [sorted(k.elements()) for k in known], "pile": list(self.pile),
                "unseen": dict(sorted(unseen.items()))}


def _event_of(line: str) -> dict[str, Any] | None:
    """The event of an event message's line (None if the line is not one)."""
    try:
        msg = _decode(line)
    except ValueError:
        return None
    e = msg.get("event") if isinstance(msg, dict) else None
    return e if isinstance(e, dict) else None


_SEAT_FIRST = re.compile(r'\{"seat":(\d{1,3}),')
_decode = json.JSONDecoder().decode  # json.loads, without its checks on every line
_raw_decode = json.JSONDecoder().raw_decode


class Observation(dict[str, Any]):
    """The observation, parsed from its text the first time the bot reads it (a bot that
    chooses from the moves alone never pays for it), where ``["public"]`` (when the referee
    did not send it) is made from the kit's table the first time it is read.  A plain dict
    for everything else: each way of reading it parses it first."""

    _text: str | None = None

    def __init__(self, fields: dict[str, Any] | str, table: Table) -> None:
        seat = _SEAT_FIRST.match(fields) if isinstance(fields, str) else None
        if isinstance(fields, dict):
            super().__init__(fields)
        elif seat is None:
            super().__init__()
            self._text = fields
            self._parse()
        else:
            # Never empty, so that code reading the dict's storage directly (json.dumps
            # does) asks ``items()`` and finds the rest parsed.
            super().__init__(seat=int(seat.group(1)))
            self._text = seat.string
        self._table = table

    def _parse(self) -> None:
        text, self._text = self._text, None
        if text is not None:
            try:
                value = _decode(text)
            except ValueError:
                value = None
            if isinstance(value, dict):
                dict.update(self, value)

    def __missing__(self, key: str) -> Any:
        if self._text is not None:
            self._parse()
            if dict.__contains__(self, key):
                return dict.__getitem__(self, key)
        if key != "public":
            raise KeyError(key)
        value = self._table.facts(self)
        self[key] = value
        return value

    def get(self, key: str, default: Any = None) -> Any:
        if key == "public":
            return self[key]
        self._parse()
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self._parse()
        return key == "public" or super().__contains__(key)


def _parsed_first(name: str) -> Any:
    method = getattr(dict, name)

    def parsed(self: Observation, *args: Any, **kwargs: Any) -> Any:
        self._parse()
        return method(self, *args, **kwargs)
    parsed.__name__ = name
    return parsed


for _name in ("__iter__", "__len__", "__repr__", "__eq__", "__ne__", "__or__", "__ror__",
              "__ior__", "__reversed__", "__setitem__", "__delitem__", "keys", "values",
              "items", "copy", "pop", "popitem", "setdefault", "update", "clear"):
    setattr(Observation, _name, _parsed_first(_name))
Observation.__hash__ = None


_ACT_HEAD = '{"type":"act",'
_OBSERVATION_KEY = '"observation":'
_MOVES_KEY = ',"moves":'
# The fields around the observation and the moves, as the referee writes them (each a
# number): read with two regular expressions, 2-4 us less than parsing them as JSON of the
# kit's 20-24 us on a request in a match.
_ACT_FIELDS = re.compile(r'\{"type":"act","game":(-?\d{1,18}),"id":(-?\d{1,18}),'
                         r'"seat":(-?\d{1,18}),"observation":')
_ACT_CLOCK = re.compile(r',"deadline_ms":(-?\d{1,18}),"bank_ms":(-?\d{1,18})\}\s*\Z')


def _act_of(line: str) -> dict[str, Any] | None:
    """A request to act as the referee writes it, its observation left as text; None for any
    other line (then parsed whole).  The observation key is the first at the object's top
    level (what comes before it parses as an object) and the moves key the last (what comes
    after the moves closes the object), so the text between is the observation's."""
    if not line.startswith(_ACT_HEAD):
        return None
    moves_at = line.rfind(_MOVES_KEY)
    fields = _ACT_FIELDS.match(line)
    if fields is not None and moves_at > fields.end():
        try:
            moves, end = _raw_decode(line, moves_at + len(_MOVES_KEY))
        except ValueError:
            return None
        clock = _ACT_CLOCK.match(line, end)
        if clock is not None and isinstance(moves, list):
            return {"type": "act", "game": int(fields[1]), "id": int(fields[2]),
                    "seat": int(fields[3]), "observation": line[fields.end():moves_at],
                    "moves": moves, "deadline_ms": int(clock[1]), "bank_ms": int(clock[2])}
    start = line.find(_OBSERVATION_KEY)
    if start < 0 or moves_at < start:
        return None
    try:
        head = _decode(line[:start].rstrip().rstrip(",") + "}")
        moves, end = _raw_decode(line, moves_at + len(_MOVES_KEY))
        tail = line[end:].strip()
        rest = _decode("{" + tail[1:]) if tail.startswith(",") else _decode("{" + tail)
    except ValueError:
        return None
    if not (isinstance(head, dict) and isinstance(rest, dict) and isinstance(moves, list)) \
            or "moves" in head or "observation" in rest or "moves" in rest:
        return None
    head["observation"] = line[start + len(_OBSERVATION_KEY):moves_at]
    head["moves"] = moves
    head.update(rest)
    return head


# Strategy helpers: what an author would otherwise write first. ----------------------------

def rank_of(card: str) -> str:
    """``Kh`` -> ``K``, ``10d`` -> ``10``, ``Jo`` -> ``Jo``."""
    return card if card == "Jo" else card[:-1]


def card_points(card: str) -> int:
    """A card's value in melds (rules §5): joker 50, deuce and ace 20, king to eight 10,
    seven to four 5, black three 5 (a red three is a bonus, not melded: 0 here)."""
    rank = rank_of(card)
    if rank == "Jo":
        return 50
    if rank in ("2", "A"):
        return 20
    if rank in ("K", "Q", "J", "10", "9", "8"):
        return 10
    if rank == "3":
        return 5 if card[-1] in "cs" else 0
    return 5


def opening_melds(hand: list[str], minimum: int) -> list[list[str]] | None:
    """Melds from ``hand`` whose points reach ``minimum`` (the initial meld requirement), or
    None.  Natural sets of three or more first, then pairs made up with a wild card (never
    more wild cards than naturals), highest points first; a guide for choosing among the
    listed ``meld`` moves, which stay the referee's word on what is legal."""
    by_rank: dict[str, list[str]] = {}
    wilds = []
    for c in hand:
        r = rank_of(c)
        if r in ("Jo", "2"):
            wilds.append(c)
        elif r != "3":
            by_rank.setdefault(r, []).append(c)
    wilds.sort(key=card_points)
    melds: list[list[str]] = []
    for _r, cards in sorted(by_rank.items(), key=lambda kv: -sum(map(card_points, kv[1]))):
        if len(cards) >= 3:
            melds.append(list(cards))
    for _r, cards in sorted(by_rank.items(), key=lambda kv: -card_points(kv[1][0])):
        if len(cards) == 2 and wilds:
            melds.append(cards + [wilds.pop(0)])
    total = 0
    chosen = []
    for m in melds:
        chosen.append(m)
        total += sum(card_points(c) for c in m)
        if total >= minimum:
            return chosen
    return None if minimum > 0 else []


def discard_safety(card: str, public: dict[str, Any]) -> float:
    """How safe discarding ``card`` is, from 0 (an opponent very likely takes the pile with it)
    to 1 (it cannot be taken), from the public facts alone (``observation["public"]``): a black
    three or a wild card stops the next player; a rank already discarded by others, or with
    few copies unseen, is hard to pair; a rank known to be in another hand is dangerous."""
    rank = rank_of(card)
    if rank in ("Jo", "2") or (rank == "3" and card[-1] in "cs"):
        return 1.0
    unseen = sum(int(n) for c, n in (public.get("unseen") or {}).items() if rank_of(c) == rank)
    known = sum(1 for hand in public.get("known") or [] for c in hand if rank_of(c) == rank)
    discarded = sum(1 for d in public.get("discards") or [] for c in d if rank_of(c) == rank)
    if known >= 2:
        return 0.0
    score: float = 1.0 / (1.0 + unseen) + 0.15 * discarded - 0.4 * known
    return max(0.0, min(1.0, score))


_deadline = [0.0]


def time_left() -> float:
    """Seconds left for the current decision (its time plus the bank), by this process's
    clock; answer well before it reaches 0."""
    return max(0.0, _deadline[0] - time.monotonic())


def _answer(choice: Any, moves: list[dict[str, Any]]) -> dict[str, Any]:
    if isinstance(choice, bool):
        raise TypeError("choose() returned a bool, not a move")
    if isinstance(choice, int):
        return {"index": choice}
    if isinstance(choice, str):
        return {"move": choice}
    if isinstance(choice, dict) and isinstance(choice.get("index"), int):
        return {"index": choice["index"]}
    raise TypeError(f"choose() must return a listed move, its index or a move text, not"
                    f" {type(choice).__name__}")


def _read(line: str, table: Table) -> dict[str, Any] | None:
    """A line as a message to answer; None for an event (noted on ``table``: events are most
    of what a bot reads, kept as text where they can be) and for a line that is no message."""
    if line.startswith('{"type":"event",'):
        table.note_line(line)
        return None
    msg = _act_of(line)
    if msg is None:
        try:
            msg = _decode(line)
        except ValueError:
            return None
    if not isinstance(msg, dict):
        return None
    if msg.get("type") == "event":
        if isinstance(msg.get("event"), dict):
            table.note(msg["event"])
        return None
    return msg


def run(choose: Choose, name: str = "canasta_kit bot", capabilities: tuple[str, ...] = ("annotations",),
        stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> list[dict[str, Any]]:
    """Play until ``bye`` (or the end of input); returns the results of ``match_end``."""
    table = Table()
    request: dict[str, Any] | None = None
    results: list[dict[str, Any]] = []

    def send(msg: dict[str, Any]) -> None:
        stdout.write(json.dumps(msg) + "\n")  # the default encoder is the fast, cached one
        stdout.flush()

    def act(req: dict[str, Any]) -> None:
        fields = req.get("observation")
        obs = Observation(fields if isinstance(fields, (str, dict)) else {}, table)
        moves = list(req.get("moves") or [])
        answer, rid = _answer(choose(obs, moves), moves), req.get("id")
        if "index" in answer and type(rid) is int:
            # The usual answer, written as text: the JSON encoder would cost more than the
            # rest of the kit's work on a decision.
            stdout.write(f'{{"type":"move","id":{rid},"index":{int(answer["index"])}}}\n')
            stdout.flush()
        else:
            send({"type": "move", "id": rid, **answer})

    for line in stdin:
        msg = _read(line, table)
        if msg is None:
            continue
        kind = msg.get("type")
        if kind == "act":
            request = msg
            budget = int(msg.get("deadline_ms", 1000)) + int(msg.get("bank_ms", 0))
            _deadline[0] = time.monotonic() + budget / 1000.0
            act(msg)
        elif kind == "hello":
            send({"type": "ready", "protocol": PROTOCOL, "name": name,
                  "capabilities": list(capabilities)})
        elif kind == "game_start":
            table.start_game(msg)
        elif kind == "error" and msg.get("retry") and request is not None:
            print(f"{name}: {msg.get('message')}", file=sys.stderr)
            act(request)
        elif kind == "match_end":
            results = list(msg.get("results") or [])
        elif kind == "bye":
            break
    return results
