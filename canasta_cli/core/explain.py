"""Why a move is not legal, in a sentence a person understands.

This module only explains: legality itself is decided by ``legal_moves``.  ``apply`` calls
``explain`` after a move was found missing from the legal list.
"""

from __future__ import annotations

from .cards import BLACK3, DEUCE, JOKER, KIND_OF, KIND_TEXT, N_KINDS, RED3, is_natural_kind
from .legality import frozen_against, hand_counts, pile_blocker, situation
from .moves import Add, Answer, Ask, Discard, Draw, EndHand, Meld, Move, TakePile
from .state import GameState, Phase


def _name(kind: int) -> str:
    return {DEUCE: "2", JOKER: "joker", BLACK3: "black 3", RED3: "red 3"}.get(kind, KIND_TEXT[kind])


def _names_red_three(move: Move) -> bool:
    if isinstance(move, (Meld, TakePile)):
        return move.rank == RED3
    if isinstance(move, Add):
        return RED3 in (move.rank, move.kind)
    if isinstance(move, Discard):
        return move.kind == RED3
    return False


def explain(state: GameState, move: Move) -> str:
    """Why ``move``, which ``legal_moves(state)`` does not list, may not be played: the
    message of ``apply``'s ``IllegalMoveError``.

    >>> from canasta_cli.core import apply, new_game, parse_move
    >>> state = new_game("classic", seed=33)  # seat 2 holds 4 4 2 2 K K K; a 4 on the pile
    >>> explain(state, parse_move("meld K K K"))
    "first draw from the stock ('draw') or take the pile ('pile ...')"
    >>> explain(state, TakePile(9, 2))
    'the top card of the pile is a 4, not a K'
    >>> explain(apply(state, "draw"), Add(9, 9))
    'your side has no K meld to add to'
    """
    reason = malformed(move)
    if reason is not None:
        return reason
    reason = _reason(state, move)
    if reason is None:
        return "that move would leave no legal way to finish your turn"
    return reason


def malformed(move: object) -> str | None:
    """Why ``move`` is no move at all (an unknown type, a field that is not an int, a kind
    out of range, a negative count), before any rule is asked: such a move reaches the
    engine only through the API, never through the notation.  ``apply`` asks this before
    comparing a move with the listed ones, because equality would take ``Discard(True)``
    for ``Discard(1)`` and ``Meld(9, 3.0)`` for ``Meld(9, 3)``.

    >>> malformed(Discard(True))
    'kind True is not a card kind: kinds are whole numbers from 0 (4) to 14 (red 3)'
    >>> malformed(Meld(9, 3.0))
    'naturals must be a whole number of cards, 0 or more, not 3.0'
    >>> malformed(Meld(9, 3)) is None
    True
    """
    if not isinstance(move, (Draw, TakePile, Meld, Add, Discard, Ask, Answer, EndHand)):
        return f"{type(move).__name__} is not a move (see canasta_cli.core.moves)"
    kinds: tuple[tuple[str, object], ...] = ()
    counts: tuple[tuple[str, object], ...] = ()
    if isinstance(move, (Meld, TakePile)):
        kinds = (("rank", move.rank),)
        counts = (("naturals", move.naturals), ("deuces", move.deuces), ("jokers", move.jokers))
    elif isinstance(move, Add):
        kinds = (("rank", move.rank), ("kind", move.kind))
    elif isinstance(move, Discard):
        kinds = (("kind", move.kind),)
    elif isinstance(move, Answer) and type(move.yes) is not bool:
        return f"an answer is yes or no (True or False), not {move.yes!r}"
    for name, value in kinds:
        if type(value) is not int or not 0 <= value < N_KINDS:
            return (f"{name} {value!r} is not a card kind: kinds are whole numbers from 0"
                    f" ({KIND_TEXT[0]}) to {N_KINDS - 1} (red 3)")
    for name, value in counts:
        if type(value) is not int or value < 0:
            return f"{name} must be a whole number of cards, 0 or more, not {value!r}"
    return None


