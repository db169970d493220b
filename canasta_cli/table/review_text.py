"""``canasta review``'s text: every judged decision, the flags with their reasons, a summary
per hand and for the game, and the worst decisions, in lines of at most 80 columns."""

from __future__ import annotations

import math

from ..hosting.playstats import PlayStats
from ..ui.screen import fit
from ..util.safetext import visible
from ..util.words import plural
from .review import BLUNDER_TIMES, Decision, Estimate, Review, Summary

WIDTH = 80
MOVE_W = 24  # the column of a move: the longest (meld 10 10 10 10 2 2 Jo) is 23


def value_text(mean: float, half: float) -> str:
    """``-735 ±212``; an interval not known (one deal) is ``±?``."""
    spread = f"±{half:.0f}" if math.isfinite(half) else "±?"
    return f"{mean:.0f} {spread}"


def _move(text: str) -> str:
    return text if len(text) <= MOVE_W else text[:MOVE_W - 1] + "\u2026"


def _est(e: Estimate) -> str:
    return f"{_move(e.move):<{MOVE_W}} {value_text(e.mean, e.half):>11}"


def decision_lines(d: Decision) -> list[str]:
    """One line when the seat played the search's choice; else two (the move played, the
    search's choice with the loss), and a third with the reason when flagged."""
    head = f"#{d.number:<4} turn {d.hand_turn:<3} "
    if d.agrees:
        return [f"{head}{_est(d.played)}   = search"]
    flag = f"  {d.verdict.upper()}" if d.verdict else ""
    out = [f"{head}{_est(d.played)}",
           f"{'search:':>14} {_est(d.best)}   loss {value_text(d.loss, d.loss_half):>9}{flag}"]
    if d.reason:
        out.append(fit(f"{'':15}{d.reason}", WIDTH, hang=15))
    return out


def summary_text(s: Summary) -> str:
    """``5 of 33 decisions agree with the search (15%); about 620 points lost; 1 mistake,
    2 blunders`` (for the game, the points lost a decision too)."""
    share = f" ({s.agreeing / s.decisions:.0%})" if s.decisions else ""
    each = f", {s.lost / s.decisions:.0f} a decision" if s.decisions and s.hand_no is None \
        else ""
    agree = "agrees" if s.decisions == 1 else "agree"
    return (f"{s.agreeing} of {plural(s.decisions, 'decision')} {agree} with the"
            f" search{share}; about {s.lost:.0f} points lost{each};"
            f" {plural(s.mistakes, 'mistake')}, {plural(s.blunders, 'blunder')}")


def worst_text(d: Decision) -> str:
    return (f"#{d.number} (hand {d.hand_no}, turn {d.hand_turn}): {d.played.move}; the"
            f" search: {d.best.move}; loss {value_text(d.loss, d.loss_half)}, {d.verdict}")


def play_text(s: PlayStats) -> str:
    """The seat's statistics of play in words (docs/tournaments.md defines each)."""
    def pct(x: float | None) -> str:
        return "-" if x is None else f"{100 * x:.0f}%"

    def num(x: float | None, digits: int = 2) -> str:
        return "-" if x is None else f"{x:.{digits}f}"

    return (f"{s.hands} hand{'s' * (s.hands != 1)}; went out {pct(s.go_out_rate)} (concealed"
            f" {pct(s.concealed_rate)}); took the pile {num(s.takes_per_hand)} a hand,"
            f" {num(s.mean_pile, 1)} cards on average; canastas a hand: natural"
            f" {num(s.natural_per_hand)}, mixed {num(s.mixed_per_hand)}; red threes"
            f" {num(s.red_threes_per_hand)} a hand; points left when another side went out"
            f" {num(s.mean_left, 0)}; hands ended by the stock {s.stock_hands};"
            f" {num(s.mean_decision_ms, 1)} ms a decision")


def review_lines(r: Review) -> list[str]:
    """The whole review as text lines, none wider than 80 columns."""
    seat_name = visible(r.names[r.seat]) if r.seat < len(r.names) else f"seat {r.seat}"
    state = "game over" if r.finished else "not over"
    intro = (f"Each decision is set against the search ({r.deals} deals a move, seed {r.seed}),"
             " from this seat's view only. A value is the hand's points for the seat's side"
             " less the other side's, as the search expects them, with its 95% interval; the"
             " loss is what the search's choice makes more, deal by deal. Mistake: a loss"
             f" above {r.threshold:.0f} points; blunder: above"
             f" {BLUNDER_TIMES * r.threshold:.0f} (either only when its interval is above 0).")
    out = [fit(f"Review of seat {r.seat} ({seat_name}), {visible(r.rules)}, {state}:"
               f" {visible(r.record.name)}", WIDTH, hang=2), fit(intro, WIDTH, hang=0)]
    summaries = {s.hand_no: s for s in r.hands()}
    hand = None
    for d in r.decisions:
        if d.hand_no != hand:
            if hand is not None:
                out.append(fit(f"  Hand {hand}: {summary_text(summaries[hand])}", WIDTH, hang=4))
            hand = d.hand_no
            out += ["", f"Hand {hand}"]
        out += decision_lines(d)
    if hand is not None:
        out.append(fit(f"  Hand {hand}: {summary_text(summaries[hand])}", WIDTH, hang=4))
    out += ["", fit(f"Game: {summary_text(r.total())}", WIDTH, hang=2)]
    worst = r.worst()
    if worst:
        out.append("Worst decisions:")
        out += [fit(f"  {worst_text(d)}", WIDTH, hang=4) for d in worst]
    if r.play is not None and r.play.hands:
        out.append(fit(f"Statistics of play: {play_text(r.play)}", WIDTH, hang=2))
    skipped = []
    if r.forced:
        skipped.append(plural(r.forced, "forced move"))
    if r.unjudged:
        skipped.append(f"{plural(r.unjudged, 'answer')} to 'may I go out?'")
    if skipped:
        out.append(fit(f"Not judged: {' and '.join(skipped)}.", WIDTH, hang=2))
    return out
