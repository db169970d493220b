#!/usr/bin/env node
// A Canasta bot for Node.js, with the bot kit next to it (canasta_kit.js): it picks a random
// legal move, except that it prefers taking the pile and melding.
"use strict";
const kit = require("./canasta_kit");

function choose(observation, moves) {
  for (const action of ["pile", "meld", "add"]) {
    const options = moves.filter((m) => m.action === action);
    if (options.length > 0 && Math.random() < 0.7) {
      return options[Math.floor(Math.random() * options.length)];
    }
  }
  return moves[Math.floor(Math.random() * moves.length)];
}

kit.run(choose, { name: "random_bot.js", capabilities: [] });