def _reason(state: GameState, move: Move) -> str | None:  # noqa: C901 - one branch per rule
    phase = state.phase
    rules = state.rules
    if phase is Phase.GAME_OVER:
        return "the game is over"
    if phase is Phase.ANSWER:
        if isinstance(move, Answer):
            return None
        return "your partner asked 'may I go out?': answer yes or no"
    if isinstance(move, Answer):
        return "nobody has asked you 'may I go out?'"
    if _names_red_three(move):
        return ("red threes are laid face up as soon as they come to you (and replaced): no move"
                " melds, adds, takes or discards one")
    seat = state.turn_seat
    side = state.team[seat]
    hc = hand_counts(state.hands[seat])
    minimum = rules.initial_minimum(state.scores[rules.side_of(seat)])
    if phase is Phase.DRAW:
        if isinstance(move, (Meld, Add, Discard, Ask)):
            if not state.stock:
                return "first take the pile, or 'end' the hand: the stock is empty"
            return "first draw from the stock ('draw') or take the pile ('pile ...')"
        if isinstance(move, Draw):
            return "the stock is empty: take the pile or 'end' the hand"
        if isinstance(move, EndHand):
            if state.stock:
                return "you may end the hand only when the stock is empty"
            return ("with the stock empty you must take the pile: it is not frozen against your"
                    " side and its top card matches one of your side's melds")
        if isinstance(move, TakePile):
            return _take_reason(state, move, hc, minimum)
    if isinstance(move, (Draw, TakePile)):
        return "you have already drawn this turn"
    if isinstance(move, EndHand):
        if phase is not Phase.MELD_NO_DISCARD:
            return "'end' is only for declining the pile when the stock is empty"
        if state.permission is True or state.committed_out:
            return "you must go out this turn"
        return f"your melds this turn total {state.opening_total}, below the minimum of {minimum}"
    if isinstance(move, Ask):
        if not rules.permission_question:
            return "there is no permission question in this game"
        if state.asked:
            return "you have already asked this turn"
        if state.acted:
            return "you may ask only before melding this turn"
        return "you may ask only when you could go out this turn"
    if isinstance(move, Discard):
        if phase is Phase.PILE_OPENING:
            return (f"your side's first meld must reach {minimum} from the top card and your hand"
                    f" before you pick up the pile (so far {state.opening_total})")
        if phase is Phase.MELD_NO_DISCARD:
            return "after a red three as the last stock card you may not discard"
        if move.kind == RED3 or hc[move.kind] == 0:
            return f"you hold no {_name(move.kind)}"
        s = situation(state)
        if s.hand_n == 1:
            if state.permission is False:
                return "your partner said no: you may not go out this turn"
            return (f"discarding your last card would be going out, which needs "
                    f"{rules.canastas_to_go_out} canasta(s) (your side has {s.canastas})")
        if state.permission is True:
            return "your partner said yes: you must go out this turn"
        if state.committed_out:
            return "you melded black threes, which is allowed only when going out this turn"
        if s.need > 0:
            return (f"your melds this turn total {state.opening_total}, below your side's minimum"
                    f" of {minimum}: meld more before you discard")
        return None
    if isinstance(move, Meld):
        return _meld_reason(state, move, hc, side)
    if isinstance(move, Add):
        return _add_reason(state, move, hc, side)
    return None


def _composition(naturals: int, wilds: int, maxw: int, c4: bool) -> str | None:
    if naturals + wilds < 3:
        return "a meld needs at least 3 cards"
    if naturals < 2:
        return "a meld needs at least 2 natural cards"
    if wilds > maxw:
        return f"a meld may hold at most {maxw} wild cards"
    if c4 and wilds > naturals:
        return "a meld may not hold more wild cards than natural cards"
    return None


def _lacks(hc: list[int], rank: int, n: int, d: int, j: int) -> str | None:
    for kind, want in ((rank, n), (DEUCE, d), (JOKER, j)):
        if want > hc[kind]:
            return f"you hold {hc[kind]} {_name(kind)}, not {want}"
    return None


