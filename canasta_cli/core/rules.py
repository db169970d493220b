"""The ruleset: every rule option as data, and the named presets.

One frozen object decides every disputed point, so a game record that carries its ruleset
replays identically and `canasta rules` can print exactly what is in force.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from .errors import CanastaError
from .pickling import by_fields

UpcardCover = Literal["any_three_or_wild", "red_three_or_wild"]
Red3Timing = Literal["after_deal", "first_turn"]
LastCardRed3 = Literal["end_now", "meld_no_discard"]
ForcedTake = Literal["matches_meld", "any_legal"]
TiePolicy = Literal["play_on", "draw"]


class RulesError(CanastaError):
    """An impossible or unknown rule option."""


@dataclass(frozen=True)
class Ruleset:
    """All rule options.  Field names are the lower-case flags of the rules reference (§16).

    >>> CLASSIC.players, CLASSIC.decks, CLASSIC.sides, CLASSIC.target
    (4, 2, 2, 5000)
    >>> rules = CLASSIC.with_options(canastas_to_go_out=2)  # a new Ruleset; CLASSIC is frozen
    >>> rules.canastas_to_go_out, rules.initial_minimum(1600)
    (2, 90)
    >>> preset("six-player").decks, preset("six-player").initial_minimum(8000)
    (3, 150)
    >>> Ruleset(players=5)
    Traceback (most recent call last):
        ...
    canasta_cli.core.rules.RulesError: players must be 2, 3, 4 or 6, not 5
    """

    name: str = "classic"
    players: int = 4
    target: int = 5000
    hand_size: int = 11
    draw_count: int = 1
    canastas_to_go_out: int = 1
    upcard_cover: UpcardCover = "any_three_or_wild"
    buried_red3_freezes: bool = True
    buried_black3_freezes: bool = False
    black3_discard_freezes: bool = False
    initial_red3_timing: Red3Timing = "after_deal"
    wild_le_natural: bool = True
    max_wilds_per_meld: int = 3
    concealed_canasta_bonus: int = 100
    going_out_bonus: int = 100
    concealed_going_out_bonus: int = 200
    concealed_forbids_pile: bool = True
    concealed_waives_minimum: bool = True
    one_card_pile_rule: bool = True
    last_card_red3: LastCardRed3 = "end_now"
    exhausted_forced_take: ForcedTake = "matches_meld"
    red3_no_meld_all_four: int = -800
    permission_enabled: bool = True
    permission_fail_penalty: int = 100
    tie_policy: TiePolicy = "play_on"
    six_player_150_threshold: int = 7500
    max_hands: int = 200
    max_turns: int = 20000
    cutthroat: bool = False
    three_partnerships: bool = False  # six players as three partnerships of two (§14.3)

    def __post_init__(self) -> None:
        problems = list(_problems(self))
        if problems:
            raise RulesError("; ".join(problems))

    # Derived facts -------------------------------------------------------------------------
    @property
    def decks(self) -> int:
        return 3 if self.players == 6 else 2

    @property
    def deck_size(self) -> int:
        return 54 * self.decks

    @property
    def partnerships(self) -> bool:
        return self.players in (4, 6)

    @property
    def sides(self) -> int:
        if self.three_partnerships:
            return 3
        return 2 if self.partnerships else self.players

    @property
    def permission_question(self) -> bool:
        return self.partnerships and self.permission_enabled

    def side_of(self, seat: int) -> int:
        return seat % self.sides if self.partnerships else seat

    def seats_of(self, side: int) -> tuple[int, ...]:
        return tuple(s for s in range(self.players) if self.side_of(s) == side)

    def partner_to_ask(self, seat: int) -> int:
        """The teammate asked "may I go out?": the partner, or in six-player the next teammate
        (with three partnerships of two, the partner opposite)."""
        if self.three_partnerships:
            return (seat + 3) % self.players
        return (seat + 2) % self.players

    @property
    def six_player_150(self) -> bool:
        """The 150 minimum belongs to six players in two partnerships of three (the
        10,000-point game); three partnerships of two keep 120 from 3,000 (docs/RULES.md)."""
        return self.players == 6 and not self.three_partnerships

    def initial_minimum(self, score: int) -> int:
        if score < 0:
            return 15
        if self.six_player_150 and score >= self.six_player_150_threshold:
            return 150
        if score >= 3000:
            return 120
        if score >= 1500:
            return 90
        return 50

    def red_three_points(self, count: int, side_has_melded: bool) -> int:
        """Red-three score for a side holding ``count`` of them (sign rule included)."""
        if count == 0:
            return 0
        total_red3 = 2 * self.decks
        if count == total_red3 == 4:
            return 800 if side_has_melded else self.red3_no_meld_all_four
        amount = 100 * count
        if self.players == 6 and count >= 5:
            amount = 1000 if count == 5 else 1200
        return amount if side_has_melded else -amount

    # Construction ----------------------------------------------------------------------------
    def with_options(self, **options: Any) -> Ruleset:
        unknown = sorted(set(options) - set(option_names()))
        if unknown:
            raise RulesError(
                f"unknown rule option {', '.join(unknown)}: known options are "
                + ", ".join(option_names())
            )
        return dataclasses.replace(self, **options)

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)

    def to_dict(self) -> dict[str, Any]:
        """Every option; ``cutthroat`` and ``three_partnerships`` only when on, so that records
        and messages of the other games stay exactly as they were before the options existed."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        if not self.cutthroat:
            del out["cutthroat"]
        if not self.three_partnerships:
            del out["three_partnerships"]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ruleset:
        unknown = sorted(set(data) - set(option_names()) - {"name"})
        if unknown:
            raise RulesError(f"unknown rule option {', '.join(unknown)}")
        return cls(**data)


