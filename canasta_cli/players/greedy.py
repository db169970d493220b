"""A sensible baseline: melds naturals, takes good piles, keeps pairs, discards safely.

It reads only the ``act`` message (observation and legal moves), one decision at a time.
"""

from __future__ import annotations

from typing import Any

VALUES = {"Jo": 50, "2": 20, "A": 20, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10, "8": 10,
          "7": 5, "6": 5, "5": 5, "4": 5, "3": 5}


def card_rank(card: str) -> str:
    return "Jo" if card == "Jo" else card[:-1]


class GreedyPlayer:
    """Deterministic: the same request always gets the same answer (ties go to the listed
    order), so tournaments with it reproduce exactly whatever the scheduling."""

    hears_events = False  # it decides from each request alone

    def __call__(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        if msg.get("type") != "act":
            return None
        return {"type": "move", "id": msg["id"], "index": self.choose(msg)}

    def choose(self, msg: dict[str, Any]) -> int:
        obs, moves = msg["observation"], msg["moves"]
        by_action: dict[str, list[dict[str, Any]]] = {}
        for m in moves:
            by_action.setdefault(m["action"], []).append(m)
        if "yes" in by_action:
            return int(by_action["yes"][0]["index"])
        side = obs["side"]
        my_melds = {m["rank"]: m for m in obs["melds"][side]}
        if obs["phase"] == "draw":
            return self._draw(obs, by_action)
        melds = by_action.get("meld", []) + by_action.get("add", [])
        scored = [(self._meld_score(m, obs, my_melds), m) for m in melds]
        good = [sm for sm in scored if sm[0] > 0]
        discards = by_action.get("discard", [])
        if good:
            return int(max(good, key=lambda sm: sm[0])[1]["index"])
        if discards:
            return int(min(discards, key=lambda m: self._discard_cost(m, obs))["index"])
        if scored:
            return int(max(scored, key=lambda sm: sm[0])[1]["index"])
        others = [m for m in moves if m["action"] != "ask"]
        return int((others or moves)[0]["index"])

    def _draw(self, obs: dict[str, Any], by_action: dict[str, list[dict[str, Any]]]) -> int:
        takes = by_action.get("pile", [])
        if takes and (obs["pile_size"] >= 3 or "draw" not in by_action):
            best = max(takes, key=lambda m: m["naturals"] - 3 * (m["deuces"] + m["jokers"]))
            return int(best["index"])
        if "draw" in by_action:
            return int(by_action["draw"][0]["index"])
        return int((takes or by_action["end"])[0]["index"])

    def _meld_score(self, m: dict[str, Any], obs: dict[str, Any],
                    my_melds: dict[str, Any]) -> float:
        hand_left = len(obs["hand"])
        if m["action"] == "meld":
            if m["rank"] == "3":
                return 100.0  # only listed when it leads out
            wilds = int(m["deuces"]) + int(m["jokers"])
            size = int(m["naturals"]) + wilds
            value = int(m["naturals"]) * VALUES[m["rank"]] + 20 * wilds + 30 * int(m["jokers"])
            if not obs["side_melded"][obs["side"]]:
                return 1.0 + value / 10  # opening: the biggest meld that is offered
            if wilds and size < 7 and hand_left > size + 1:
                return -1.0  # keep wild cards for canastas
            return 5.0 + size
        meld = my_melds.get(m["rank"])
        size = len(meld["cards"]) if meld else 0
        if m["card"] == m["rank"]:
            return 6.0
        return 8.0 if size == 6 or hand_left <= 2 else -1.0

    def _discard_cost(self, m: dict[str, Any], obs: dict[str, Any]) -> float:
        card = m["card"]
        if card in ("2", "Jo"):
            return 100.0
        if card == "3":
            return -50.0  # a stop card
        cost = VALUES[card] / 5
        same = sum(1 for c in obs["hand"] if card_rank(c) == card)
        cost += 10 * (same - 1)  # keep pairs
        other = [s for s in range(len(obs["melds"])) if s != obs["side"]]
        if not obs["pile_frozen"] and any(mm["rank"] == card for s in other
                                            for mm in obs["melds"][s]):
            cost += 30  # the next player could take the pile with it
        return cost
