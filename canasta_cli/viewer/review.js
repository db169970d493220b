"use strict";
// The review page's own part (see canasta_cli/viewer/review_page.py).  replay.js runs first,
// draws the table from the reviewed seat's view and offers window.canastaReplay; this script
// shows beside it the analysis of the seat's decision at the step shown, and moves between
// decisions: its buttons, the keys n p (decision) and Shift+N Shift+P (flagged decision), the
// bars of the loss plot and the decision links below.  Every string reaches the page through
// textContent, never as markup.
(function () {
  const R = window.canastaReplay;
  const V = R.data.review;
  const list = V.decisions;  // in the order played: d.at, the step shown before d's move
  const byAt = new Map(list.map((d) => [d.at, d]));
  const byStep = new Map(list.map((d) => [d.step, d]));
  const byNumber = new Map(list.map((d) => [d.n, d]));
  const $ = (id) => document.getElementById(id);
  const el = R.el;
  const clear = R.clear;

  // The decision shown at step i: the one about to be taken, else the one just taken.
  function shownAt(i) { return byAt.get(i) || byStep.get(i) || null; }
  // Where the moves start from: a decision just taken counts as its own place.
  function place(i) { const d = shownAt(i); return d ? d.at : i; }
  function nextOf(i, flagged) {
    const p = place(i);
    return list.find((d) => d.at > p && (!flagged || d.verdict)) || null;
  }
  function prevOf(i, flagged) {
    const p = place(i);
    for (let k = list.length - 1; k >= 0; k--) {
      if (list[k].at < p && (!flagged || list[k].verdict)) return list[k];
    }
    return null;
  }
  function jump(d) { if (d) R.go(d.at); }

  function row(table, label, move, value) {
    const tr = el("tr");
    tr.appendChild(el("th", null, label));
    tr.appendChild(el("td", "move", move));
    tr.appendChild(el("td", "num", value));
    table.appendChild(tr);
  }

  function drawDecision(d, i) {
    const box = clear($("decision"));
    box.className = d ? (d.verdict || (d.agrees ? "agree" : "differ")) : "none";
    if (!d) {
      box.appendChild(el("p", "none", "No decision of seat " + V.seat + " at this step."));
      return;
    }
    box.appendChild(el("h3", null, "Decision #" + d.n + " of " + list.length + " \u00b7 hand "
      + d.hand + ", turn " + d.turn));
    box.appendChild(el("p", "when", (d.at === i ? "Seat " + V.seat + " to play: "
      : "The move just played: ") + d.choices + " moves offered (" + d.phase.replace(/_/g, " ")
      + ")."));
    const t = el("table", "values");
    row(t, "played", d.played, d.played_value);
    row(t, "the search", d.agrees ? "= the move played" : d.best, d.agrees ? "" : d.best_value);
    box.appendChild(t);
    if (!d.agrees) box.appendChild(el("p", "loss", "loss " + d.loss_text + " points"));
    if (d.verdict) box.appendChild(el("p", "verdict", d.verdict.toUpperCase()));
    if (d.reason) box.appendChild(el("p", "reason", "Why: " + d.reason));
    if (d.agrees) box.appendChild(el("p", "agrees", "The search agrees with the move played."));
    box.appendChild(el("p", "note", "Values: over " + d.deals + " deals, points for the seat's"
      + " side less the other side's, \u00b1 their 95% interval."));
  }

  function mark(selector, d) {
    for (const e of document.querySelectorAll(selector + ".current")) e.classList.remove("current");
    if (!d) return;
    for (const e of document.querySelectorAll(selector + '[data-decision="' + d.n + '"]')) {
      e.classList.add("current");
    }
  }

  function show(i) {
    const d = shownAt(i);
    drawDecision(d, i);
    mark("#review tr", d);
    mark("#review .mark", d);
    const moves = { "prev-decision": prevOf(i, false), "next-decision": nextOf(i, false),
      "prev-flag": prevOf(i, true), "next-flag": nextOf(i, true) };
    for (const [id, target] of Object.entries(moves)) $(id).disabled = !target;
  }

  const actions = {
    "prev-decision": () => jump(prevOf(R.current(), false)),
    "next-decision": () => jump(nextOf(R.current(), false)),
    "prev-flag": () => jump(prevOf(R.current(), true)),
    "next-flag": () => jump(nextOf(R.current(), true)),
  };
  for (const [id, fn] of Object.entries(actions)) $(id).addEventListener("click", fn);
  const KEYS = { n: "next-decision", p: "prev-decision", N: "next-flag", P: "prev-flag" };
  document.addEventListener("keydown", (ev) => {
    const tag = ev.target && ev.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || ev.ctrlKey || ev.altKey || ev.metaKey) return;
    const id = KEYS[ev.key];
    if (id) { ev.preventDefault(); actions[id](); }
  });

  // The plot's bars and the decisions' links below move the viewer to their decision.
  function toViewer(d) {
    jump(d);
    window.scrollTo(0, 0);
  }
  for (const bar of document.querySelectorAll("#review .pick[data-decision]")) {
    const d = byNumber.get(Number(bar.dataset.decision));
    bar.addEventListener("click", () => toViewer(d));
    bar.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); toViewer(d); }
    });
  }
  for (const a of document.querySelectorAll("#review a[data-decision]")) {
    const d = byNumber.get(Number(a.dataset.decision));
    a.addEventListener("click", (ev) => { ev.preventDefault(); toViewer(d); });
  }
  for (const d of list) {
    const li = document.querySelector('#moves li[data-step="' + d.step + '"]');
    if (li) li.classList.add("decision", d.verdict || "judged");
  }

  R.onStep(show);
  const m = /^#d(\d+)$/.exec(window.location.hash);
  if (m && byNumber.has(Number(m[1]))) jump(byNumber.get(Number(m[1])));
  else show(R.current());
  document.body.dataset.review = "1";
})();