def option_names() -> list[str]:
    return [f.name for f in dataclasses.fields(Ruleset) if f.name != "name"]


_CHOICES: dict[str, tuple[str, ...]] = {
    "upcard_cover": ("any_three_or_wild", "red_three_or_wild"),
    "initial_red3_timing": ("after_deal", "first_turn"),
    "last_card_red3": ("end_now", "meld_no_discard"),
    "exhausted_forced_take": ("matches_meld", "any_legal"),
    "tie_policy": ("play_on", "draw"),
}


def _type_name(f: dataclasses.Field[Any]) -> str:
    """A field's type as its name: text in pure Python (postponed annotations), a class in a
    compiled build."""
    t = f.type
    return t if isinstance(t, str) else getattr(t, "__name__", str(t))


def _problems(r: Ruleset) -> list[str]:
    out: list[str] = []
    for f in dataclasses.fields(r):
        value = getattr(r, f.name)
        if f.name in _CHOICES and value not in _CHOICES[f.name]:
            out.append(f"{f.name} must be one of {', '.join(_CHOICES[f.name])}, not {value!r}")
        elif _type_name(f) == "bool" and not isinstance(value, bool):
            out.append(f"{f.name} must be true or false, not {value!r}")
        elif _type_name(f) == "int" and (isinstance(value, bool) or not isinstance(value, int)):
            out.append(f"{f.name} must be a whole number, not {value!r}")
    if out:
        return out
    if r.players not in (2, 3, 4, 6):
        out.append(f"players must be 2, 3, 4 or 6, not {r.players}")
        return out
    if r.cutthroat and r.players != 3:
        out.append(f"cutthroat is a three-player game, not one for {r.players} players")
    if not 1 <= r.draw_count <= 3:
        out.append("draw_count must be 1, 2 or 3")
    if r.hand_size < 1 or r.hand_size * r.players + 20 > 54 * r.decks:
        out.append(f"hand_size {r.hand_size} leaves no stock for {r.players} players")
    if not 1 <= r.max_wilds_per_meld <= 3 * r.decks:
        out.append("max_wilds_per_meld must be at least 1")
    if r.canastas_to_go_out < 0:
        out.append("canastas_to_go_out cannot be negative")
    if r.target <= 0:
        out.append("target must be positive")
    if r.max_hands < 1:
        out.append("max_hands must be at least 1")
    if r.max_turns < 1:
        out.append("max_turns must be at least 1")
    if r.three_partnerships and r.players != 6:
        out.append("three_partnerships needs players=6 (three partnerships of two)")
    return out


