"""Messages of protocol v1, built from core objects (replies.py reads what bots send).

Everything a seat receives is made here, from ``observation`` and ``Event.view``, so that what
a seat may see is decided in one place (the core) and worded in one place (this module).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache, partial
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any, cast

from ..core import (
    GameState,
    Move,
    Ruleset,
    format_move,
    observation,
)
from ..core.cards import BLACK3, DEUCE, JOKER, KIND_OF, KIND_TEXT, TEXT_OF, display_sorted
from ..core.events import Event
from ..core.legality import frozen_against
from ..core.moves import Add, Answer, Discard, Meld, TakePile
from ..core.state import MeldState, Phase
from .replies import MAX_LINE
from .statuses import SeatStatus
from .types import (
    ActMessage,
    ByeMessage,
    ErrorMessage,
    EventMessage,
    GameEndMessage,
    GameStartMessage,
    HelloMessage,
    MatchEndMessage,
    ReadyMessage,
)

PROTOCOL = "canasta/1"
PROTOCOL_1_1 = "canasta/1.1"
PROTOCOLS = (PROTOCOL, PROTOCOL_1_1)
CAPABILITIES = ("move_text", "move_index")
# canasta/1.1: what a bot may ask for in ready.capabilities (protocol/README.md).
OPTIONAL = ("history", "annotations", "auto_forced", "public")


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
# The C encoder behind _ENCODER, made once: JSONEncoder.encode builds a new one per call,
# which is a third of the cost of a small message.
_C_ENCODE = c_make_encoder(None, _ENCODER.default, encode_basestring, None, ":", ",", False,
                           False, True) if c_make_encoder is not None else None


def _dumps(obj: Any) -> str:
    """Compact JSON (no spaces, UTF-8 text as is): the protocol's wire form."""
    if _C_ENCODE is not None and isinstance(obj, dict):
        return "".join(_C_ENCODE(obj, 0))
    return _ENCODER.encode(obj)


def encode(msg: dict[str, Any] | ActRequest) -> bytes:
    """A message's line on the wire."""
    if isinstance(msg, ActRequest):
        return msg.wire
    return (_dumps(msg) + "\n").encode("utf-8")


def _plain(msg: Any) -> dict[str, Any]:
    """A message made as its TypedDict (``types.py``), handed on as the dict seats take."""
    return cast(dict[str, Any], msg)


def hello_message(seat: int, rules: Ruleset, time: dict[str, int], name: str = "") -> dict[str, Any]:
    msg: HelloMessage = {
        "type": "hello", "protocol": PROTOCOL, "seat": seat, "players": rules.players,
        "rules": rules.to_dict(), "capabilities": list(CAPABILITIES), "time": time,
        "max_line": MAX_LINE, "seat_name": name}
    return _plain(msg)


def game_start_message(game: int, seat: int, rules: Ruleset, names: list[str],
                       caps: frozenset[str] | None = None) -> dict[str, Any]:
    """``caps`` (canasta/1.1 seats only) confirms the protocol and the capabilities granted."""
    msg: GameStartMessage = {
        "type": "game_start", "game": game, "seat": seat, "side": rules.side_of(seat),
        "players": rules.players, "rules": rules.to_dict(), "names": names}
    if caps is not None:
        msg["protocol"] = PROTOCOL_1_1
        msg["capabilities"] = sorted(caps)
    return _plain(msg)


def match_end_message(seat: int, results: list[dict[str, Any]]) -> dict[str, Any]:
    """canasta/1.1: the results of the match so far, before ``bye``."""
    msg: MatchEndMessage = {"type": "match_end", "seat": seat, "games": len(results),
                            "results": results}
    return _plain(msg)


def granted(ready: ReadyMessage) -> frozenset[str]:
    """The optional capabilities a canasta/1.1 ``ready`` (checked by ``read_ready``) asks for
    and the referee has; names it does not know are ignored (a later referee may have them)."""
    return frozenset(c for c in ready.get("capabilities", ()) if c in OPTIONAL)


def event_message(game: int, event: Event, seat: int) -> dict[str, Any]:
    """The event as ``seat`` sees it.  Made whole at once: only seats that hear events are
    sent them, and each of those reads the view or sends its bytes (a lazily made view cost
    more on both paths)."""
    msg: EventMessage = {"type": "event", "game": game, "event": event.view(seat)}
    return _plain(msg)


