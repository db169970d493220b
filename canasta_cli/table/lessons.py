"""``canasta learn``: short lessons, each a situation set up from a stacked deck, a question
and a judge.  The rules core decides what is legal (a refused move is explained by it, as
at the table); the judge says whether a legal answer is the one the lesson teaches, and why.

Pure: no I/O here (the command reads, prints and keeps the progress)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..core import (
    CLASSIC,
    GameState,
    Move,
    apply,
    format_move,
    new_game,
    parse_deck_text,
    parse_move,
)
from ..core.cards import BLACK3, DEUCE, JOKER, KIND_OF, KIND_VALUE, parse_kind
from ..core.moves import Add, Ask, Discard, Draw, Meld, TakePile
from ..core.scoring import HandResult

Judge = Callable[[GameState, list[Move]], "tuple[bool, str]"]
NumberJudge = Callable[[GameState, int], "tuple[bool, str]"]


@dataclass(frozen=True)
class Step:
    """One question: ``intro`` sets it; ``judge`` weighs a legal answer (a line of moves),
    or for a question whose answer is a number, ``number`` weighs the number."""

    intro: str
    judge: Judge | None = None
    after: tuple[str, ...] = ()  # moves the other players make once it is answered right
    number: NumberJudge | None = None  # a question whose answer is a number


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


def _after(state: GameState, moves: list[Move]) -> GameState:
    return play_texts(state, [format_move(m) for m in moves])


def _went_out(state: GameState, moves: list[Move]) -> HandResult | None:
    """The hand's result if ``moves`` took the learner out, else None."""
    after = _after(state, moves)
    if after.results and after.results[-1].hand_no == state.hand_no \
            and after.results[-1].went_out == 0:
        return after.results[-1]
    return None


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


def _reaching(example: str, why: str = "") -> Judge:
    """A first meld line that reaches the side's minimum (``example`` does)."""

    def judge(state: GameState, moves: list[Move]) -> tuple[bool, str]:
        minimum = _minimum(state)
        melds = [m for m in moves if isinstance(m, Meld)]
        total = sum(_value(m) for m in melds)
        if not melds:
            return False, (f"nothing was melded. Lay down melds worth {minimum} or more, e.g."
                           f" {example}")
        if total >= minimum:
            return True, (f"{_said(melds)} makes {total}: at least the {minimum} your side"
                          " needs for its first melds. Its later melds need no minimum."
                          + why)
        return False, (f"{_said(melds)} makes only {total} of {minimum}. Kings count 10,"
                       f" aces 20: {example} is enough.")
    return judge


def _wild_meld(state: GameState, moves: list[Move]) -> tuple[bool, str]:
    meld = next((m for m in moves if isinstance(m, Meld)), None)
    if meld is None:
        return False, "meld your two 7s with a wild card: meld 7 7 2 (or meld 7 7 Jo)."
    wilds = meld.deuces + meld.jokers
    if wilds == 0:
        return False, "that meld has no wild card: meld 7 7 2 uses the 2 as a third 7."
    return True, (f"{format_move(meld)}: {meld.naturals} natural cards and {wilds} wild one."
                  " Never more wild cards than natural ones, never more than three.")


def _draws_red_three(state: GameState, moves: list[Move]) -> tuple[bool, str]:
    if isinstance(moves[0], Draw):
        return True, ("the 3\u2666 you drew was laid down beside the 3\u2665 at once, and"
                      " you drew another card in its place: you hold 12 cards, as after any"
                      " draw.")
    return False, "draw from the stock."


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


def _stops(state: GameState, moves: list[Move]) -> tuple[bool, str]:
    move = moves[-1]
    size = len(state.pile) + 1
    if not isinstance(move, Discard):
        return False, "end your turn with a discard: the black three, 3\u2663."
    if move.kind == BLACK3:
        return True, (f"with a black three on top nobody may take the pile: Left has to draw,"
                      f" and the {size} cards wait. It stops only the next player: once"
                      " covered by another card it does nothing more.")
    if move.kind == parse_kind("8"):
        return False, (f"Left's side has melded 8s: Left lays your 8 on them and takes all"
                       f" {size} cards. A black three on top stops Left, whatever Left holds:"
                       " discard 3")
    return False, ("Left could take the pile with two cards of that rank, or one and a wild"
                   " card (Left's side has melded: the pile is not frozen for them). A black"
                   " three on top stops Left, whatever Left holds: discard 3")


def _keeps(state: GameState, moves: list[Move]) -> tuple[bool, str]:
    meld = next((m for m in moves if isinstance(m, Meld)), None)
    last = moves[-1]
    if meld is None:
        return False, "meld three of your 9s, then discard: meld 9 9 9; discard 5"
    if not isinstance(last, Discard):
        return False, "end your turn with a discard: meld 9 9 9; discard 5"
    if last.kind == parse_kind("9"):
        return True, ("you melded and kept a card to discard and one to keep. Keeping the 9"
                      " rather than the 5 would have been better: it joins your 9s next"
                      " turn.")
    return True, ("you kept two cards after melding: the 5 to discard and a 9 that joins"
                  " your 9s next turn. Melding all four 9s would have left one card, the"
                  " discard, and nothing to keep: only going out may empty your hand.")


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


