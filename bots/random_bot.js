#!/usr/bin/env node
// A Canasta bot for Node.js, protocol canasta/1: one JSON object per line on stdin/stdout.
// It picks a random legal move, except that it goes out, takes piles and melds when it can.
"use strict";
const readline = require("readline");

const rl = readline.createInterface({ input: process.stdin, terminal: false });
let request = null;

function send(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

function choose(msg) {
  const moves = msg.moves;
  const prefer = ["pile", "meld", "add"];
  for (const action of prefer) {
    const options = moves.filter((m) => m.action === action);
    if (options.length > 0 && Math.random() < 0.7) {
      return options[Math.floor(Math.random() * options.length)].index;
    }
  }
  return moves[Math.floor(Math.random() * moves.length)].index;
}

rl.on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.type === "hello") {
    send({ type: "ready", protocol: "canasta/1", name: "random_bot.js" });
  } else if (msg.type === "act") {
    request = msg;
    send({ type: "move", id: msg.id, index: choose(msg) });
  } else if (msg.type === "error" && msg.retry && request !== null) {
    send({ type: "move", id: request.id, index: choose(request) });
  } else if (msg.type === "bye") {
    process.exit(0);
  }
});
