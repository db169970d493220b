// Canasta bot kit for Node.js: the message loop, the handshake, the clock and the table, so
// that a bot is one function.  No dependencies; copy it next to your bot:
//
//   const kit = require("./canasta_kit");
//   kit.run((observation, moves) => moves[0], { name: "my-bot" });
//
// A port of bots/canasta_kit.py (same protocol canasta/1.1, same table tracking): see that
// file and protocol/README.md.  Unknown messages and fields are ignored.
"use strict";
const readline = require("readline");

const RANKS = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"];
const SUITS = ["c", "d", "h", "s"];

function take(counter, cards) {
  for (const c of cards) {
    if (counter.get(c) > 0) {
      const n = counter.get(c) - 1;
      if (n) counter.set(c, n); else counter.delete(c);
    }
  }
}

function elements(counter) {
  const out = [];
  for (const [c, n] of counter) for (let i = 0; i < n; i++) out.push(c);
  return out.sort();
}

class Table {
  constructor(players = 4, decks = 2) { this.players = players; this.decks = decks; this.resetHand(); }

  resetHand() {
    this.pile = [];
    this.discards = Array.from({ length: this.players }, () => []);
    this.known = Array.from({ length: this.players }, () => new Map());
    this.pendingMeld = null;
  }

  startGame(msg) {
    this.players = msg.players || this.players;
    if (msg.rules && typeof msg.rules === "object") this.decks = msg.rules.players === 6 ? 3 : 2;
    this.resetHand();
  }

  add(counter, cards) { for (const c of cards) counter.set(c, (counter.get(c) || 0) + 1); }

  update(e) {
    const kind = e.type;
    const seat = Number.isInteger(e.seat) ? e.seat : 0;
    const pending = this.pendingMeld;
    this.pendingMeld = null;
    if (pending && !(kind === "took_pile" && seat === pending.seat)) take(this.known[pending.seat], pending.cards);
    if (kind === "hand_started") this.resetHand();
    else if (kind === "upcard") this.pile.push(e.card);
    else if (kind === "discard") { this.pile.push(e.card); this.discards[seat].push(e.card); take(this.known[seat], [e.card]); }
    else if (kind === "took_pile") { this.pile.pop(); take(this.known[seat], e.with); }
    else if (kind === "picked_up") { this.add(this.known[seat], e.cards); this.pile = []; }
    else if (kind === "red_three" && e.source === "pile") take(this.known[seat], [e.card]);
    else if (kind === "meld") this.pendingMeld = e;
    else if (kind === "add") take(this.known[seat], [e.card]);
  }

  facts(obs) {
    const known = this.known.map((k) => new Map(k));
    if (this.pendingMeld) take(known[this.pendingMeld.seat], this.pendingMeld.cards);
    const unseen = new Map();
    for (const r of RANKS) for (const s of SUITS) unseen.set(r + s, this.decks);
    unseen.set("Jo", 2 * this.decks);
    const seen = [...(obs.hand || []), ...this.pile];
    for (const row of obs.melds || []) for (const m of row) seen.push(...(m.cards || []));
    for (const row of obs.red_threes || []) seen.push(...row);
    for (let s = 0; s < this.players; s++) if (s !== obs.seat) seen.push(...elements(known[s]));
    take(unseen, seen);
    return { discards: this.discards.map((d) => [...d]), known: known.map(elements),
             pile: [...this.pile], unseen: Object.fromEntries([...unseen].sort()) };
  }
}

let deadline = 0;
function timeLeft() { return Math.max(0, deadline - Date.now()) / 1000; }

function answer(choice) {
  if (Number.isInteger(choice)) return { index: choice };
  if (typeof choice === "string") return { move: choice };
  if (choice && Number.isInteger(choice.index)) return { index: choice.index };
  throw new Error("choose() must return a listed move, its index or a move text");
}

