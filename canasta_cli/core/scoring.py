"""Hand scoring (rules reference §12): one breakdown per side, summed into the totals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import VALUE_OF
from .melds import MeldState
from .pickling import by_fields
from .reasons import HandEnd
from .rules import Ruleset


@dataclass(frozen=True, slots=True)
class SideScore:
    side: int
    meld_points: int
    natural_canastas: int
    mixed_canastas: int
    canasta_bonus: int
    concealed_canastas: int
    concealed_bonus: int
    going_out: int
    red_threes: int
    red_three_points: int
    hand_penalty: int
    total: int

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)

    def to_json(self) -> dict[str, Any]:
        return {"side": self.side, "melds": self.meld_points,
                "natural_canastas": self.natural_canastas, "mixed_canastas": self.mixed_canastas,
                "canasta_bonus": self.canasta_bonus, "concealed_canastas": self.concealed_canastas,
                "concealed_bonus": self.concealed_bonus, "going_out": self.going_out,
                "red_threes": self.red_threes, "red_three_points": self.red_three_points,
                "hand_penalty": self.hand_penalty, "total": self.total}


@dataclass(frozen=True, slots=True)
class HandResult:
    hand_no: int
    reason: HandEnd
    went_out: int | None
    concealed: bool
    sides: tuple[SideScore, ...]

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(s.total for s in self.sides)

    def to_json(self) -> dict[str, Any]:
        return {"hand": self.hand_no, "reason": self.reason, "went_out": self.went_out,
                "concealed": self.concealed, "sides": [s.to_json() for s in self.sides]}


def score_side(rules: Ruleset, side: int, melds: tuple[MeldState | None, ...],
               red3_count: int, hands: list[tuple[int, ...]], going_out: int) -> SideScore:
    """Score one side.  ``hands`` are the hands of the side's players at the end of the hand."""
    present = [m for m in melds if m is not None]
    meld_points = sum(m.value for m in present)
    natural = sum(1 for m in present if m.is_canasta and m.is_natural)
    mixed = sum(1 for m in present if m.is_canasta and not m.is_natural)
    concealed = sum(1 for m in present if m.is_canasta and m.concealed)
    canasta_bonus = 500 * natural + 300 * mixed
    concealed_bonus = rules.concealed_canasta_bonus * concealed
    red_points = rules.red_three_points(red3_count, bool(present))
    penalty = sum(VALUE_OF[c] for h in hands for c in h)
    total = meld_points + canasta_bonus + concealed_bonus + going_out + red_points - penalty
    return SideScore(side, meld_points, natural, mixed, canasta_bonus, concealed, concealed_bonus,
                     going_out, red3_count, red_points, -penalty, total)
