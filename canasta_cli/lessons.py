"""``canasta learn``: short lessons, each a situation set up from a stacked deck, a question
and a judge.  The rules core decides what is legal (a refused move is explained by it, as
at the table); the judge says whether a legal answer is the one the lesson teaches, and why.

Pure: no I/O here (the command reads, prints and keeps the progress)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .core import (
    CLASSIC,
    GameState,
    Move,
    apply,
    format_move,
    new_game,
    parse_deck_text,
    parse_move,
)
from .core.cards import DEUCE, JOKER, KIND_OF, KIND_VALUE, parse_kind
from .core.moves import Add, Ask, Discard, Draw, Meld, TakePile

Judge = Callable[[GameState, list[Move]], "tuple[bool, str]"]


@dataclass(frozen=True)
class Step:
    """One question: ``intro`` sets it, ``judge`` weighs a legal answer (a line of moves,
    or for a ``number`` question the number in ``Meld``-free form, see ``ask_number``)."""

    intro: str
    judge: Judge
    after: tuple[str, ...] = ()  # moves the other players make once it is answered right
    number: Callable[[GameState], int] | None = None  # a question whose answer is a number


@dataclass(frozen=True)
class Lesson:
    key: str
    title: str
    deck: str
    steps: tuple[Step, ...]
    setup: tuple[str, ...] = ()  # moves played before the first question
    scores: tuple[int, int] | None = None
    dealer: int = 3  # seat 0, the learner, plays first
    rules: object = field(default=CLASSIC)

    def start(self) -> GameState:
        """The situation of the first question."""
        decks = parse_deck_text(self.deck, CLASSIC, dealer=self.dealer, seed=1)
        state = new_game(CLASSIC, seed=1, decks=decks, dealer=self.dealer,
                         scores=list(self.scores) if self.scores else None)
        return play_texts(state, self.setup)


def play_texts(state: GameState, texts: tuple[str, ...] | list[str]) -> GameState:
    for text in texts:
        top = KIND_OF[state.pile[-1]] if state.pile else None
        state = apply(state, parse_move(text, top_rank=top))
    return state


def _value(move: Meld) -> int:
    return (KIND_VALUE[move.rank] * move.naturals + KIND_VALUE[DEUCE] * move.deuces
            + KIND_VALUE[JOKER] * move.jokers)


def _minimum(state: GameState) -> int:
    return state.rules.initial_minimum(state.scores[state.rules.side_of(0)])


def _said(moves: Sequence[Move]) -> str:
    return "; ".join(format_move(m) for m in moves)


# The judges -------------------------------------------------------------------------------

def _draws(state: GameState, moves: list[Move]) -> tuple[bool, str]:
    if isinstance(moves[0], Draw):
        return True, "'draw' takes the top card of the stock. Every turn begins with a draw."
    return False, "here the pile cannot help you: draw from the stock."


def _lone_discard(state: GameState, moves: list[Move]) -> tuple[bool, str]:
    move = moves[-1]
    if not isinstance(move, Discard) or len(moves) > 1:
        return False, "end this turn with one discard, and keep the rest for later melds."
    held = state.hc[0][move.kind]
    if held == 1:
        return True, ("a lone card is the discard that costs least: pairs are kept, they"
                      " become melds when the third card comes.")
    return False, (f"you hold {held} of those: a pair is half a meld. Discard a card you hold"
                   " only one of.")


def _reaches_minimum(state: GameState, moves: list[Move]) -> tuple[bool, str]:
    minimum = _minimum(state)
    melds = [m for m in moves if isinstance(m, Meld)]
    total = sum(_value(m) for m in melds)
    if not melds:
        return False, (f"nothing was melded. Lay down melds worth {minimum} or more, e.g."
                       " meld K K K; meld A A A")
    if total >= minimum:
        return True, (f"{_said(melds)} makes {total}: at least the {minimum} your side needs"
                      " for its first melds. Its later melds need no minimum.")
    return False, (f"{_said(melds)} makes only {total} of {minimum}. Kings count 10, aces 20:"
                   " meld K K K; meld A A A makes 90.")


def _wild_meld(state: GameState, moves: list[Move]) -> tuple[bool, str]:
    meld = next((m for m in moves if isinstance(m, Meld)), None)
    if meld is None:
        return False, "meld your two 7s with a wild card: meld 7 7 2 (or meld 7 7 Jo)."
    wilds = meld.deuces + meld.jokers
    if wilds == 0:
        return False, "that meld has no wild card: meld 7 7 2 uses the 2 as a third 7."
    return True, (f"{format_move(meld)}: {meld.naturals} natural cards and {wilds} wild one."
                  " Never more wild cards than natural ones, never more than three.")


def _takes_pile(state: GameState, moves: list[Move]) -> tuple[bool, str]:
    size = len(state.pile)
    if isinstance(moves[0], TakePile):
        return True, (f"you meld the top card with your pair and take all {size} cards of the"
                      " pile: more cards, more melds.")
    return False, (f"drawing gives you one card; with a pair matching the top card you could"
                   f" have taken all {size} of the pile: pile K K")


def _takes_frozen(state: GameState, moves: list[Move]) -> tuple[bool, str]:
    if isinstance(moves[0], TakePile):
        return True, ("a natural pair matching the top card takes even a frozen pile (a wild"
                      " card in it); with a wild card you could not have.")
    return False, ("you hold two natural queens: they take even a frozen pile. pile Q Q")


def _canasta(state: GameState, moves: list[Move]) -> tuple[bool, str]:
    add = next((m for m in moves if isinstance(m, Add) and m.rank == parse_kind("K")), None)
    if add is None:
        return False, "add your last king to the kings: add K. Seven cards make a canasta."
    if add.kind == add.rank:
        return True, ("seven kings and no wild card: a natural canasta, 500 points of bonus"
                      " (a mixed one, with wild cards, is worth 300).")
    return True, ("seven cards: a canasta, but a mixed one (300) because of the wild card;"
                  " add K would have made it natural (500).")


def _asks(state: GameState, moves: list[Move]) -> tuple[bool, str]:
    if isinstance(moves[0], Ask):
        return True, ("your partner answers for your side: 'yes' and you must go out this"
                      " turn, 'no' and you may not.")
    return False, "first ask your partner: ask"


def _goes_out(state: GameState, moves: list[Move]) -> tuple[bool, str]:
    after = play_texts(state, [format_move(m) for m in moves])
    if after.results and after.results[-1].hand_no == state.hand_no \
            and after.results[-1].went_out == 0:
        return True, ("every card is melded but the last, discarded: you went out. Going out"
                      " is worth 100 more and ends the hand; the others count their cards"
                      " against them.")
    return False, ("that does not use all your cards: meld 9 9 9; add K; discard 6 goes out.")


def _hand_total(state: GameState) -> int:
    return state.results[-1].sides[0].total


def _scored(state: GameState, moves: list[Move]) -> tuple[bool, str]:
    return True, ""  # a number question: judged by Step.number


LESSONS: tuple[Lesson, ...] = (
    Lesson("draw", "Drawing and discarding",
           "seat0: Kh Kd 9c 9d 7s 6h 5c 4d 8h Jc Qd\nstock: 10h Qs\n",
           (Step("A turn begins with a draw from the stock (or, when it helps, taking the"
                 " discard pile) and ends with one discard. The pile's top card is 10\u2665 and"
                 " you hold no 10: draw from the stock.", _draws),
            Step("Now end your turn with a discard. Keep your pairs: they become melds."
                 " Discard a card you hold only one of.", _lone_discard))),
    Lesson("meld", "Melds and the minimum",
           "seat0: Kh Kd Kc Ah Ad Ac 9h 5c 6d 7s 8c\nstock: 4d 4s 4h\n",
           (Step("A meld is three or more cards of one rank. Your side's first melds of a hand"
                 " must be worth a minimum (50 at a score of 0): kings and queens count 10,"
                 " aces 20. Type your melds in one line, separated by ';'.",
                 _reaches_minimum),), setup=("draw",)),
    Lesson("wild", "Wild cards",
           "seat0: 7h 7d 2c Ks 9h 5c 6d Qc 10s 8c Jh\nstock: 4d 4s\n",
           (Step("2s and jokers are wild: they stand for any rank in a meld, but a meld holds"
                 " at least two natural cards, never more wild cards than natural ones and"
                 " at most three. Your side is at -100, so its first meld needs only 15."
                 " Meld your two 7s with the 2.", _wild_meld),),
           setup=("draw",), scores=(-100, 0)),
    Lesson("pile", "Taking the pile",
           "seat0: Kh Kd 9h 5c 6d 7s 8c Qc Jd 10s 4h\nseat1: 5h\nseat2: 6h\nseat3: Kc\n"
           "stock: Qs 8d 8h 9c 9d\n",
           (Step("Instead of drawing you may take the whole discard pile: meld its top card"
                 " at once with two cards of that rank from your hand. The top card is K\u2663"
                 " and you hold two kings (your side's first meld needs only 15 here).",
                 _takes_pile),),
           setup=("draw", "discard 4", "draw", "discard 5", "draw", "discard 6", "draw",
                  "discard K"), scores=(-100, 0)),
    Lesson("frozen", "A frozen pile",
           "seat0: Qd Qs 9h 5c 6d 7s 8c Jc Jd 10s 4h\nstock: 2c Qh 8d\n",
           (Step("A wild card in the pile freezes it (2\u2663 was turned up first, then"
                 " Q\u2665): then only a natural pair matching the top card may take it,"
                 " never a wild card. Can you take it?", _takes_frozen),),
           scores=(-100, 0)),
    Lesson("canasta", "Canastas",
           "seat0: Kh Kd Kc Ks Kh Kd Kc 9h 9d 5c 4c\nseat1: 5h\nseat2: 6h\nseat3: 7h\n"
           "stock: 8s 8d 8h 9c Jd 10c\n",
           (Step("A meld of seven or more cards is a canasta, worth a bonus: 500 without wild"
                 " cards (natural), 300 with (mixed). Your side's kings have six cards; you"
                 " hold a seventh king.", _canasta),),
           setup=("draw", "meld K K K K K K", "discard 4", "draw", "discard 5", "draw",
                  "discard 6", "draw", "discard 7", "draw")),
    Lesson("out", "Going out, and \"may I go out?\"",
           "seat0: Kh Kd Kc Ks Kh Kd Kc 9h 9d 9s 4c\nseat1: 5h\nseat2: 6d\nseat3: 7h\n"
           "stock: 5s 6h 8d 8h 10c Ks\n",
           (Step("Your side has a canasta, so you may go out: meld all your cards but one and"
                 " discard it. With a partner you may first ask 'may I go out?' (ask):"
                 " the answer binds you.", _asks, after=("yes",)),
            Step("Your partner said yes: you must go out this turn. Use every card, in one"
                 " line.", _goes_out)),
           setup=("draw", "meld K K K K K K K", "discard 4", "draw", "discard 5", "draw",
                  "discard 6", "draw", "discard 7", "draw")),
    Lesson("score", "Scoring a hand",
           "seat0: Kh Kd Kc Ks Kh Kd Kc 9h 9d 9s 4c\nseat1: 5h\nseat2: 6d\nseat3: 7h\n"
           "stock: 5s 6h 8d 8h 10c Ks\n",
           (Step("The hand is over: you went out. Your side scores its melded cards, 300"
                 " or 500 for each canasta, 100 for going out and 100 for each red three;"
                 " the cards left in your partner's hand count against you. The table above"
                 " shows every part: what did your side score in all this hand?",
                 _scored, number=_hand_total),),
           setup=("draw", "meld K K K K K K K", "discard 4", "draw", "discard 5", "draw",
                  "discard 6", "draw", "discard 7", "draw", "meld 9 9 9", "add K",
                  "discard 6")),
)


def find(key: str) -> Lesson | None:
    """A lesson by its number (1, 2...) or its key (draw, meld...)."""
    if key.isdigit() and 1 <= int(key) <= len(LESSONS):
        return LESSONS[int(key) - 1]
    return next((lesson for lesson in LESSONS if lesson.key == key.lower()), None)


__all__ = ["LESSONS", "Lesson", "Step", "find", "play_texts"]