// Like the Python kit's run(): the results of match_end are kept (the returned array, filled
// when match_end comes, and onMatchEnd(results) is called); a retry error is printed to stderr.
function run(choose, { name = "canasta_kit.js bot", capabilities = ["annotations"],
  onMatchEnd = null } = {}) {
  const table = new Table();
  const results = [];
  let request = null;
  const send = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
  const act = (req) => {
    const obs = Object.assign({}, req.observation || {});
    const moves = req.moves || [];
    if (!("public" in obs)) {
      // Made from the table the first time it is read: a bot that never looks pays nothing.
      let cached = null;
      Object.defineProperty(obs, "public", {
        enumerable: true, configurable: true,
        get() { if (cached === null) cached = table.facts(obs); return cached; },
      });
    }
    send(Object.assign({ type: "move", id: req.id }, answer(choose(obs, moves))));
  };
  const rl = readline.createInterface({ input: process.stdin, terminal: false });
  rl.on("line", (line) => {
    let msg;
    try { msg = JSON.parse(line); } catch (err) { return; }
    if (!msg || typeof msg !== "object") return;
    if (msg.type === "hello") send({ type: "ready", protocol: "canasta/1.1", name, capabilities });
    else if (msg.type === "game_start") table.startGame(msg);
    else if (msg.type === "event" && msg.event) table.update(msg.event);
    else if (msg.type === "act") {
      request = msg;
      deadline = Date.now() + (msg.deadline_ms || 1000) + (msg.bank_ms || 0);
      act(msg);
    } else if (msg.type === "error" && msg.retry && request) {
      console.error(`${name}: ${msg.message}`);
      act(request);
    } else if (msg.type === "match_end") {
      results.length = 0;
      results.push(...(msg.results || []));
      if (onMatchEnd) onMatchEnd(results);
    } else if (msg.type === "bye") process.exit(0);
  });
  rl.on("close", () => process.exit(0));
  return results;
}

// Strategy helpers, the same as the Python kit's (see bots/canasta_kit.py for what each means).
function rankOf(card) { return card === "Jo" ? "Jo" : card.slice(0, -1); }

function cardPoints(card) {
  const r = rankOf(card);
  if (r === "Jo") return 50;
  if (r === "2" || r === "A") return 20;
  if (["K", "Q", "J", "10", "9", "8"].includes(r)) return 10;
  if (r === "3") return "cs".includes(card.slice(-1)) ? 5 : 0;
  return 5;
}

function openingMelds(hand, minimum) {
  const byRank = new Map();
  const wilds = [];
  for (const c of hand) {
    const r = rankOf(c);
    if (r === "Jo" || r === "2") wilds.push(c);
    else if (r !== "3") { if (!byRank.has(r)) byRank.set(r, []); byRank.get(r).push(c); }
  }
  wilds.sort((x, y) => cardPoints(x) - cardPoints(y));
  const sum = (cards) => cards.reduce((t, c) => t + cardPoints(c), 0);
  const melds = [];
  const entries = [...byRank.entries()];
  const stable = (key) => entries.map((e, i) => [e, i])
    .sort((x, y) => key(x[0]) - key(y[0]) || x[1] - y[1]).map((x) => x[0]);
  for (const [, cards] of stable((e) => -sum(e[1]))) if (cards.length >= 3) melds.push([...cards]);
  for (const [, cards] of stable((e) => -cardPoints(e[1][0]))) {
    if (cards.length === 2 && wilds.length) melds.push([...cards, wilds.shift()]);
  }
  let total = 0;
  const chosen = [];
  for (const m of melds) {
    chosen.push(m);
    total += sum(m);
    if (total >= minimum) return chosen;
  }
  return minimum > 0 ? null : [];
}

function discardSafety(card, pub) {
  const r = rankOf(card);
  if (r === "Jo" || r === "2" || (r === "3" && "cs".includes(card.slice(-1)))) return 1.0;
  pub = pub || {};
  let unseen = 0;
  for (const [c, n] of Object.entries(pub.unseen || {})) if (rankOf(c) === r) unseen += n;
  let known = 0;
  for (const h of pub.known || []) for (const c of h) if (rankOf(c) === r) known += 1;
  let discarded = 0;
  for (const d of pub.discards || []) for (const c of d) if (rankOf(c) === r) discarded += 1;
  if (known >= 2) return 0.0;
  const score = 1.0 / (1.0 + unseen) + 0.15 * discarded - 0.4 * known;
  return Math.max(0.0, Math.min(1.0, score));
}

module.exports = { run, Table, timeLeft, rankOf, cardPoints, openingMelds, discardSafety };