def move_json(move: Move, index: int) -> dict[str, Any]:
    text = format_move(move)
    out: dict[str, Any] = {"index": index, "text": text, "action": text.split(" ", 1)[0]}
    if isinstance(move, (Meld, TakePile)):
        out.update(rank=KIND_TEXT[move.rank], naturals=move.naturals, deuces=move.deuces,
                   jokers=move.jokers)
    elif isinstance(move, Add):
        out.update(rank=KIND_TEXT[move.rank], card=KIND_TEXT[move.kind])
    elif isinstance(move, Discard):
        out.update(card=KIND_TEXT[move.kind])
    elif isinstance(move, Answer):
        out.update(yes=move.yes)
    return out


_MOVE_CACHE: dict[Move, tuple[dict[str, Any], str]] = {}


def _move_parts(move: Move) -> tuple[dict[str, Any], str]:
    """The move's JSON fields without the index, as a dict and as JSON text (cached: the set of
    distinct moves is small)."""
    parts = _MOVE_CACHE.get(move)
    if parts is None:
        fields = move_json(move, 0)
        del fields["index"]
        parts = (fields, _dumps(fields)[1:])
        _MOVE_CACHE[move] = parts
    return parts


class ActRequest:
    """The request to act, as the referee makes it once per decision.

    Its parts are made when first asked for, since each seat needs different ones: a bot's
    pipe only the bytes (``wire``, written straight from the state), an in-process player
    often only the listed moves as engine objects (``legal``), a person also ``explain``,
    ``sequence`` and ``ahead``; ``message()`` is the plain ``ActMessage`` for everyone else
    (a seat's ``act`` hands it to ``request``).  The wire form is the JSON of ``message()``,
    byte for byte."""

    __slots__ = ("_caps", "_facts", "_message", "_moves", "_observation", "_state", "_wire",
                 "ahead", "bank_ms", "deadline_ms", "explain", "game", "id", "legal", "seat",
                 "sequence")

    def __init__(self, game: int, request: int, state: GameState, moves: list[Move],
                 deadline_ms: int, bank_ms: int, caps: frozenset[str] = frozenset()) -> None:
        self.game = game
        self.id = request
        self.seat = state.actor
        self.deadline_ms = deadline_ms
        self.bank_ms = bank_ms
        self.legal = moves  # the listed moves as engine objects, in order
        # For a person's seat only (``act_message(explains=True)``): they close over the state.
        self.explain: Callable[[Move], str] | None = None
        self.sequence: Callable[[list[Move]], tuple[int, str] | None] | None = None
        self.ahead: Callable[[list[str]], Any] | None = None  # protocol/ahead.py
        self._state = state
        self._caps = caps
        self._facts: list[dict[str, Any]] | None = None
        self._observation: dict[str, Any] | None = None
        self._moves: list[dict[str, Any]] | None = None
        self._message: ActMessage | None = None
        self._wire: bytes | None = None

    @property
    def events_seen(self) -> int:
        """How many events of the game the seat has heard when it is asked."""
        return len(self._state.events())

    def _move_facts(self) -> list[dict[str, Any]]:
        if self._facts is None:
            from ..core.facts import move_facts
            self._facts = move_facts(self._state, list(self.legal))
        return self._facts

    def observation(self) -> dict[str, Any]:
        """What the seat to act may see (``core/observation.py``), with the canasta/1.1
        extras it was granted."""
        if self._observation is None:
            state, caps = self._state, self._caps
            obs = observation(state, state.actor, "history" in caps)
            if "public" in caps:
                from ..core.facts import public_facts
                from ..core.observation import history_views
                views = obs["history"] if "history" in caps else history_views(state,
                                                                               state.actor)
                obs["public"] = public_facts(views, obs, state.rules.decks)
            self._observation = obs
        return self._observation

    def moves(self) -> list[dict[str, Any]]:
        """The listed moves as the protocol lists them (``move_json``; with ``facts`` when
        annotations were granted)."""
        if self._moves is None:
            if "annotations" in self._caps:
                self._moves = [{"index": i, **_move_parts(m)[0], "facts": f}
                               for i, (m, f) in enumerate(zip(self.legal, self._move_facts(),
                                                              strict=True))]
            else:
                self._moves = [{"index": i, **_move_parts(m)[0]}
                               for i, m in enumerate(self.legal)]
        return self._moves

    def message(self) -> ActMessage:
        """The request as a plain message (its fields in the wire's order)."""
        if self._message is None:
            self._message = {"type": "act", "game": self.game, "id": self.id,
                             "seat": self.seat, "observation": self.observation(),
                             "moves": self.moves(), "deadline_ms": self.deadline_ms,
                             "bank_ms": self.bank_ms}
        return self._message

    @property
    def wire(self) -> bytes:
        if self._wire is None:
            if "annotations" in self._caps:
                moves_text = ",".join(
                    f'{{"index":{i},{_move_parts(m)[1][:-1]},"facts":{_dumps(f)}}}'
                    for i, (m, f) in enumerate(zip(self.legal, self._move_facts(),
                                                   strict=True)))
            else:
                moves_text = ",".join(f'{{"index":{i},{_move_parts(m)[1]}'
                                      for i, m in enumerate(self.legal))
            # Straight from the state, no dict made on the way; the optional extras (canasta/1.1
            # history and public facts) come last, as in the observation.
            obs_text = observation_wire(self._state, self.seat)
            if self._caps & _OBSERVATION_EXTRAS:
                obs = self.observation()
                obs_text = obs_text[:-1] + "".join(
                    f',"{key}":{_dumps(obs[key])}' for key in _OBSERVATION_EXTRAS_ORDER
                    if key in obs) + "}"
            self._wire = (
                f'{{"type":"act","game":{self.game},"id":{self.id},"seat":{self.seat},'
                f'"observation":{obs_text},"moves":[{moves_text}],'
                f'"deadline_ms":{self.deadline_ms},"bank_ms":{self.bank_ms}}}\n'
            ).encode()
        return self._wire