def _take_reason(state: GameState, mv: TakePile, hc: list[int], minimum: int) -> str | None:
    blocked = pile_blocker(state)
    if blocked:
        return blocked
    rules = state.rules
    side = state.team[state.turn_seat]
    top = KIND_OF[state.pile[-1]]
    if mv.rank != top:
        return f"the top card of the pile is a {_name(top)}, not a {_name(mv.rank)}"
    lack = _lacks(hc, mv.rank, mv.naturals, mv.deuces, mv.jokers)
    if lack:
        return lack
    existing = state.melds[side][top]
    if frozen_against(state, side):
        why = ("your side has not melded yet" if not state.side_has_melded(side)
               else "it holds a wild card" + (" or red three" if rules.buried_red3_freezes else ""))
        if hc[top] < 2:
            return (f"the pile is frozen against your side ({why}): you need a natural pair of"
                    f" {_name(top)} in your hand")
        if mv.naturals < 2:
            return (f"the pile is frozen against your side ({why}): take it with a natural pair,"
                    f" e.g. 'pile {KIND_TEXT[top]} {KIND_TEXT[top]}'")
    if existing is not None:
        if mv.deuces or mv.jokers or mv.naturals:
            return (f"your side already has a {_name(top)} meld: take the pile with 'pile' "
                    + ("plus the natural pair " if frozen_against(state, side) else "")
                    + "and add further cards afterwards")
    else:
        if mv.naturals == 0 or (mv.naturals == 1 and mv.deuces + mv.jokers == 0):
            return (f"to take the pile you need two {_name(top)} from your hand, or one and a wild"
                    " card")
        problem = _composition(mv.naturals + 1, mv.deuces + mv.jokers, rules.max_wilds_per_meld,
                               rules.wild_le_natural)
        if problem:
            return problem
    if not state.side_has_melded(side):
        return (f"your side's first meld must reach {minimum} using the top card and cards from"
                " your hand only, and no further melds from your hand get there")
    return None


def _meld_reason(state: GameState, mv: Meld, hc: list[int], side: int) -> str | None:
    rules = state.rules
    if is_natural_kind(mv.rank) and state.melds[side][mv.rank] is not None:
        return (f"your side already has a {_name(mv.rank)} meld: add to it with"
                f" 'add {KIND_TEXT[mv.rank]}'")
    if mv.rank == BLACK3:
        if mv.deuces or mv.jokers:
            return "black threes are melded alone, never with wild cards"
        if mv.naturals < 3:
            return "black threes may be melded only as a set of three or more"
    elif is_natural_kind(mv.rank):
        problem = _composition(mv.naturals, mv.deuces + mv.jokers, rules.max_wilds_per_meld,
                               rules.wild_le_natural)
        if problem:
            return problem
    lack = _lacks(hc, mv.rank, mv.naturals, mv.deuces, mv.jokers)
    if lack:
        return lack
    if mv.rank == BLACK3:
        if state.melds[side][BLACK3] is not None:
            return "your side already has its black-three set: one set per side"
        if state.permission is False:
            return "your partner said no: black threes may be melded only when going out"
        return "black threes may be melded only when you go out this turn with them"
    if not is_natural_kind(mv.rank):
        return "a meld is built on a natural rank (4 to A)"
    problem = _composition(mv.naturals, mv.deuces + mv.jokers, rules.max_wilds_per_meld,
                           rules.wild_le_natural)
    if problem:
        return problem
    return _after_reason(state)


def _add_reason(state: GameState, mv: Add, hc: list[int], side: int) -> str | None:
    rules = state.rules
    if mv.rank == BLACK3:
        return ("nothing can be added to black threes: they are melded only as one set, when"
                " going out")
    meld = state.melds[side][mv.rank] if 0 <= mv.rank < len(state.melds[side]) else None
    if meld is None:
        return f"your side has no {_name(mv.rank)} meld to add to"
    if mv.kind not in (mv.rank, DEUCE, JOKER):
        return f"only a {_name(mv.rank)} or a wild card can go on the {_name(mv.rank)} meld"
    if hc[mv.kind] == 0:
        return f"you hold no {_name(mv.kind)}"
    if mv.kind in (DEUCE, JOKER):
        problem = _composition(meld.naturals, meld.wilds + 1, rules.max_wilds_per_meld,
                               rules.wild_le_natural)
        if problem:
            return problem
    return _after_reason(state)


def _after_reason(state: GameState) -> str | None:
    s = situation(state)
    minimum = s.minimum
    if state.phase is Phase.PILE_OPENING or (s.opening and s.started and s.need > 0):
        return (f"after it your side could no longer reach its minimum of {minimum} this turn"
                " and still keep a card to discard")
    if s.opening and not s.started:
        return (f"your side has not melded: its first melds this turn must reach the minimum of {minimum} and"
                " leave you a card to discard")
    if state.permission is True:
        return "your partner said yes: every move must keep going out possible"
    if state.permission is False:
        return "your partner said no: you must keep at least two cards so as to discard one"
    return (f"you must keep at least two cards unless you can go out, and going out needs "
            f"{state.rules.canastas_to_go_out} canasta(s)")
