"""The public facts of the hand in progress, kept up to date event by event.

The same facts as ``core.facts.public_facts`` (cards known in each hand, each seat's
discards, the pile, the cards not seen), but incremental and by card kind, because an
environment step cannot afford to re-read the history.  Two feeds drive one tracker:
engine events (the environment) and event views as the protocol sends them
(``as_player``).  Only public fields are read, so every seat's view gives the same facts.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ..core import events as ev
from ..core.cards import CARDS_PER_DECK, KIND_OF, N_KINDS, RED3, full_deck

_FACE_OF_TEXT: dict[str, int] = {}


def face_of_text(text: str) -> int:
    """A card text (``Kh``, ``Jo``) as its card id in the first deck; suits matter here."""
    if not _FACE_OF_TEXT:
        from ..core.cards import TEXT_OF
        _FACE_OF_TEXT.update((TEXT_OF[c], c) for c in range(CARDS_PER_DECK))
    try:
        return _FACE_OF_TEXT[text]
    except (KeyError, TypeError):
        raise ValueError(f"not a card: {str(text)[:20]!r}") from None


class PublicTracker:
    """Per hand, by kind (``N_KINDS`` counts):

    * ``known``: seat-major bytes, for seat s ``known[s*15:(s+1)*15]``: cards certainly in
      its hand (picked up with the pile, no card of that face played since);
    * ``discards``: the same layout, each seat's discards this hand;
    * ``pile_counts``: the discard pile;
    * ``hidden``: the pack less every card laid on the table (melds, red threes), the pile
      and the known cards: what no seat has seen face up.  A seat has not seen
      ``hidden + known[seat] - its hand`` (the ``unseen`` field);
    * ``known_ints``: per seat, its ``known`` counts read as one little-endian integer (the
      encoder's byte-wise sum for ``unseen``), kept as ``known`` changes;
    * ``rel``: per seat, the vector's last two fields as that seat sees them (the ``known``
      of the other seats, then every seat's ``discards``, in playing order from it), as
      four views into ``known`` and ``discards`` (each field is a rotation of the seat-major
      counts, so two pieces of each): always current, and no event writes them per seat.

    Every count is below 256 (a pack has at most 162 cards; a seat discards at most once a
    turn, and a hand has fewer turns than draws and pile takes, each of which moves a
    card), so they are bytes, ready for the observation vector.
    """

    __slots__ = ("players", "decks", "pack", "known", "known_faces", "discards", "pile", "pile_counts",
                 "hidden", "known_ints", "rel", "_pending")

    def __init__(self, players: int, decks: int) -> None:
        self.players = players
        self.decks = decks
        self.pack = _pack(decks)
        self._pending: tuple[int, tuple[int, ...]] | None = None
        self.reset()

    def reset(self) -> None:
        n = self.players
        self.known = bytearray(n * N_KINDS)
        self.known_faces: list[dict[int, int]] = [{} for _ in range(n)]
        self.discards = bytearray(n * N_KINDS)
        self.pile: list[int] = []
        self.pile_counts = bytearray(N_KINDS)
        self.hidden = bytearray(self.pack)
        self.known_ints = [0] * n
        self._pending = None
        self._relate()

    def _relate(self) -> None:
        """Views for ``rel``, over the current ``known`` and ``discards`` (which are then
        never resized, only written in place, until replaced by a reset or a copy)."""
        k = N_KINDS
        known, discards = memoryview(self.known), memoryview(self.discards)
        self.rel = [(known[(s + 1) * k:], known[:s * k], discards[s * k:], discards[:s * k])
                    for s in range(self.players)]

    def __reduce__(self) -> tuple[Any, ...]:
        """For ``copy.deepcopy`` and pickle: the counts, from which ``rel``'s views are made
        again (views cannot be copied or pickled)."""
        return (_rebuilt, (self.players, self.decks,
                           {name: getattr(self, name) for name in _COUNTS}))

    def copy(self) -> PublicTracker:
        new = PublicTracker(self.players, self.decks)
        new.known = bytearray(self.known)
        new.known_faces = [dict(k) for k in self.known_faces]
        new.discards = bytearray(self.discards)
        new.pile = list(self.pile)
        new.pile_counts = bytearray(self.pile_counts)
        new.hidden = bytearray(self.hidden)
        new.known_ints = list(self.known_ints)
        new._pending = self._pending
        new._relate()
        return new

    def known_of(self, seat: int) -> list[int]:
        return list(self.known[seat * N_KINDS:(seat + 1) * N_KINDS])

    def discards_of(self, seat: int) -> list[int]:
        return list(self.discards[seat * N_KINDS:(seat + 1) * N_KINDS])

    def facts(self, seat: int) -> bytes:
        """The ``known`` of the other seats then every seat's ``discards``, in playing
        order from ``seat`` (the vector's last two fields)."""
        return b"".join(self.rel[seat])

    # The facts, one method per kind of public event -------------------------------------
    # (cards are ids of any deck, or faces: kinds and faces are read from either)

    def _forget(self, seat: int, card: int) -> None:
        """``card`` (an id of any deck: known cards go by face) left ``seat``'s hand."""
        faces = self.known_faces[seat]
        face = card % CARDS_PER_DECK
        n = faces.get(face) if faces else None
        if n:
            if n == 1:
                del faces[face]
            else:
                faces[face] = n - 1
            kind = KIND_OF[face]
            self.known[seat * N_KINDS + kind] -= 1
            self.known_ints[seat] -= 1 << (8 * kind)
            self.hidden[kind] += 1  # it goes on the table or the pile, counted there

    def _flush(self) -> None:
        """A meld not followed by a pile take from the same seat: its cards left the hand."""
        pending = self._pending
        if pending is not None:
            self._pending = None
            if self.known_faces[pending[0]]:
                for f in pending[1]:
                    self._forget(pending[0], f)
            self._on_table(pending[1])

    def _on_table(self, faces: tuple[int, ...]) -> None:
        hidden = self.hidden
        for f in faces:
            hidden[KIND_OF[f]] -= 1

    def upcard(self, face: int) -> None:
        if self._pending is not None:
            self._flush()
        kind = KIND_OF[face]
        self.pile.append(kind)
        self.pile_counts[kind] += 1
        self.hidden[kind] -= 1

    def discard(self, seat: int, face: int) -> None:
        if self._pending is not None:
            self._flush()
        if self.known_faces[seat]:
            self._forget(seat, face)
        kind = KIND_OF[face]
        self.pile.append(kind)
        self.pile_counts[kind] += 1
        self.hidden[kind] -= 1
        self.discards[seat * N_KINDS + kind] += 1

    def meld(self, seat: int, faces: tuple[int, ...]) -> None:
        """Settled by the next event: a pile take from the same seat means the meld holds
        the pile's top card and the cards it names."""
        self._flush()
        self._pending = (seat, faces)

    def took_pile(self, seat: int, top: int, faces: tuple[int, ...]) -> None:
        pending = self._pending
        if pending is not None and pending[0] == seat:
            self._pending = None  # the new meld of the top card with these
        else:
            self._flush()  # the top card joins a meld the side already has
        if self.pile:
            kind = self.pile.pop()
            self.pile_counts[kind] -= 1
            self.hidden[kind] += 1  # out of the pile, onto the table just below
        if self.known_faces[seat]:
            for f in faces:
                self._forget(seat, f)
        self._on_table((top, *faces))

    def picked_up(self, seat: int, faces: tuple[int, ...]) -> None:
        self._flush()
        known, at, counts = self.known_faces[seat], seat * N_KINDS, self.known
        for f in faces:
            face = f % CARDS_PER_DECK
            known[face] = known.get(face, 0) + 1
            counts[at + KIND_OF[f]] += 1
        self.known_ints[seat] = int.from_bytes(counts[at:at + N_KINDS], "little")
        self.pile = []  # the pile became known cards: ``hidden`` does not change
        self.pile_counts = bytearray(N_KINDS)

    def added(self, seat: int, face: int) -> None:
        if self._pending is not None:
            self._flush()
        if self.known_faces[seat]:
            self._forget(seat, face)
        self.hidden[KIND_OF[face]] -= 1

    def red_three(self, seat: int, face: int, from_pile: bool) -> None:
        self._flush()
        if from_pile:
            self._forget(seat, face)
        self.hidden[RED3] -= 1

    def settle(self) -> None:
        """Before reading the facts: every event of the last move has arrived."""
        self._flush()

    # Feeds --------------------------------------------------------------------------------

    def feed(self, event: ev.Event) -> None:
        """An engine event (only its public fields are read)."""
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)
        elif self._pending is not None:
            self._flush()

    def feed_view(self, event: dict[str, Any]) -> None:
        """An event as the protocol sends it (any seat's view: only public fields are read)."""
        kind = event.get("type")
        seat = event.get("seat")
        if kind == "hand_started":
            self.reset()
            return
        if kind == "upcard":
            self.upcard(face_of_text(event["card"]))
            return
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            self._flush()
            return
        if kind == "discard":
            self.discard(seat, face_of_text(event["card"]))
        elif kind == "meld":
            self.meld(seat, tuple(face_of_text(c) for c in event["cards"]))
        elif kind == "add":
            self.added(seat, face_of_text(event["card"]))
        elif kind == "took_pile":
            self.took_pile(seat, face_of_text(event["top"]),
                           tuple(face_of_text(c) for c in event["with"]))
        elif kind == "picked_up":
            self.picked_up(seat, tuple(face_of_text(c) for c in event["cards"]))
        elif kind == "red_three":
            self.red_three(seat, face_of_text(event["card"]), event.get("source") == "pile")
        else:
            self._flush()




# What a tracker holds besides its size and ``rel`` (the views of ``known`` and ``discards``).
_COUNTS = ("known", "known_faces", "discards", "pile", "pile_counts", "hidden", "known_ints",
           "_pending")


def _rebuilt(players: int, decks: int, counts: dict[str, Any]) -> PublicTracker:
    """A tracker with these counts (``PublicTracker.__reduce__``)."""
    t = PublicTracker(players, decks)
    for name, value in counts.items():
        setattr(t, name, value)
    t._relate()
    return t


@lru_cache(maxsize=8)
def _pack(decks: int) -> bytes:
    """The pack's count of each kind."""
    pack = [0] * N_KINDS
    for c in full_deck(decks):
        pack[KIND_OF[c]] += 1
    return bytes(pack)

# Engine events carry card ids of every deck: the tracker reads kinds and faces of those
# (``KIND_OF`` covers every id; a known card is matched by face).
def _discarded(t: PublicTracker, e: ev.Discarded) -> None:
    t.discard(e.seat, e.card)


_HANDLERS: dict[type, Callable[[PublicTracker, Any], None]] = {
    ev.Discarded: _discarded,
    ev.Melded: lambda t, e: t.meld(e.seat, tuple(e.cards)),
    ev.Added: lambda t, e: t.added(e.seat, e.card),
    ev.PileTaken: lambda t, e: t.took_pile(e.seat, e.top, tuple(e.with_cards)),
    ev.PilePickedUp: lambda t, e: t.picked_up(e.seat, tuple(e.cards)),
    ev.RedThreeLaid: lambda t, e: t.red_three(e.seat, e.card, e.source == "pile"),
    ev.UpcardTurned: lambda t, e: t.upcard(e.card),
    ev.HandStarted: lambda t, e: t.reset(),
}
