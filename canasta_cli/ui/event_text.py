"""Events in words, for replays and the table view."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Label = Callable[[int], str]
CardText = Callable[[str], str]


def _seat(s: int) -> str:
    return f"seat {s}"


def _plain(card: str) -> str:
    return card


_CARD = re.compile(r"(?:[2-9]|10|[JQKA])[cdhs]|Jo")


def only_cards(card: CardText) -> CardText:
    """``card`` applied to what is a card's text, anything else left as it is (an event from
    a table across the network may hold any text)."""
    return lambda c: card(c) if _CARD.fullmatch(c) else c


def describe_event(e: dict[str, Any], label: Label = _seat,  # noqa: C901 - a line per event type
                   card: CardText = _plain) -> str:
    """One event in words (one line per event type); ``label`` names a seat, ``card``
    writes a card (the table's ``6♥`` on a screen, ``6h`` in a log by default)."""
    def cards(key: str) -> str:
        return " ".join(card(str(c)) for c in e[key])

    e = dict(e)
    for key in ("card", "top"):
        if isinstance(e.get(key), str):
            e[key] = card(e[key])
    t = e.get("type")
    who = label(int(e["seat"])) if isinstance(e.get("seat"), int) else "someone"
    if t == "hand_started":
        return (f"=== hand {e['hand']}: {label(int(e['dealer']))} deals; minimums "
                + " / ".join(str(m) for m in e["minimums"]))
    if t == "dealt":
        if "cards" in e:
            return f"{who} is dealt {cards('cards')}"
        return f"{who} is dealt {e['count']} card" + ("" if e["count"] == 1 else "s")
    if t == "upcard":
        return f"upcard {e['card']}"
    if t == "drew":
        what = e.get("card", "a card")
        return f"{who} draws {what}" + (" (replacement)" if e.get("replacement") else "")
    if t == "red_three":
        return f"{who} lays red three {e['card']}" + (" from the pile" if e["source"] == "pile"
                                                      else "")
    if t == "took_pile":
        return f"{who} takes the pile: {e['top']} with {cards('with') or 'their meld'}"
    if t == "partners":
        a, b = (label(int(s)) for s in e["partners"])
        merged = e.get("merged") or []
        return (f"{label(int(e['lone']))} plays alone this hand; {a} and {b} are partners"
                + (f" (their {', '.join(merged)} melds are now one)" if merged else ""))
    if t == "picked_up":
        return f"{who} picks up {len(e['cards'])} cards: {cards('cards')}"
    if t == "meld":
        extra = " (concealed canasta)" if e.get("concealed_canasta") else ""
        return f"{who} melds {cards('cards')}{extra}"
    if t == "add":
        return f"{who} adds {e['card']} to the {e['rank']}s"
    if t == "discard":
        return f"{who} discards {e['card']}"
    if t == "asked":
        return f"{who} asks {label(int(e['partner']))}: may I go out?"
    if t == "answered":
        return f"{who} answers {'yes' if e['yes'] else 'no'}"
    if t == "went_out":
        return f"{who} goes out" + (" concealed" if e["concealed"] else "")
    if t == "hand_ended":
        parts = [f"side {s['side']}: {s['total']:+d}" for s in e["scores"]["sides"]]
        return (f"=== hand {e['hand']} ends ({e['reason']}): " + ", ".join(parts)
                + "; totals " + " / ".join(str(x) for x in e["totals"]))
    if t == "game_ended":
        winner = "a draw" if e["winner"] is None else f"side {e['winner']} wins"
        return f"=== game over ({e['reason']}): {winner}, " + " / ".join(map(str, e["totals"]))
    return f"{who}: {t}"  # an event this program does not know (from a newer table)


BY = {"stand-in": " (by the stand-in)", "default": " (a default move)"}
# The events of a turn's moves, each of the seat whose move it is (``"by"`` marks them).
MOVE_EVENTS = frozenset(("drew", "took_pile", "picked_up", "meld", "add", "discard",
                         "red_three", "asked", "answered", "went_out"))


def played_by(e: dict[str, Any]) -> str:
    """`` (by the stand-in)`` for an event of a move a stand-in played for an absent person
    (``"by": "stand-in"``, as a table marks them), `` (a default move)`` for one the
    referee played for a failed bot; else nothing."""
    by = e.get("by")
    return BY.get(by, "") if isinstance(by, str) else ""


def story(events: list[dict[str, Any]], label: Label = _seat,
          card: CardText = _plain) -> list[str]:
    """What happened, in order, in words; a pile take reads as one action ("Left takes the
    pile (9 cards) with K K"), not as its meld, the take and the pick-up.  ``card`` writes
    a card as the table does.  A move a stand-in played for an absent person says so."""
    lines: list[str] = []
    skip: set[int] = set()
    for i, e in enumerate(events):
        if i in skip:
            continue
        if e.get("type") in ("meld", "add") and i + 1 < len(events) \
                and events[i + 1].get("type") == "took_pile" \
                and events[i + 1].get("seat") == e.get("seat"):
            continue  # the top card's meld: told with the take
        if e.get("type") == "took_pile":
            size = 1
            for j in range(i + 1, len(events)):
                later = events[j]
                if later.get("type") == "picked_up" and later.get("seat") == e.get("seat"):
                    size += len(later["cards"])
                    skip.add(j)
                    break
            with_ = " ".join(card(str(c)) for c in e.get("with", [])) or "their meld"
            lines.append(f"{label(int(e['seat']))} takes the pile ({size} card"
                         f"{'' if size == 1 else 's'}, {card(str(e['top']))} on top) with"
                         f" {with_}{played_by(e)}")
            continue
        lines.append(describe_event(e, label, card) + played_by(e))
    return [second_person(line) for line in lines]


_YOU = {"is": "are", "draws": "draw", "discards": "discard", "melds": "meld", "adds": "add",
        "lays": "lay", "takes": "take", "picks": "pick", "asks": "ask", "answers": "answer",
        "goes": "go", "deals": "deal", "plays": "play", "went": "went", "wins": "win",
        "has": "have"}
_YOU_VERB = re.compile(r"\bYou (" + "|".join(_YOU) + r")\b")


def second_person(line: str) -> str:
    """"You discards 9" -> "You discard 9", "You deals" -> "You deal" wherever "You" is the
    subject, and "You take the pile ... with their meld" -> "... with your meld"."""
    line = _YOU_VERB.sub(lambda m: "You " + _YOU[m.group(1)], line)
    if line.startswith("You take the pile"):
        line = line.replace("with their meld", "with your meld")
    return line
