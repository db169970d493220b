"""Events in words, for replays and the table view."""

from __future__ import annotations

from typing import Any


def describe_event(e: dict[str, Any]) -> str:  # noqa: C901 - one line per event type
    t = e.get("type")
    who = f"seat {e.get('seat')}"
    if t == "hand_started":
        return (f"=== hand {e['hand']}: seat {e['dealer']} deals; minimums "
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
        return f"{who} asks seat {e['partner']}: may I go out?"
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