def _goes_out(example: str) -> Judge:
    def judge(state: GameState, moves: list[Move]) -> tuple[bool, str]:
        if _went_out(state, moves) is not None:
            return True, ("every card is melded but the last, discarded: you went out. Going"
                          " out is worth 100 more and ends the hand; the others count their"
                          " cards against them.")
        return False, f"that does not use all your cards: {example} goes out."
    return judge


def _goes_out_concealed(state: GameState, moves: list[Move]) -> tuple[bool, str]:
    result = _went_out(state, moves)
    example = "meld Q Q Q Q Q Q Q; meld 10 10 10 10; discard 5"
    if result is None:
        return False, f"that does not use all your cards: {example} goes out."
    if not result.sides[0].concealed_canastas:
        return False, ("you went out concealed (200), but you built the queens by additions:"
                       " a canasta earns the 100 of a concealed one only when it is laid down"
                       f" whole, in one meld: {example}")
    return True, ("seven queens laid down at once from your hand: a concealed canasta, 500"
                  " and 100 more; and your whole hand melded in one turn with nothing melded"
                  " before: going out concealed, 200 instead of 100.")


def _hand_total(state: GameState, given: int) -> tuple[bool, str]:
    right = state.results[-1].sides[0].total
    if given == right:
        return True, f"{right}: the hand total is the sum of every row."
    return False, (f"your side scored {right}: add up every row of the table, the cards left"
                   " counting against you.")


