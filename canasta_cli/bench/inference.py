"""``canasta bench inference``: does the search's inference put more probability on the true
hidden cards than uniform dealing does?

Games of built-in players (``builtin:normal`` in every seat, fed the protocol messages) are
played through the engine, which knows the true hands.  At sampled decisions, from the
deciding seat's messages only, the hidden part of every other hand (its cards less those the
seat knows are there) is estimated by dealing many times, uniformly and with the inference's
weights; the estimate of each rank's share is smoothed towards uniform by one card.  Printed:
the mean log-likelihood per true hidden card under exact uniform odds, the uniform deals and
the inferred deals, with the paired difference and its standard error over decisions.
"""

from __future__ import annotations

import math
import os
import random
import statistics
from collections import Counter
from typing import Annotated, Any, cast

import typer

from ..cli.options import RulesOpt, load_rules
from ..core import apply, legal_moves, new_game
from ..core.cards import KIND_OF, N_KINDS, parse_kind
from ..core.determinize import determinize
from ..core.facts import public_facts
from ..core.rules import Ruleset
from ..core.state import GameState
from ..players.inference import infer_factors
from ..players.search import FastPlayer
from ..protocol.messages import act_message, game_start_message


def register(bench_app: typer.Typer) -> None:
    bench_app.command("inference")(bench_inference_cmd)


def _kinds(cards: list[str]) -> Counter[int]:
    return Counter(parse_kind(c) for c in cards)


def _loglik(st: GameState, obs: dict[str, Any], history: list[dict[str, Any]],
            rules: Ruleset, deals: int, rng: random.Random) -> tuple[float, float, float, int]:
    """Log-likelihood summed over the true hidden cards of the hands other than the deciding
    seat's (``st.actor``: ``obs`` and ``history`` are its messages): exact uniform, uniform
    deals, inferred deals; and the number of those cards."""
    seat = st.actor
    facts = public_facts(history, obs, rules.decks)
    unseen: Counter[int] = Counter()
    for text, n in facts["unseen"].items():
        unseen[parse_kind(text)] += int(n)
    total = sum(unseen.values())
    weights = infer_factors(history, obs, rules)
    others = [s for s in range(rules.players) if s != seat]
    truth = {}
    for s in others:
        hidden = Counter(KIND_OF[c] for c in st.hands[s])
        hidden.subtract(_kinds(facts["known"][s]))
        truth[s] = hidden
    sums = []
    for w in (None, weights):
        counts = {s: [0.0] * N_KINDS for s in others}
        for _ in range(deals):
            det = determinize(obs, facts, rules, rng, w)
            for s in others:
                hidden = Counter(KIND_OF[c] for c in det.hands[s])
                hidden.subtract(_kinds(facts["known"][s]))
                for k, n in hidden.items():
                    counts[s][k] += n / deals
        ll = 0.0
        for s in others:
            size = sum(truth[s].values())
            for k, n in truth[s].items():
                if n > 0:
                    p = (counts[s][k] + unseen[k] / total) / (size + 1)
                    ll += n * math.log(p)
        sums.append(ll)
    exact = sum(n * math.log(unseen[k] / total) for s in others
                for k, n in truth[s].items() if n > 0)
    cards = sum(sum(truth[s].values()) for s in others)
    return exact, sums[0], sums[1], cards


def bench_inference_cmd(
    rules: RulesOpt = "classic",
    games: Annotated[int, typer.Option(help="One-hand games of builtin:normal.", min=1)] = 10,
    deals: Annotated[int, typer.Option(help="Deals per estimate.", min=1)] = 200,
    every: Annotated[int, typer.Option(help="Check one decision in this many.", min=1)] = 4,
    seed: int = 0,
) -> None:
    """Log-likelihood per true hidden card, inferred deals against uniform ones."""
    r = load_rules(rules, ["max_hands=1"])
    rng = random.Random(seed)
    rows: list[tuple[float, float, float, int]] = []
    for g in range(games):
        st = new_game(r, seed=seed + g)
        players = [FastPlayer(seed * 100 + s) for s in range(r.players)]
        histories: list[list[dict[str, Any]]] = [[] for _ in range(r.players)]
        for s, p in enumerate(players):
            p(game_start_message(g + 1, s, r, ["normal"] * r.players))
        seen = 0
        request = 0
        while not st.is_over:
            events = st.events()
            for e in events[seen:]:
                for s, p in enumerate(players):
                    view = e.view(s)
                    histories[s].append(view)
                    p({"type": "event", "game": g + 1, "event": view})
            seen = len(events)
            moves = legal_moves(st)
            request += 1
            msg = cast(dict[str, Any], act_message(g + 1, request, st, moves, 1000, 0).message())
            seat = st.actor
            if len(moves) > 1 and request % every == 0:
                rows.append(_loglik(st, msg["observation"], histories[seat], r, deals, rng))
            reply = players[seat](msg)
            assert reply is not None
            st = apply(st, moves[int(reply["index"])])
    cards = sum(row[3] for row in rows)
    if not cards:
        typer.echo("no decision checked: play more games")
        raise typer.Exit(1)
    names = ("uniform (exact)", "uniform deals", "inferred deals")
    typer.echo(f"{len(rows)} decisions, {cards} true hidden cards, {deals} deals each")
    for i, name in enumerate(names):
        typer.echo(f"  {name:<16} log-likelihood per card {sum(row[i] for row in rows) / cards:+.4f}")
    diffs = [(row[2] - row[1]) / row[3] for row in rows if row[3]]
    se = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else float("nan")
    typer.echo(f"  inferred - uniform deals, per card: {statistics.mean(diffs):+.4f}"
               f" (standard error {se:.4f} over decisions)")
    typer.echo(f"load average: {os.getloadavg()[0]:.2f}")
