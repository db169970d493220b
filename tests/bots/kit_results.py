#!/usr/bin/env python3
"""On the Python kit: the first listed move; at the end, match_end's results on stderr."""
import json
import sys

import canasta_kit

results = canasta_kit.run(lambda obs, moves: moves[0], name="kit_results.py")
print("RESULTS " + json.dumps(results, sort_keys=True), file=sys.stderr, flush=True)