Asked = dict[str, Any] | ActRequest  # what a seat is asked: a plain message, or to act


def asked_id(msg: Asked) -> Any:
    """The id of the request a seat is asked (None for a message without one)."""
    return msg.id if isinstance(msg, ActRequest) else msg.get("id")


def act_message(game: int, request: int, state: GameState, moves: list[Move],
                deadline_ms: int, bank_ms: int, explains: bool = False,
                caps: frozenset[str] = frozenset()) -> ActRequest:
    """The request to act.  ``explains`` attaches ``explain``, ``sequence`` and ``ahead`` for
    a person's prompt; no other seat gets them (they close over the state)."""
    msg = ActRequest(game, request, state, moves, deadline_ms, bank_ms, caps)
    if explains:
        msg.explain = partial(_explain, state)
        msg.sequence = partial(_sequence, state)
        msg.ahead = partial(_ahead, state)
    return msg


def _ahead(state: GameState, texts: list[str]) -> Any:
    """The turn after held melds (``protocol/ahead.py``); for people only, like ``explain``."""
    from .ahead import ahead
    return ahead(state, texts)


def _explain(state: GameState, move: Move) -> str:
    """Why ``move`` is not legal for the player to act: it reads only that player's hand and
    the table, so an in-process seat may use it to explain a refused move before sending."""
    from ..core.explain import explain
    return explain(state, move)


def _sequence(state: GameState, moves: list[Move]) -> tuple[int, str] | None:
    """Whether the player to act can play all of ``moves`` in turn (a person's line of
    several moves is played whole or not at all); like ``explain``, for people only."""
    from ..core.engine import check_sequence
    return check_sequence(state, moves)


_STOPPERS = (DEUCE, JOKER, BLACK3)
_OBSERVATION_EXTRAS_ORDER = ("history", "public")
_OBSERVATION_EXTRAS = frozenset(_OBSERVATION_EXTRAS_ORDER)
_JSON_BOOL = ("false", "true")
_PHASE_TEXT = {p: f'"{p.value}"' for p in Phase}


@lru_cache(maxsize=64)
def _json_text(value: str) -> str:
    return encode_basestring(value)


@lru_cache(maxsize=4096)
def _cards_text(cards: tuple[int, ...]) -> str:
    """A hand as JSON, in display order (card texts need no escaping)."""
    if not cards:
        return "[]"
    return '["' + '","'.join([TEXT_OF[c] for c in display_sorted(cards)]) + '"]'


def _ints(values: Any) -> str:
    return ",".join(map(str, values))


