"""A seat's status, as reports and ``game_end`` messages carry it: string-valued, so the wire
and the records keep the very same text (``SeatStatus.OK == "OK"``)."""

from __future__ import annotations

from enum import StrEnum


class SeatStatus(StrEnum):
    OK = "OK"                          # no failure in this game
    TIMEOUT = "TIMEOUT"                # no legal move within the time allowed
    CRASHED = "CRASHED"                # the bot's process ended, or the player raised
    PROTOCOL_ERROR = "PROTOCOL_ERROR"  # a line that is not a valid message
    ILLEGAL_MOVE = "ILLEGAL_MOVE"      # a move not among the listed ones


FAILURES = (SeatStatus.TIMEOUT, SeatStatus.CRASHED, SeatStatus.PROTOCOL_ERROR,
            SeatStatus.ILLEGAL_MOVE)
