#!/usr/bin/env python3
"""A canasta/1.1 bot on the kit asking for every optional capability; it fails loudly (exits)
if a request lacks what it asked for."""

import sys
from pathlib import Path
from typing import Any

# The kit's path may be given (a boxed bot sees only its own directory and the files its
# command names).
KIT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "bots" / "x"
sys.path.insert(0, str(KIT.parent))
import canasta_kit  # noqa: E402


def choose(observation: dict[str, Any], moves: list[dict[str, Any]]) -> dict[str, Any]:
    if "history" not in observation or "facts" not in moves[0]:
        sys.exit("missing history or annotations")
    if len(moves) == 1:
        sys.exit("asked for a forced move despite auto_forced")
    return max(moves, key=lambda m: (m["facts"]["goes_out"], m["facts"]["points"]))


canasta_kit.run(choose, name="kit_all",
                capabilities=("history", "annotations", "auto_forced", "public"))