CLASSIC = Ruleset()
PRESETS: dict[str, Ruleset] = {
    "classic": CLASSIC,
    "two-player": Ruleset(name="two-player", players=2, hand_size=15, draw_count=2,
                          canastas_to_go_out=2),
    "three-player": Ruleset(name="three-player", players=3, hand_size=13),
    "three-player-cutthroat": Ruleset(name="three-player-cutthroat", players=3, hand_size=13,
                                      draw_count=2, canastas_to_go_out=2, target=7500,
                                      cutthroat=True),
    "six-player": Ruleset(name="six-player", players=6, hand_size=13, target=10000,
                          canastas_to_go_out=2),
    "six-player-pairs": Ruleset(name="six-player-pairs", players=6, hand_size=13, target=7500,
                                canastas_to_go_out=2, three_partnerships=True),
    "pagat": Ruleset(name="pagat", concealed_canasta_bonus=0, wild_le_natural=False,
                     upcard_cover="red_three_or_wild"),
}


def preset(name: str) -> Ruleset:
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesError(
            f"unknown preset {name!r}: choose one of {', '.join(PRESETS)}"
        ) from None


def parse_option(text: str) -> tuple[str, Any]:
    """Read ``key=value`` as given on a command line (``--set wild_le_natural=false``)."""
    if "=" not in text:
        raise RulesError(f"rule option {text!r} must look like name=value")
    key, raw = (s.strip() for s in text.split("=", 1))
    key = key.replace("-", "_").lower()
    fields = {f.name: f for f in dataclasses.fields(Ruleset)}
    if key not in fields or key == "name":
        raise RulesError(f"unknown rule option {key!r}: known options are "
                         + ", ".join(option_names()))
    kind = _type_name(fields[key])
    if kind == "bool":
        low = raw.lower()
        if low in ("true", "yes", "on", "1"):
            return key, True
        if low in ("false", "no", "off", "0"):
            return key, False
        raise RulesError(f"{key} takes true or false, not {raw!r}")
    if kind == "int":
        try:
            return key, int(raw)
        except ValueError:
            raise RulesError(f"{key} takes a whole number, not {raw!r}") from None
    if key in _CHOICES and raw not in _CHOICES[key]:
        raise RulesError(f"{key} takes one of {', '.join(_CHOICES[key])}, not {raw!r}")
    return key, raw


