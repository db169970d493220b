"""Seats: one interface for in-process players, subprocess bots, people at the prompt and
remote seats at a served table."""

from .base import Seat, SeatFailure
from .factory import make_seat
from .launching import bot_environment
from .policy import PolicySeat, builtin_seat
from .subprocess_seat import SubprocessSeat

__all__ = ["PolicySeat", "Seat", "SeatFailure", "SubprocessSeat", "bot_environment",
           "builtin_seat", "make_seat"]