def _game_total(state: GameState, given: int) -> tuple[bool, str]:
    side, other = state.scores[0], state.scores[1]
    hand = state.results[-1].sides[0].total
    if given == side:
        return True, (f"{side - hand} and this hand's {hand} make {side}: your side has reached"
                      f" 5,000, so the game is over, and the higher total wins: yours, {side}"
                      f" to {other}.")
    return False, (f"your side has {side}: the {side - hand} it had and this hand's {hand}"
                   " (the sum of every row of the table).")


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
           (Step("A meld is three or more cards of one rank (4 to ace; threes are special)."
                 " Your side's first melds of a hand must be worth a minimum (50 at a score"
                 " of 0): kings and queens count 10, aces 20. Type your melds in one line,"
                 " separated by ';'.", _reaching("meld K K K; meld A A A")),),
           setup=("draw",)),
    Lesson("wild", "Wild cards",
           "seat0: 7h 7d 2c Ks 9h 5c 6d Qc 10s 8c Jh\nstock: 4d 4s\n",
           (Step("2s and jokers are wild: they stand for any rank in a meld, but a meld holds"
                 " at least two natural cards, never more wild cards than natural ones and"
                 " at most three. Your side is at -100, so its first meld needs only 15."
                 " Meld your two 7s with the 2.", _wild_meld),),
           setup=("draw",), scores=(-100, 0)),
    Lesson("redthree", "Red threes",
           "seat0: 3h Kh Kd Kc Ah Ad 9c 9d 7s 6h 5c\nstock: 10h Qs 3d Ac\n",
           (Step("Red threes (3\u2665 3\u2666) are bonus cards, never kept in hand: the"
                 " 3\u2665 you were dealt is already laid down for your side (see 'Us: red"
                 " threes'), and you were given another card in its place. The top card of"
                 " the stock is a red three too: draw.", _draws_red_three),
            Step("Each red three is worth 100 to its side (all four: 800), but only if the"
                 " side melds in this hand: if it has not melded when the hand ends, its red"
                 " threes count against it. Make yours count: lay down your side's first"
                 " melds (50 or more).",
                 _reaching("meld K K K; meld A A A", " Your side has melded, so its red"
                           " threes will count for it: 200, not -200.")))),
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
    Lesson("blackthree", "Black threes stop the pile",
           "seat0: 3c 8d Kh Kd Qh Qd Jh Jd 9c 9d 5c\nseat1: 8h 8h 8s 8s 8c 4c 4d 6c 6d 7c 7d\n"
           "stock: 10h 4s 10c 6h 7h Js\n",
           (Step("Black threes (3\u2660 3\u2663) are stop cards: with one on top, nobody may"
                 " take the pile. They are never melded, except three or four together by a"
                 " player going out, and each left in your hand costs 5. Left's side has"
                 " melded 8s and the pile has grown: end your turn with the discard Left"
                 " cannot take the pile with, whatever Left holds.", _stops),),
           setup=("draw", "discard 4", "draw", "meld 8 8 8 8 8", "discard 10", "draw",
                  "discard 6", "draw", "discard 7", "draw")),
    Lesson("keep", "Keeping a card to discard",
           "seat0: Kh Kd Kc Ks Ah Ad Ac 9h 9d 9s 5c\nstock: 10h Jc 4d 6d 7d 9c\n",
           (Step("Only a player who goes out may empty the hand, and going out needs a"
                 " canasta. Until then, whatever you meld, keep at least two cards: one to"
                 " discard and one to keep. Your side has no canasta yet; you hold four 9s"
                 " and a 5. Meld, and discard.", _keeps),),
           setup=("draw", "meld K K K K", "meld A A A", "discard J", "draw", "discard 4",
                  "draw", "discard 6", "draw", "discard 7", "draw")),
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
                 " discard it (or meld them all). Playing with a partner (four or six"
                 " players), you may first ask 'may I go out?' (ask), after drawing and"
                 " before melding; the answer binds you. With two or three players there is"
                 " no such question. Ask your partner.", _asks, after=("yes",)),
            Step("Your partner said yes: you must go out this turn. Use every card, in one"
                 " line.", _goes_out("meld 9 9 9; add K; discard 6"))),
           setup=("draw", "meld K K K K K K K", "discard 4", "draw", "discard 5", "draw",
                  "discard 6", "draw", "discard 7", "draw")),
    Lesson("concealed", "Concealed canastas, going out concealed",
           "seat0: Qh Qd Qc Qs Qh Qd Qc 10h 10d 10c 5c\nstock: 8h 10s\n",
           (Step("A canasta laid down whole from your hand, in one meld, is concealed: 100"
                 " more than its bonus. Going out concealed earns 200 instead of 100, and"
                 " needs no minimum: you meld your whole hand in one turn, a canasta of your"
                 " own among it, having melded nothing before in the hand, taken no pile this"
                 " turn and added nothing to your partner's melds. You have melded nothing"
                 " yet: go out concealed, in one line.", _goes_out_concealed),),
           setup=("draw",)),
    Lesson("score", "Scoring a hand",
           "seat0: Kh Kd Kc Ks Kh Kd Kc 9h 9d 9s 4c\nseat1: 5h\nseat2: 6d\nseat3: 7h\n"
           "stock: 5s 6h 8d 8h 10c Ks\n",
           (Step("The hand is over: you went out. Your side scores its melded cards, 300"
                 " or 500 for each canasta (100 more for a concealed one), 100 for going out"
                 " (200 concealed) and 100 for each red three; the cards left in your"
                 " partner's hand count against you. The table above shows every part: what"
                 " did your side score in all this hand?", number=_hand_total),),
           setup=("draw", "meld K K K K K K K", "discard 4", "draw", "discard 5", "draw",
                  "discard 6", "draw", "discard 7", "draw", "meld 9 9 9", "add K",
                  "discard 6")),
    Lesson("minimum", "The minimum grows with the score",
           "seat0: Ah Ad Ac Kh Kd Kc 9h 9d 9c 5c 6c\nstock: 10h 7s\n",
           (Step("The minimum for a side's first melds grows with its total at the start of"
                 " the hand: below 0, 15; from 0, 50; from 1,500, 90; from 3,000, 120. Your"
                 " side has 1,600 (the table says what it needs): lay down its first melds.",
                 _reaching("meld A A A; meld K K K")),),
           setup=("draw",), scores=(1600, 2400)),
    Lesson("game", "Winning the game: 5,000",
           "seat0: Qh Qd Qc Qs Jh Jd Jc 9h 9d 9c 5c\nseat2: Kh Kd Kc Ks Kh Kd Kc Ah Ad Ac 4c\n"
           "stock: 10h 6s 7s 8s 6h Js\n",
           (Step("A game is played to 5,000 points: after a hand in which a side reaches"
                 " 5,000, the game is over and the higher total wins (equal totals play on)."
                 " Your side has 4,700,"
                 " and your partner has melded a canasta: go out, in one line.",
                 _goes_out("meld Q Q Q Q; meld J J J J; meld 9 9 9; discard 5")),
            Step("The hand is over. Your side had 4,700 before it: the table shows what it"
                 " scored in this hand. What is your side's total now?", number=_game_total)),
           setup=("draw", "discard 6", "draw", "discard 7", "draw", "meld K K K K K K K",
                  "meld A A A", "discard 8", "draw", "discard 6", "draw"),
           scores=(4700, 4300)),
)


def find(key: str) -> Lesson | None:
    """A lesson by its number (1, 2...) or its key (draw, meld...)."""
    if key.isdigit() and 1 <= int(key) <= len(LESSONS):
        return LESSONS[int(key) - 1]
    return next((lesson for lesson in LESSONS if lesson.key == key.lower()), None)


__all__ = ["LESSONS", "Judge", "Lesson", "NumberJudge", "Step", "find", "play_texts"]
