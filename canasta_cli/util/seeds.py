"""The seeds canasta draws by itself, the seeds it derives from a master seed, and the bounds
of the seeds it reads back.

A seat knows its own dealt cards, so it can try seeds offline until one deals them: a seed
drawn by a command must be one nobody can search, ``SEED_BITS`` bits from ``secrets``.  A
seed given by a person is theirs to choose and deals exactly what it always dealt.
"""

from __future__ import annotations

import hashlib
import secrets

SEED_BITS = 128
MAX_SEED = 2**SEED_BITS  # a seed given or read back is below this in size (drawn ones are)
NARROW = 2**64  # a master seed below this in size derives 63-bit seeds, as it always did


def fresh_seed() -> int:
    """A seed nobody can work out from the cards they see."""
    return secrets.randbits(SEED_BITS)


def derived_bits(master: int) -> int:
    """The size of the seeds derived from ``master``: 63 bits from a master below 2**64 in
    size (every master seed before 128-bit ones were drawn, so the same given seed deals the
    same games), 128 from a larger one (every master canasta draws now)."""
    return 63 if -NARROW < master < NARROW else SEED_BITS


def derive(text: str, bits: int) -> int:
    """A seed of ``bits`` bits (63 or 128) from ``text``, which names the master and the deal
    (stable across runs and machines)."""
    digest = hashlib.sha256(text.encode()).digest()
    if bits == 63:
        return int.from_bytes(digest[:8], "big") >> 1
    return int.from_bytes(digest[:SEED_BITS // 8], "big")