def describe(r: Ruleset) -> list[tuple[str, str]]:
    """Every option in plain words, for `canasta rules`."""
    side = "side" if r.partnerships else "player"
    seats = {2: "2 players, each alone",
             3: "3 players: the first to take the pile plays alone, the other two as partners"
             if r.cutthroat else "3 players, each alone",
             4: "4 players in two partnerships, partners opposite",
             6: "6 players in three partnerships of two, partners opposite"
             if r.three_partnerships else
             "6 players in two partnerships of three, alternating"}[r.players]
    return [
        ("players", seats + f"; a pack of {r.deck_size} cards ({r.decks} decks with jokers)"),
        ("target", f"the game ends after a hand in which a {side} reaches {r.target}"),
        ("hand_size", f"{r.hand_size} cards dealt to each player"),
        ("draw_count", f"{r.draw_count} card{'s' if r.draw_count > 1 else ''} drawn from the stock"
         " per turn"),
        ("canastas_to_go_out", f"{r.canastas_to_go_out} canasta"
         f"{'s' if r.canastas_to_go_out != 1 else ''} needed before going out"),
        ("upcard_cover", "at the deal, any three or wild card turned up is covered by another"
         if r.upcard_cover == "any_three_or_wild"
         else "at the deal, only a red three or a wild card is covered; a black three may stay on top"),
        ("buried_red3_freezes", "a red three turned up at the deal freezes the pile"
         if r.buried_red3_freezes else "a red three turned up at the deal does not freeze the pile"),
        ("buried_black3_freezes", "a black three turned up at the deal freezes the pile"
         if r.buried_black3_freezes else "a black three turned up at the deal does not freeze the pile"),
        ("black3_discard_freezes", "a discarded black three freezes the pile"
         if r.black3_discard_freezes
         else "a discarded black three only stops the next player from taking the pile"),
        ("initial_red3_timing", "red threes dealt to a player are laid down and replaced right after"
         " the deal, in turn order" if r.initial_red3_timing == "after_deal"
         else "red threes dealt to a player are laid down and replaced at that player's first turn"),
        ("wild_le_natural", "a meld may never hold more wild cards than natural cards"
         if r.wild_le_natural else "a meld needs only 2 natural cards, whatever its wild cards"),
        ("max_wilds_per_meld", f"at most {r.max_wilds_per_meld} wild cards in any meld, canastas too"),
        ("concealed_canasta_bonus", "a canasta laid down whole from the hand earns"
         f" {r.concealed_canasta_bonus} extra" if r.concealed_canasta_bonus
         else "no extra bonus for a canasta laid down whole"),
        ("going_out_bonus", f"going out earns {r.going_out_bonus}"),
        ("concealed_going_out_bonus", f"going out concealed earns {r.concealed_going_out_bonus}"
         " instead"),
        ("concealed_forbids_pile", "taking the pile in the going-out turn rules out going out concealed"
         if r.concealed_forbids_pile else "a player may take the pile and still go out concealed"),
        ("concealed_waives_minimum", "going out concealed needs no initial-meld minimum"
         if r.concealed_waives_minimum else "going out concealed still needs the initial-meld minimum"),
        ("one_card_pile_rule", "a player holding one card may not take a one-card pile"
         if r.one_card_pile_rule else "a player holding one card may take a one-card pile"),
        ("last_card_red3", "a red three as the last stock card ends the hand at once"
         if r.last_card_red3 == "end_now"
         else "after a red three as the last stock card the player may meld but not discard,"
         " then the hand ends"),
        ("exhausted_forced_take", "with no stock, a player must take an unfrozen pile whose top card"
         " matches one of the side's melds" if r.exhausted_forced_take == "matches_meld"
         else "with no stock, a player must take the pile whenever it is legal"),
        ("red3_no_meld_all_four", f"all four red threes for a side with no meld score"
         f" {r.red3_no_meld_all_four}"),
        ("permission_enabled", "a player may ask the partner 'may I go out?', and the answer binds"
         if r.permission_question else "no permission question"),
        ("permission_fail_penalty", f"{r.permission_fail_penalty} if a player cannot go out after a"
         " 'yes' (cannot happen here: the question is offered only when going out is possible)"),
        ("tie_policy", "a tie at or above the target is played on with further hands"
         if r.tie_policy == "play_on" else "a tie at or above the target is a draw"),
        ("six_player_150_threshold", f"six players: minimum 150 from {r.six_player_150_threshold}"
         if r.six_player_150 else "only used with six players in two partnerships of three"),
        ("max_hands", f"a game stops after {r.max_hands} hands at most (the higher total wins)"),
        ("max_turns", f"a game stops after {r.max_turns} turns at most: the hand in progress is"
         " scored as it stands"),
        ("cutthroat", "cut-throat: until the pile is first taken everyone plays alone; the taker"
         " (or a player going out before that) is the lone hand and the other two merge their"
         " melds as partners for the rest of the hand; partners score the partnership's total,"
         " but red threes count for their owner alone; minimums go by each player's own score"
         if r.cutthroat else "off: no cut-throat partnerships"),
        ("three_partnerships", "six players in three partnerships of two, partners opposite"
         " (seats 0 and 3, 1 and 4, 2 and 5): melds, minimums, going out and scores per"
         " partnership" if r.three_partnerships else
         "off" + (": two partnerships of three, alternating" if r.players == 6 else "")),
    ]
