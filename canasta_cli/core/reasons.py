"""Why a hand or a game ended: string-valued enums, so that records and the wire carry the
very same text as before (``GameEnd.TARGET == "target"``, and JSON writes ``"target"``)."""

from __future__ import annotations

from enum import StrEnum


class HandEnd(StrEnum):
    WENT_OUT = "went_out"                # a player went out
    STOCK_EXHAUSTED = "stock_exhausted"  # no stock left and the pile not taken
    LAST_RED_THREE = "last_red_three"    # the last stock card was a red three
    TURN_LIMIT = "turn_limit"            # the ruleset's max_turns was reached


class GameEnd(StrEnum):
    TARGET = "target"          # one side reached the target
    DRAW = "draw"              # the leaders are tied at or above the target (tie_policy=draw)
    HAND_LIMIT = "hand_limit"  # the ruleset's max_hands were played
    TURN_LIMIT = "turn_limit"  # the ruleset's max_turns was reached
    # Set by the referee, never by the engine:
    FORFEIT = "forfeit"        # a bot failed and the policy was 'forfeit'
    SAVED = "saved"            # a person stopped the game; its record is the save
    UNFINISHED = "unfinished"  # the game stopped early (an error, an interrupt)


GOES_ON = frozenset({GameEnd.SAVED, GameEnd.UNFINISHED})  # a game that may be resumed
