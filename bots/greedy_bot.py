#!/usr/bin/env python3
"""The built-in greedy player as a bot process (needs the canasta package installed).

Melds naturals, saves wild cards for canastas, takes piles of three or more, keeps pairs, and
discards black threes and lone low cards first.
"""

from canasta_cli.players.greedy import GreedyPlayer
from canasta_cli.players.stdio import run

if __name__ == "__main__":
    run(GreedyPlayer(), "greedy_bot.py")