def observation_wire(state: GameState, seat: int) -> str:
    """``_dumps(observation(state, seat, history=False))``, byte for byte, written straight
    from the state: the request to act is the referee's hot path, and most of an observation
    (hands, melds, names) is the same text as at the seat's last turn."""
    global _TABLE_TEXT
    rules = state.rules
    row = state.team[seat]
    top = state.pile[-1] if state.pile else None
    permission = state.permission
    table = _TABLE_TEXT  # one read: fields and texts that belong together, whatever the thread
    if not (table[0] is state.melds and table[1] is state.red3 and table[2] is state.scores
            and table[3] is state.minfo and table[4] is state.team
            and table[5] is (state.phase is Phase.GAME_OVER) and table[6] is state.minimums
            and table[7] is rules):
        table = _TABLE_TEXT = _table_text(state)
    text = (
        f'{{"seat":{seat},"side":{rules.side_of(seat)},"players":{rules.players},'
        f'"rules":{_json_text(rules.name)},"hand_no":{state.hand_no},"dealer":{state.dealer},'
        f'"phase":{_PHASE_TEXT[state.phase]},"to_act":{state.actor},"turn_seat":{state.turn_seat},'
        f'"hand":{_cards_text(state.hands[seat])},'
        f'"hand_counts":[{_ints(map(len, state.hands))}],"melds":[{table[8]}],'
        f'"red_threes":[{table[9]}],'
        f'"pile_top":{"null" if top is None else chr(34) + TEXT_OF[top] + chr(34)},'
        f'"pile_size":{len(state.pile)},"pile_frozen":{_JSON_BOOL[state.pile_frozen]},'
        f'"pile_frozen_for_me":{_JSON_BOOL[frozen_against(state, row)]},'
        f'"pile_stopped":{_JSON_BOOL[top is not None and KIND_OF[top] in _STOPPERS]},'
        f'"stock_size":{len(state.stock)},"scores":[{table[10]}],'
        f'"minimums":[{table[11]}],'
        f'"side_melded":[{table[12]}],'
        f'"turn":{{"took_pile":{_JSON_BOOL[state.took_pile]},'
        f'"opening_total":{state.opening_total},"asked":{_JSON_BOOL[state.asked]},'
        f'"permission":{"null" if permission is None else _JSON_BOOL[permission]}}}'
    )
    if rules.cutthroat:
        lone = "null" if state.lone is None else state.lone
        text += f',"lone_hand":{lone},"meld_side":[{_ints(state.team)}]'
    if state.phase is Phase.GAME_OVER:
        winner = "null" if state.winner is None else state.winner
        reason = "null" if state.game_end_reason is None else _json_text(state.game_end_reason)
        text += f',"winner":{winner},"end_reason":{reason}'
    return text + "}"


def _table_text(state: GameState) -> tuple[Any, ...]:
    """The observation's table parts as JSON text (melds, red threes, scores, minimums, which
    rows hold a meld), with the state fields they are read from: most requests in a row
    (every seat's, and a turn's decisions) find the table unchanged."""
    rules = state.rules
    melds = ",".join("[" + ",".join([_meld_text(m) for m in r if m is not None]) + "]"
                     for r in state.melds)
    # Kept in the state for the hand being played; recomputed once the game is over.
    minimums = state.minimums if state.phase is not Phase.GAME_OVER else [
        rules.initial_minimum(s) for s in state.scores]
    side_melded = [state.side_has_melded(state.team[s] if rules.cutthroat else s)
                   for s in range(rules.sides)]
    return (state.melds, state.red3, state.scores, state.minfo, state.team,
            state.phase is Phase.GAME_OVER, state.minimums, rules, melds,
            ",".join([_red_text(r) for r in state.red3]), _ints(state.scores), _ints(minimums),
            ",".join([_JSON_BOOL[m] for m in side_melded]))


_TABLE_TEXT: tuple[Any, ...] = (None,) * 13


def _red_text(cards: tuple[int, ...]) -> str:
    """Red threes in the order they were laid (not display order)."""
    if not cards:
        return "[]"
    return '["' + '","'.join([TEXT_OF[c] for c in cards]) + '"]'


def _meld_text(meld: MeldState) -> str:
    text = meld._wire
    if text is None:
        text = _dumps(meld.to_json())
        object.__setattr__(meld, "_wire", text)
    return text


def error_message(request: int | None, code: SeatStatus, message: str, retry: bool
                  ) -> dict[str, Any]:
    msg: ErrorMessage = {"type": "error", "id": request, "code": code, "message": message,
                         "retry": retry}
    return _plain(msg)


def game_end_message(game: int, state: GameState, statuses: list[SeatStatus]) -> dict[str, Any]:
    msg: GameEndMessage = {"type": "game_end", "game": game, "winner": state.winner,
                           "reason": state.game_end_reason, "scores": list(state.scores),
                           "hands": len(state.results), "statuses": list(statuses)}
    return _plain(msg)


def bye_message() -> dict[str, Any]:
    msg: ByeMessage = {"type": "bye"}
    return _plain(msg)
