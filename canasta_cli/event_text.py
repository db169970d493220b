"""Events in words, for replays and the table view."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Label = Callable[[int], str]


def _seat(s: int) -> str:
    return f"seat {s}"


def describe_event(e: dict[str, Any], label: Label = _seat) -> str:  # noqa: C901
    """One event in words (one line per event type); ``label`` names a seat."""
    t = e.get("type")
    who = label(int(e["seat"])) if isinstance(e.get("seat"), int) else "someone"
    if t == "hand_started":
        return (f"=== hand {e['hand']}: {label(int(e['dealer']))} deals; minimums "
                + " / ".join(str(m) for m in e["minimums"]))
    if t == "dealt":
        if "cards" in e:
            return f"{who} is dealt {' '.join(e['cards'])}"
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
        return f"{who} takes the pile: {e['top']} with {' '.join(e['with']) or 'their meld'}"
    if t == "partners":
        a, b = (label(int(s)) for s in e["partners"])
        merged = e.get("merged") or []
        return (f"{label(int(e['lone']))} plays alone this hand; {a} and {b} are partners"
                + (f" (their {', '.join(merged)} melds are now one)" if merged else ""))
    if t == "picked_up":
        return f"{who} picks up {len(e['cards'])} cards: {' '.join(e['cards'])}"
    if t == "meld":
        extra = " (concealed canasta)" if e.get("concealed_canasta") else ""
        return f"{who} melds {' '.join(e['cards'])}{extra}"
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
    return str(e)


def story(events: list[dict[str, Any]], label: Label = _seat) -> list[str]:
    """What happened, in order, in words; a pile take reads as one action ("Left takes the
    pile (9 cards) with K K"), not as its meld, the take and the pick-up."""
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
            with_ = " ".join(str(c) for c in e.get("with", [])) or "their meld"
            lines.append(f"{label(int(e['seat']))} takes the pile ({size} card"
                         f"{'' if size == 1 else 's'}, {e['top']} on top) with {with_}")
            continue
        lines.append(describe_event(e, label))
    return [_second_person(line) for line in lines]


_YOU = {"is": "are", "draws": "draw", "discards": "discard", "melds": "meld", "adds": "add",
        "lays": "lay", "takes": "take", "picks": "pick", "asks": "ask", "answers": "answer",
        "goes": "go", "deals;": "deal;"}


def _second_person(line: str) -> str:
    """"You discards 9" -> "You discard 9"."""
    words = line.split(" ", 2)
    if len(words) >= 2 and words[0] == "You" and words[1] in _YOU:
        words[1] = _YOU[words[1]]
        return " ".join(words)
    return line
