"""Join tokens: one secret per remote seat and one for spectators, and the refusal of an
address that keeps guessing."""

from __future__ import annotations

import hmac
import secrets
import time
from collections import deque
from dataclasses import dataclass, field

TOKEN_BYTES = 24  # 192 bits, written as 32 URL-safe characters


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


@dataclass
class TokenBook:
    """``seats[i]`` is the token of seat i (None: not a remote seat), ``spectator`` the
    watchers' one.  Every lookup compares against every token, in constant time each."""

    seats: list[str | None]
    spectator: str

    @classmethod
    def fresh(cls, remote: list[bool]) -> TokenBook:
        return cls([new_token() if r else None for r in remote], new_token())

    def lookup(self, given: str) -> tuple[str, int] | None:
        """("seat", i), ("watch", -1) or None."""
        probe = given.encode("utf-8", "replace")
        found: tuple[str, int] | None = None
        for i, tok in enumerate(self.seats):
            if tok is not None and hmac.compare_digest(probe, tok.encode()):
                found = ("seat", i)
        if hmac.compare_digest(probe, self.spectator.encode()):
            found = ("watch", -1)
        return found

    def to_json(self) -> dict[str, object]:
        return {"seats": self.seats, "spectator": self.spectator}

    @classmethod
    def from_json(cls, data: object, players: int) -> TokenBook | None:
        if not isinstance(data, dict):
            return None
        seats, spec = data.get("seats"), data.get("spectator")
        if not isinstance(seats, list) or len(seats) != players or not isinstance(spec, str):
            return None
        if not all(s is None or isinstance(s, str) for s in seats):
            return None
        return cls(list(seats), spec)


@dataclass
class Guard:
    """Too many bad tokens from one address within ``window_s``: that address is refused
    for ``ban_s`` (even with a good token), so that guessing costs time."""

    limit: int = 5
    window_s: float = 60.0
    ban_s: float = 60.0
    clock: object = field(default=time.monotonic, repr=False)
    _bad: dict[str, deque[float]] = field(default_factory=dict, repr=False)
    _banned: dict[str, float] = field(default_factory=dict, repr=False)

    def _now(self) -> float:
        return float(self.clock())  # type: ignore[operator]

    def banned(self, address: str) -> float:
        """Seconds the address is still refused (0: it is not)."""
        until = self._banned.get(address, 0.0)
        left = until - self._now()
        if left <= 0 and address in self._banned:
            del self._banned[address]
        return max(0.0, left)

    def bad(self, address: str) -> bool:
        """Count a bad token; True when this one gets the address refused."""
        now = self._now()
        seen = self._bad.setdefault(address, deque())
        seen.append(now)
        while seen and seen[0] < now - self.window_s:
            seen.popleft()
        if len(self._bad) > 10_000:  # a spray of addresses: forget the oldest
            self._bad.pop(next(iter(self._bad)))
        if len(seen) >= self.limit:
            if len(self._banned) > 10_000:
                self._banned.pop(next(iter(self._banned)))
            self._banned[address] = now + self.ban_s
            seen.clear()
            return True
        return False
