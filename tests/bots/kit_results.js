#!/usr/bin/env node
// On the JavaScript kit: the first listed move; at match_end, its results on stderr.
"use strict";
const path = require("path");
const kit = require(path.join(process.argv[2], "canasta_kit"));

function sorted(v) {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === "object") {
    const out = {};
    for (const k of Object.keys(v).sort()) out[k] = sorted(v[k]);
    return out;
  }
  return v;
}

kit.run((obs, moves) => moves[0], {
  name: "kit_results.js",
  onMatchEnd: (results) => console.error("RESULTS " + JSON.stringify(sorted(results))),
});
