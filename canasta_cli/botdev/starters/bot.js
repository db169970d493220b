#!/usr/bin/env node
// A Canasta bot for Node.js on the kit next to it (canasta_kit.js, written by canasta kit
// init).  choose() gets the observation and the listed legal moves and returns one of them.
// Debug output goes to stderr (console.error), never to stdout: stdout carries the protocol.
"use strict";
const kit = require("./canasta_kit");

function choose(observation, moves) {
  for (const action of ["pile", "meld", "add"]) {
    const options = moves.filter((m) => m.action === action);
    if (options.length > 0) return options[Math.floor(Math.random() * options.length)];
  }
  return moves[Math.floor(Math.random() * moves.length)];
}

console.error("bot.js starting");
kit.run(choose, { name: "starter.js" });
