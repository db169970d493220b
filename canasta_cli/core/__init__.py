"""The pure rules core: no I/O, no clock, no global randomness.

Public API::

    state = new_game(preset("classic"), seed=7)
    moves = legal_moves(state)          # the only judge of legality
    state = apply(state, moves[0])      # returns a new state; raises IllegalMoveError otherwise
    observation(state, seat)            # what that seat may see
"""

from .cards import CardParseError, card_text, parse_card_sequence, parse_kind
from .deal import DeckError, shuffled_deck
from .deckfile import DeckFileError, deck_from_seats, parse_deck_text
from .engine import IllegalMoveError, apply, new_game
from .errors import CanastaError
from .events import Event
from .legality import legal_moves
from .moves import Add, Answer, Ask, Discard, Draw, EndHand, Meld, Move, TakePile
from .notation import NOTATION_HELP, NotationError, format_move, parse_move
from .observation import observation
from .rules import CLASSIC, PRESETS, RulesError, Ruleset, describe, parse_option, preset
from .scoring import HandResult, SideScore
from .state import GameState, MeldState, Phase

__all__ = [
    "CLASSIC", "NOTATION_HELP", "PRESETS", "Add", "Answer", "Ask", "CanastaError", "CardParseError",
    "DeckError",
    "DeckFileError", "Discard", "Draw", "EndHand", "Event", "GameState", "HandResult",
    "IllegalMoveError", "Meld", "MeldState", "Move", "NotationError", "Phase", "Ruleset",
    "RulesError", "SideScore", "TakePile", "apply", "card_text", "deck_from_seats", "describe",
    "format_move", "legal_moves", "new_game", "observation", "parse_card_sequence",
    "parse_deck_text", "parse_kind", "parse_move", "parse_option", "preset", "shuffled_deck",
]
