"""The move notation for people and logs: the one place that prints and reads moves.

The table of moves is NOTATION_HELP (a constant, not this docstring: a compiled module has none).
"""

from __future__ import annotations

from .cards import BLACK3, DEUCE, JOKER, KIND_TEXT, RED3, CardParseError, parse_kind
from .errors import CanastaError
from .moves import (
    ASK,
    DRAW,
    END,
    NO,
    YES,
    Add,
    Answer,
    Ask,
    Discard,
    Draw,
    EndHand,
    Meld,
    Move,
    TakePile,
)

NOTATION_HELP = """The move notation for people and logs: the one place that prints and reads moves.

    draw                 draw from the stock
    pile                 take the pile, laying its top card on your side's meld
    pile K K [2 Jo ...]  take the pile, melding its top card with these cards from your hand
    meld K K 2           lay down a new meld (suits may be written, e.g. Kh, and are ignored)
    meld 3 3 3           the black-three set, only when going out
    add 7                add a natural 7 to your side's 7s;  add 7 2 / add 7 Jo adds a wild card
    discard 9            discard a 9 (discard 9h is accepted too)
    ask / yes / no       the permission question and its answer
    end                  decline the pile with no stock left, or stop after a last red three
"""


class NotationError(CanastaError):
    """Text that is not a move; the message says what was expected.

    Text that names a real move the rules forbid (``meld 3h 3h 3h``, ``meld 3 3 2``,
    ``pile Q Q`` under a king) reads as that move, and ``apply`` refuses it with an
    ``IllegalMoveError`` and the rule's reason: one kind of refusal per kind of mistake."""


def _text(kind: int) -> str:
    """A kind as a move token; a red three (never in a legal move) as ``3h``, so it reads back."""
    return "3h" if kind == RED3 else KIND_TEXT[kind]


def _tokens(rank: int, naturals: int, deuces: int, jokers: int) -> list[str]:
    return ([_text(rank)] * naturals + [KIND_TEXT[DEUCE]] * deuces
            + [KIND_TEXT[JOKER]] * jokers)


def format_move(move: Move) -> str:
    """A move as its notation, which ``parse_move`` reads back.

    >>> format_move(Meld(9, 2, 1))
    'meld K K 2'
    >>> format_move(TakePile(8, 2, 0, 1)), format_move(Add(3, 12)), format_move(Discard(5))
    ('pile Q Q Jo', 'add 7 Jo', 'discard 9')
    >>> parse_move(format_move(Add(3, 12)))
    Add(rank=3, kind=12)
    """
    if isinstance(move, Draw):
        return "draw"
    if isinstance(move, TakePile):
        toks = _tokens(move.rank, move.naturals, move.deuces, move.jokers)
        return "pile" if not toks else "pile " + " ".join(toks)
    if isinstance(move, Meld):
        return "meld " + " ".join(_tokens(move.rank, move.naturals, move.deuces, move.jokers))
    if isinstance(move, Add):
        if move.kind == move.rank:
            return f"add {_text(move.rank)}"
        return f"add {_text(move.rank)} {_text(move.kind)}"
    if isinstance(move, Discard):
        return f"discard {_text(move.kind)}"
    if isinstance(move, Ask):
        return "ask"
    if isinstance(move, Answer):
        return "yes" if move.yes else "no"
    if isinstance(move, EndHand):
        return "end"
    raise TypeError(f"not a move: {move!r}")


_VERBS = "draw, pile, meld, add, discard, ask, yes, no, end"
_SIMPLE: dict[str, Move] = {"draw": DRAW, "ask": ASK, "yes": YES, "y": YES, "no": NO, "n": NO,
                            "end": END}


def _kinds(tokens: list[str]) -> list[int]:
    try:
        return [parse_kind(t) for t in tokens]
    except CardParseError as exc:
        raise NotationError(str(exc)) from None


def _shape(kinds: list[int], what: str) -> tuple[int, int, int, int]:
    """(rank, naturals, deuces, jokers) of a group of kinds that must share one rank."""
    deuces = kinds.count(DEUCE)
    jokers = kinds.count(JOKER)
    ranks = sorted({k for k in kinds if k not in (DEUCE, JOKER)})
    if not ranks:
        raise NotationError(f"{what} needs natural cards of one rank, not only wild cards")
    if len(ranks) > 1:
        names = " and ".join("red 3" if r == RED3 else "black 3" if r == BLACK3 else KIND_TEXT[r]
                             for r in ranks)
        raise NotationError(f"{what} must be of a single rank, not {names}")
    rank = ranks[0]
    return rank, len(kinds) - deuces - jokers, deuces, jokers


def parse_move(text: str, top_rank: int | None = None) -> Move:
    """Read one move.  A bare ``pile`` needs ``top_rank``, the rank on top of the pile.

    >>> parse_move("meld K K 2")
    Meld(rank=9, naturals=2, deuces=1, jokers=0)
    >>> parse_move("discard 9h"), parse_move("pile", top_rank=9)
    (Discard(kind=5), TakePile(rank=9, naturals=0, deuces=0, jokers=0))
    >>> parse_move("meld K Q")
    Traceback (most recent call last):
        ...
    canasta_cli.core.notation.NotationError: a meld must be of a single rank, not Q and K
    """
    words = text.strip().split()
    if not words:
        raise NotationError(f"empty move: expected one of {_VERBS}")
    verb, args = words[0].lower(), words[1:]
    if verb in _SIMPLE:
        if args:
            raise NotationError(f"'{verb}' takes no cards")
        return _SIMPLE[verb]
    if verb == "pile":
        if not args:
            if top_rank is None:
                raise NotationError("a bare 'pile' needs to know the top card of the pile")
            return TakePile(top_rank)
        rank, n, d, j = _shape(_kinds(args), "the cards taken with the pile")
        return TakePile(rank, n, d, j)
    if verb == "meld":
        if not args:
            raise NotationError("'meld' needs the cards to meld, e.g. 'meld K K 2'")
        rank, n, d, j = _shape(_kinds(args), "a meld")
        return Meld(rank, n, d, j)
    if verb == "add":
        kinds = _kinds(args)
        if len(kinds) == 1 and kinds[0] not in (DEUCE, JOKER):
            return Add(kinds[0], kinds[0])
        if len(kinds) == 2 and kinds[0] not in (DEUCE, JOKER):
            return Add(kinds[0], kinds[1])
        raise NotationError("'add' takes the meld's rank and a card: 'add 7', 'add 7 2', 'add 7 Jo'")
    if verb == "discard":
        if len(args) != 1:
            raise NotationError("'discard' takes exactly one card, e.g. 'discard 9'")
        return Discard(_kinds(args)[0])
    raise NotationError(f"unknown move {words[0]!r}: expected one of {_VERBS}")
