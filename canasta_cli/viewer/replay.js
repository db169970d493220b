"use strict";
// The replay viewer: reads the page's JSON (see canasta_cli/viewer/pagedata.py), rebuilds each
// step's table from the changes stored per step, and draws it.  Every string from the record
// reaches the page through textContent, never as markup.
(function () {
  const D = JSON.parse(document.getElementById("data").textContent);
  const N = D.players;
  const S = D.steps;
  const SYMBOL = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };
  const RANK_NAMES = { A: "Aces", K: "Kings", Q: "Queens", J: "Jacks", "10": "Tens", "9": "Nines",
    "8": "Eights", "7": "Sevens", "6": "Sixes", "5": "Fives", "4": "Fours", "3": "Black threes" };
  const SCORE_ROWS = [["melds", "Cards melded"], ["canasta_bonus", "Canasta bonuses"],
    ["concealed_bonus", "Concealed canastas"], ["going_out", "Going out"],
    ["red_three_points", "Red threes"], ["hand_penalty", "Cards left in hand"],
    ["total", "Hand total"]];

  // The table and every hand after each step.
  const tables = [];
  const hands = [];
  let table = {};
  let held = [];
  for (let i = 0; i < N; i++) held.push([]);
  for (const step of S) {
    const next = {};
    const gone = step.x || [];
    for (const k of Object.keys(table)) if (!gone.includes(k)) next[k] = table[k];
    Object.assign(next, step.t);
    const rows = (table.melds || []).slice(0, step.mn === undefined ? undefined : step.mn);
    while (step.mn !== undefined && rows.length < step.mn) rows.push([]);
    for (const r of Object.keys(step.m || {})) rows[Number(r)] = step.m[r];
    next.melds = rows;
    table = next;
    tables.push(table);
    if (step.h) {
      held = held.slice();
      for (const k of Object.keys(step.h)) held[Number(k)] = step.h[k];
    }
    hands.push(held);
  }

  const $ = (id) => document.getElementById(id);
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function seatName(s) { return "seat " + s + " \u00b7 " + D.names[s]; }
  function sideSeats(side) {
    const out = [];
    for (let s = 0; s < N; s++) if ((D.partnerships ? s % 2 : s) === side) out.push(s);
    return out;
  }
  function sideName(side) {
    if (!D.partnerships) return seatName(side);
    return "side " + side + ": " + sideSeats(side).map(seatName).join(", ");
  }
  function card(c) {
    const e = el("span", "card");
    if (c === "Jo") { e.textContent = "Jo\u2605"; e.classList.add("wild"); return e; }
    const rank = c.slice(0, -1);
    const suit = c.slice(-1);
    e.textContent = rank + (SYMBOL[suit] || suit);
    if (suit === "d" || suit === "h") e.classList.add("red");
    if (rank === "2") e.classList.add("wild");
    return e;
  }
  function cards(list, cls) {
    const box = el("span", cls || "cards");
    if (!list.length) box.appendChild(el("span", "none", "\u2013"));
    for (const c of list) box.appendChild(card(c));
    return box;
  }
  function keyOf(i, what) {
    const t = tables[i];
    return what === "hand" ? String(t.hand_no) : t.hand_no + "/" + t.turn_seat;
  }
  function startOf(i, what) {
    const k = keyOf(i, what);
    while (i > 0 && keyOf(i - 1, what) === k) i--;
    return i;
  }
  function nextOf(i, what) {
    const k = keyOf(i, what);
    let j = i;
    while (j < S.length - 1 && keyOf(j, what) === k) j++;
    return keyOf(j, what) === k ? S.length - 1 : j;
  }
  function prevOf(i, what) {
    const s = startOf(i, what);
    return s < i ? s : s > 0 ? startOf(s - 1, what) : 0;
  }

  let cur = 0;
  const listeners = [];  // called with the step after each go (window.canastaReplay.onStep)
  let view = D.views.includes(D.open_view) ? D.open_view : D.views[0];

  function drawStatus(t, i) {
    const box = clear($("status"));
    const phase = String(t.phase).replace(/_/g, " ");
    if (t.phase === "game_over") {
      const who = t.winner === null || t.winner === undefined ? "a draw" : sideName(t.winner) + " wins";
      box.appendChild(el("span", "over", "Game over (" + String(t.end_reason).replace(/_/g, " ") + "): " + who));
    } else {
      box.appendChild(el("span", null, "Hand " + t.hand_no + " \u00b7 " + phase + " \u00b7 "
        + seatName(t.to_act) + " to act"));
    }
    $("step-no").textContent = i === 0 ? "deal (step 0 of " + (S.length - 1) + ")"
      : "move " + i + " of " + (S.length - 1);
  }

  function drawScores(t) {
    const body = clear($("scores"));
    for (let side = 0; side < t.scores.length; side++) {
      const tr = el("tr");
      tr.dataset.side = String(side);
      tr.appendChild(el("th", null, sideName(side)));
      tr.appendChild(el("td", "score", t.scores[side]));
      tr.appendChild(el("td", "need", t.side_melded[side] ? "melded"
        : "needs " + t.minimums[side] + " to meld"));
      const red = el("td", "reds");
      red.appendChild(cards(t.red_threes[side] || []));
      tr.appendChild(red);
      body.appendChild(tr);
    }
  }

  function drawPile(t) {
    $("stock-size").textContent = String(t.stock_size);
    $("pile-size").textContent = String(t.pile_size);
    const top = clear($("pile-top"));
    if (t.pile_top) top.appendChild(card(t.pile_top)); else top.textContent = "\u2013";
    const notes = [];
    if (t.pile_stopped) notes.push(t.pile_top && t.pile_top.startsWith("3")
      ? "black three on top: nobody may take the pile this turn"
      : "wild card on top: nobody may take it until covered");
    else if (t.pile_frozen) notes.push("frozen");
    else {
      const seats = [];
      for (let s = 0; s < N; s++) if (t.frozen_for[s]) seats.push(s);
      if (seats.length) notes.push("frozen for seat " + seats.join(", ") + " (not melded yet)");
    }
    $("pile-state").textContent = notes.join("; ");
    $("pile-state").className = notes.length ? "warn" : "";
  }

  function meldBox(m) {
    const box = el("div", "meld" + (m.canasta ? " canasta " + m.canasta : ""));
    const n = m.cards.length;
    box.appendChild(el("span", "label", (RANK_NAMES[m.rank] || m.rank) + " \u00d7" + n));
    box.appendChild(cards(m.cards));
    if (m.canasta) box.appendChild(el("span", "badge", m.canasta + (m.concealed ? " concealed" : "")
      + " canasta"));
    return box;
  }

  function drawMelds(t) {
    const box = clear($("melds"));
    const rows = t.melds;
    for (let r = 0; r < rows.length; r++) {
      let owners;
      if (t.meld_side) {
        owners = [];
        for (let s = 0; s < N; s++) if (t.meld_side[s] === r) owners.push(s);
        if (!owners.length) continue;
      }
      const sec = el("section", "row");
      sec.dataset.row = String(r);
      const title = t.meld_side ? owners.map(seatName).join(" and ") : sideName(r);
      sec.appendChild(el("h3", null, title));
      if (!rows[r].length) sec.appendChild(el("p", "none", "no melds"));
      for (const m of rows[r]) sec.appendChild(meldBox(m));
      box.appendChild(sec);
    }
    if (t.meld_side) {
      const lone = t.lone_hand;
      $("partners").textContent = lone === null || lone === undefined
        ? "Everyone plays alone until someone takes the pile."
        : seatName(lone) + " plays alone this hand.";
    } else {
      $("partners").textContent = "";
    }
  }

  function drawHands(t, i) {
    const box = clear($("hands"));
    const mine = hands[i];
    for (let s = 0; s < N; s++) {
      const row = el("div", "hand" + (s === t.to_act && t.phase !== "game_over" ? " acting" : ""));
      row.dataset.seat = String(s);
      row.appendChild(el("span", "who", seatName(s)));
      const shown = view === "all" || view === String(s);
      row.appendChild(el("span", "count", t.hand_counts[s] + " card" + (t.hand_counts[s] === 1 ? "" : "s")));
      if (shown) row.appendChild(cards(mine[s]));
      box.appendChild(row);
    }
  }

  function drawEvents(i) {
    const step = S[i];
    const list = clear($("events"));
    for (const line of step.ev[view] || step.ev.public) list.appendChild(el("li", null, line));
    const fails = clear($("failures"));
    for (const f of step.failures || []) {
      const li = el("li", "failure");
      li.appendChild(el("b", null, f.status));
      li.appendChild(el("span", null, " " + seatName(f.seat) + ": " + f.reason));
      fails.appendChild(li);
    }
    if (step.by) fails.appendChild(el("li", "failure", "this move was chosen by: " + step.by));
  }

  function drawEnd(i) {
    const box = clear($("hand-end"));
    const ends = S[i].end || [];
    box.hidden = !ends.length;
    for (const e of ends) {
      const sc = e.scores;
      let how = sc.went_out !== null && sc.went_out !== undefined
        ? seatName(sc.went_out) + " went out" + (sc.concealed ? " concealed" : "")
        : String(e.reason).replace(/_/g, " ");
      box.appendChild(el("h3", null, "Hand " + e.hand + " is over: " + how));
      if (e.hands && e.hands.length) {
        const left = el("div", "left");
        e.hands.forEach((h, s) => {
          const row = el("div", "hand");
          row.appendChild(el("span", "who", seatName(s)));
          row.appendChild(cards(h));
          left.appendChild(row);
        });
        box.appendChild(left);
      }
      const tbl = el("table", "scoring");
      const head = el("tr");
      head.appendChild(el("th"));
      for (const s of sc.sides) head.appendChild(el("th", null, D.partnerships ? "side " + s.side : seatName(s.side)));
      tbl.appendChild(head);
      for (const [key, label] of SCORE_ROWS) {
        const tr = el("tr");
        tr.appendChild(el("th", null, label));
        for (const s of sc.sides) tr.appendChild(el("td", null, s[key]));
        tbl.appendChild(tr);
      }
      const tot = el("tr", "totals");
      tot.appendChild(el("th", null, "Game total"));
      for (const x of e.totals) tot.appendChild(el("td", null, x));
      tbl.appendChild(tot);
      box.appendChild(tbl);
    }
  }

  function buildMoves() {
    const list = $("moves");
    let hand = null;
    for (let i = 0; i < S.length; i++) {
      const h = i === 0 ? tables[0].hand_no : tables[i - 1].hand_no;
      if (h !== hand) {
        hand = h;
        list.appendChild(el("li", "hand-head", "Hand " + h));
      }
      const step = S[i];
      const li = el("li", "move", i === 0 ? "0. the deal"
        : i + ". " + seatName(step.seat) + ": " + step.move + (step.by ? " (" + step.by + ")" : ""));
      li.dataset.step = String(i);
      if (step.failures) li.classList.add("failed");
      li.addEventListener("click", () => go(i));
      list.appendChild(li);
    }
    const sel = $("hand-select");
    const seen = new Set();
    for (let i = 0; i < S.length; i++) {
      const h = tables[i].hand_no;
      if (seen.has(h)) continue;
      seen.add(h);
      const o = el("option", null, "hand " + h);
      o.value = String(i);
      sel.appendChild(o);
    }
    sel.addEventListener("change", () => go(Number(sel.value)));
    const vs = $("view-select");
    for (const v of D.views) {
      const o = el("option", null, v === "public" ? "public view (no hidden card)"
        : v === "all" ? "all hands" : seatName(Number(v)) + "'s view");
      o.value = v;
      vs.appendChild(o);
    }
    vs.value = view;
    vs.addEventListener("change", () => { view = vs.value; go(cur); });
  }

  function go(i) {
    cur = Math.max(0, Math.min(S.length - 1, i));
    const t = tables[cur];
    drawStatus(t, cur);
    drawScores(t);
    drawPile(t);
    drawMelds(t);
    drawHands(t, cur);
    drawEvents(cur);
    drawEnd(cur);
    const old = document.querySelector("#moves li.current");
    if (old) { old.classList.remove("current"); old.removeAttribute("aria-current"); }
    const now = document.querySelector('#moves li[data-step="' + cur + '"]');
    if (now) {
      now.classList.add("current");
      now.setAttribute("aria-current", "step");
      const list = $("moves");  // scroll the list only, never the page
      if (now.offsetTop < list.scrollTop) list.scrollTop = now.offsetTop;
      else if (now.offsetTop + now.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = now.offsetTop + now.offsetHeight - list.clientHeight;
      }
    }
    const sel = $("hand-select");
    const start = String(startOf(cur, "hand"));
    for (const o of sel.options) if (o.value === start) sel.value = start;
    for (const f of listeners) f(cur);
  }

  const actions = {
    "first": () => go(0),
    "prev-hand": () => go(prevOf(cur, "hand")),
    "prev-turn": () => go(prevOf(cur, "turn")),
    "prev": () => go(cur - 1),
    "next": () => go(cur + 1),
    "next-turn": () => go(nextOf(cur, "turn")),
    "next-hand": () => go(nextOf(cur, "hand")),
    "last": () => go(S.length - 1),
  };
  for (const [id, fn] of Object.entries(actions)) $(id).addEventListener("click", fn);
  document.addEventListener("keydown", (ev) => {
    const tag = ev.target && ev.target.tagName;
    if (tag === "SELECT" || tag === "INPUT") return;
    const key = ev.key;
    let fn = null;
    if (key === "ArrowRight") fn = ev.shiftKey ? actions["next-turn"] : actions.next;
    else if (key === "ArrowLeft") fn = ev.shiftKey ? actions["prev-turn"] : actions.prev;
    else if (key === "ArrowDown") fn = actions["next-turn"];
    else if (key === "ArrowUp") fn = actions["prev-turn"];
    else if (key === "PageDown") fn = actions["next-hand"];
    else if (key === "PageUp") fn = actions["prev-hand"];
    else if (key === "Home") fn = actions.first;
    else if (key === "End") fn = actions.last;
    if (fn) { ev.preventDefault(); fn(); }
  });

  const warn = $("mismatches");
  for (const m of D.mismatches) warn.appendChild(el("li", null, m));
  warn.hidden = !D.mismatches.length;
  const title = "Game " + (D.game === null || D.game === undefined ? "" : D.game + " ") + "\u00b7 "
    + D.rules + " \u00b7 " + D.names.map((n, s) => "seat " + s + " " + n).join(", ");
  $("title").textContent = title;
  if (D.result) {
    $("result").textContent = "Recorded result: " + (D.result.reason || "") + "; scores "
      + (D.result.scores || []).join(" / ") + (D.result.winner === null || D.result.winner === undefined
        ? "" : "; winner " + sideName(D.result.winner));
  } else {
    $("result").textContent = "The record ends before its result: the game was not over.";
  }
  if (D.public) $("public-note").hidden = false;
  buildMoves();
  // For a script that adds to this viewer (review.js): the data, the step shown, moving to a
  // step, and a function called with the step after each move.
  window.canastaReplay = Object.freeze({
    data: D, go: (i) => go(i), current: () => cur, onStep: (f) => { listeners.push(f); },
    el, clear,  // the page's element helpers, for the scripts that build on this one
  });
  const m = /^#(\d+)$/.exec(window.location.hash);
  go(m ? Number(m[1]) : 0);
  document.body.dataset.ready = "1";
})();
