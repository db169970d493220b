"""Text for people: cards with suit symbols and colour, the table, score tables.

Everything here works from protocol messages (observation, event views), exactly what the
human's seat may see.  Colour follows NO_COLOR and the terminal; ``ascii`` drops symbols.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..core.cards import SUIT_SYMBOLS as SYMBOLS
from ..event_text import story
from ..seat_names import split_name

RANK_ORDER = ["Jo", "2", "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3"]


@dataclass(frozen=True)
class Style:
    color: bool = True
    ascii: bool = False

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def red(self, text: str) -> str:
        return self._wrap("31", text)

    def wild(self, text: str) -> str:
        return self._wrap("35;1", text)

    def good(self, text: str) -> str:
        return self._wrap("32", text)

    def warn(self, text: str) -> str:
        return self._wrap("33", text)

    def card(self, card: str) -> str:
        """``Kh`` as K♥ in red, wild cards marked; ``Kh`` / ``*2c`` in ASCII."""
        if card == "Jo":
            return self.wild("Jo*" if self.ascii else "Jo\u2605")
        rank, suit = card[:-1], card[-1]
        shown = rank + (suit if self.ascii else SYMBOLS[suit])
        if rank == "2":
            return self.wild(shown + "*")
        return self.red(shown) if suit in "dh" else shown


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def visible_len(text: str) -> int:
    return len(_ANSI.sub("", text))


def fit(text: str, width: int) -> str:
    """``text`` with every line longer than ``width`` columns wrapped between words (a card
    is a word: it is never cut), continuation lines indented; colour codes take no room.
    ``width`` 0 leaves the text as it is (pipes)."""
    if width <= 0:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if visible_len(line) <= width:
            out.append(line)
            continue
        indent = " " * min(len(line) - len(line.lstrip(" ")) + 4, width // 3)
        current, size = "", 0
        for word in line.split(" "):
            w = visible_len(word)
            if current and size + 1 + w > width:
                out.append(current)
                current, size = indent + word, len(indent) + w
            else:
                current, size = (current + " " + word, size + 1 + w) if current else (word, w)
        out.append(current)
    return "\n".join(out)


def plural(n: int, word: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def rank_of(card: str) -> str:
    return "Jo" if card == "Jo" else card[:-1]


def hand_line(cards: list[str], style: Style) -> str:
    """Grouped by rank, wild cards first: ``Jo★ 2♣* | A♦ | Q♣ Q♥ | 7♣ 7♥``."""
    groups: dict[str, list[str]] = {}
    for c in cards:
        groups.setdefault(rank_of(c), []).append(c)
    order = sorted(groups, key=lambda r: RANK_ORDER.index(r) if r in RANK_ORDER else 99)
    return " | ".join(" ".join(style.card(c) for c in groups[r]) for r in order)


RANK_NAMES = {"A": "Aces", "K": "Kings", "Q": "Queens", "J": "Jacks", "10": "Tens",
              "9": "Nines", "8": "Eights", "7": "Sevens", "6": "Sixes", "5": "Fives",
              "4": "Fours", "3": "Black threes"}


def meld_line(meld: dict[str, Any], style: Style) -> str:
    """``Aces ×3: A♠ A♦ ★`` (x3 in ASCII), with the canasta it is, if it is one."""
    cards = " ".join(style.card(c) for c in meld["cards"])
    n = len(meld["cards"])
    times = "x" if style.ascii else "\u00d7"
    label = f"{RANK_NAMES.get(str(meld['rank']), str(meld['rank']))} {times}{n}"
    if meld.get("canasta"):
        kind = meld["canasta"] + (" concealed" if meld.get("concealed") else "")
        label += " " + style.good(f"({kind} canasta)")
    return f"{label}: {cards}"


def seat_labels(seat: int, names: list[str], partnerships: bool) -> list[str]:
    """What a player calls each seat: You, Partner, Left, Right, Across... (a name given
    with human:NAME or NAME=COMMAND is kept), so that no screen says a bare "seat 3"."""
    n = len(names)
    relative = {2: ["You", "Opponent"],
                3: ["You", "Left", "Right"],
                4: ["You", "Left", "Partner", "Right"],
                6: ["You", "Left", "Left partner", "Across", "Right partner", "Right"]}
    table = relative.get(n, ["You", *(f"Player {k}" for k in range(1, n))])
    if not partnerships and n == 6:
        table = ["You", *(f"Player {k}" for k in range(1, n))]
    out = []
    for s in range(n):
        name = names[s] if s < len(names) else ""
        given = ""
        if s != seat and name.startswith("human:"):
            given = name.split(":", 1)[1]
        elif s != seat:
            given = split_name(name)[0]  # a seat named NAME=COMMAND
        out.append(given or table[(s - seat) % n])
    return out


def side_name(side: int, my_side: int, partnerships: bool) -> str:
    if side == my_side:
        return "us" if partnerships else "you"
    return "them" if partnerships else f"player {side}"


COMPACT_BELOW = 72  # columns: narrower terminals get the compact table


def render_table(obs: dict[str, Any], recent: list[dict[str, Any]], names: list[str],
                 style: Style, width: int = 0) -> str:
    """The table as seat ``obs["seat"]`` sees it.  Under ``COMPACT_BELOW`` columns the
    compact layout: a short header, the stock and the pile on lines of their own."""
    seat, side = obs["seat"], obs["side"]
    sides = len(obs["scores"])
    partnerships = obs["players"] in (4, 6)
    compact = 0 < width < COMPACT_BELOW
    lines = []
    labels = seat_labels(seat, names, partnerships)
    who = "you" if obs["to_act"] == seat else labels[obs["to_act"]]
    phase = obs["phase"].replace("_", " ")
    if compact:
        lines.append(style.bold(f"== Hand {obs['hand_no']} - seat {seat} - {phase} - {who}"
                                " to act =="))
    else:
        lines.append(style.bold(f"== Hand {obs['hand_no']} - seat {seat} ({names[seat]}) - "
                                f"{phase} - {who} to act =="))
    if recent:
        lines.append(style.dim("Since your last turn:"))
        for text in story(recent, lambda s: labels[s] if 0 <= s < len(labels) else f"seat {s}"):
            lines.append("  " + text)
    score_bits = []
    for s in range(sides):
        melded = "" if obs["side_melded"][s] else f", needs {obs['minimums'][s]} to meld"
        name = side_name(s, side, partnerships) if partnerships or s == side else labels[s]
        score_bits.append(f"{name} {obs['scores'][s]}{melded}")
    lines.append("Scores: " + " | ".join(score_bits))
    top = style.card(obs["pile_top"]) if obs["pile_top"] else "-"
    pile = f"Pile {plural(obs['pile_size'], 'card')}, top {top}"
    if obs["pile_stopped"]:
        three = rank_of(obs["pile_top"] or "") == "3"
        pile += style.warn(" - a black three on top: nobody may take the pile this turn"
                           if three else
                           " - a wild card on top: nobody may take the pile until it is"
                           " covered")
    elif obs["pile_frozen"]:
        pile += style.warn(" - frozen (a wild card or red three is in it)")
    elif obs["pile_frozen_for_me"]:
        pile += style.warn(" - frozen for you (your side has not melded)")
    if compact:
        lines += [f"Stock {obs['stock_size']}", pile]
    else:
        lines.append(f"Stock {obs['stock_size']} | {pile}")
    if "meld_side" in obs:
        lines += _cutthroat_lines(obs, labels, style)
    else:
        for s in range(sides):
            red = " ".join(style.card(c) for c in obs["red_threes"][s]) or "-"
            lines.append(f"{side_name(s, side, partnerships).capitalize()}: red threes {red}")
            for meld in obs["melds"][s]:
                lines.append("    " + meld_line(meld, style))
    counts = ", ".join(f"{labels[i]}: {n}" for i, n in enumerate(obs["hand_counts"]) if i != seat)
    lines.append(f"{'Hands' if compact else 'Cards in hand'}: {counts}")
    turn = obs["turn"]
    if turn["permission"] is not None:
        lines.append(style.warn("Your partner said " + ("YES: you must go out this turn"
                                                        if turn["permission"] else
                                                        "NO: you may not go out this turn")))
    if not obs["side_melded"][side] and turn["opening_total"] and obs["turn_seat"] == seat:
        lines.append(f"Melded this turn toward the minimum: {turn['opening_total']}"
                     f" of {obs['minimums'][side]}")
    lines.append(style.bold(f"Your hand ({len(obs['hand'])}): ") + hand_line(obs["hand"], style))
    return "\n".join(lines)


def _cutthroat_lines(obs: dict[str, Any], labels: list[str], style: Style) -> list[str]:
    """Cut-throat: who plays with whom right now, each player's red threes, and each row of
    melds under the players who share it."""
    lone, rows = obs.get("lone_hand"), obs["meld_side"]
    if lone is None:
        out = [style.dim("Everyone plays alone until someone takes the pile.")]
    else:
        a, b = (s for s in range(len(rows)) if s != lone)
        alone = "You play" if labels[lone] == "You" else f"{labels[lone]} plays"
        out = [style.warn(f"{alone} alone this hand; {labels[a]} and {labels[b]} are partners.")]
    for s in range(len(rows)):
        red = " ".join(style.card(c) for c in obs["red_threes"][s]) or "-"
        out.append(f"{labels[s]}: red threes {red}")
    for row in range(len(rows)):
        sharing = [s for s in range(len(rows)) if rows[s] == row]
        if not sharing:
            continue
        out.append(" and ".join(labels[s] for s in sharing) + ": "
                   + ("no melds" if not obs["melds"][row] else "melds"))
        for meld in obs["melds"][row]:
            out.append("    " + meld_line(meld, style))
    return out


SCORE_ROWS = [("melds", "Cards melded"), ("canasta_bonus", "Canasta bonuses"),
              ("concealed_bonus", "Concealed canastas"), ("going_out", "Going out"),
              ("red_three_points", "Red threes"), ("hand_penalty", "Cards left in hand"),
              ("total", "Hand total")]


_POINTS = {"Jo": 50, "2": 20, "A": 20, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10, "8": 10,
           "7": 5, "6": 5, "5": 5, "4": 5, "3": 5}


def card_points(card: str) -> int:
    return _POINTS.get(rank_of(card), 0)


def render_hand_end(event: dict[str, Any], my_side: int, partnerships: bool,
                    style: Style, labels: list[str] | None = None,
                    plays: list[str] | None = None) -> str:
    """How the hand ended: who went out (or that the stock ran out), the plays since your
    last turn, every player's cards left with their points, then the score table."""
    sides = event["scores"]["sides"]
    heads = [side_name(s["side"], my_side, partnerships) for s in sides]
    width = max(8, *(len(h) for h in heads))
    hands = event.get("hands") or []
    labels = labels or [f"seat {i}" for i in range(len(hands))]
    out = event["scores"].get("went_out")
    if out is not None:
        how = f"{labels[out]} went out" + (" concealed" if event["scores"].get("concealed")
                                           else "")
    else:
        how = ("the stock ran out" if "stock" in event["reason"] else
               event["reason"].replace("_", " "))
    lines = [style.bold(f"== Hand {event['hand']} is over: {how} ==")]
    if plays:
        lines.append(style.dim("The last plays:"))
        lines += ["  " + p for p in plays]
    if hands:
        lines.append("Cards left:")
        for i, cards in enumerate(hands):
            held = " ".join(style.card(c) for c in cards) or "-"
            pts = sum(card_points(c) for c in cards)
            lines.append(f"  {labels[i]:<14} {held}" + (f"  ({pts} points)" if cards else ""))
    lines.append(f"{'':<20}" + "".join(f"{h:>{width + 2}}" for h in heads))
    for key, label in SCORE_ROWS:
        lines.append(f"{label:<20}" + "".join(f"{s[key]:>{width + 2}}" for s in sides))
    lines.append(f"{'Game total':<20}" + "".join(f"{t:>{width + 2}}" for t in event["totals"]))
    return "\n".join(lines)


def render_scores(obs: dict[str, Any], history: list[dict[str, Any]],
                  partnerships: bool) -> str:
    """The game so far: each finished hand's scores and the running totals, then the minimum
    each side needs for its first meld now."""
    side = obs["side"]
    heads = [side_name(s, side, partnerships) for s in range(len(obs["scores"]))]
    lines = [f"{'hand':<6}" + "".join(f"{h:>12}" for h in heads)]
    for e in history:
        lines.append(f"{e['hand']:<6}" + "".join(f"{s['total']:>+12}" for s in e["scores"]["sides"]))
    lines.append(f"{'total':<6}" + "".join(f"{t:>12}" for t in obs["scores"]))
    lines.append(f"{'needs':<6}" + "".join(
        f"{'melded' if obs['side_melded'][s] else obs['minimums'][s]:>12}"
        for s in range(len(obs["scores"]))))
    return "\n".join(lines)
