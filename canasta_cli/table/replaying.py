"""A recorded game shown at the terminal (``canasta replay``): in full or as one seat saw it,
all at once or step by step (the table as that seat saw it after each turn), or verified
move by move through the engine."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer

from ..core import observation
from ..core.errors import CanastaError
from ..hosting.records import load_record, sealed_parts
from ..hosting.replay import Replay, verify
from ..hosting.replay import replay as run_replay
from ..ui.event_text import describe_event, only_cards, second_person, story
from ..ui.render import Screen, event_cards, fit, render_table, seat_labels, stream_style
from ..ui.screen import next_step, rows, say, stream_height, stream_width, tail_fitting


class ReplayRefused(CanastaError):
    """A replay that cannot be shown as asked (a seat out of range, or an unfinished game's
    hidden hands)."""


@dataclass(frozen=True)
class ReplayPlan:
    """One ``canasta replay``: the record, the seat whose view to show (None: the whole
    game), and whether to verify it, or to wait for Enter after each turn (``step``) or
    each event (``each_event``)."""

    record: Path
    seat: int | None = None
    verify: bool = False
    step: bool = False
    each_event: bool = False


def run(plan: ReplayPlan) -> bool:
    """Show or verify the plan's record; False when a verified record does not replay
    identically (each mismatch said)."""
    seat, public = plan.seat, False
    lines = load_record(plan.record)
    secret = None
    if sealed_parts(lines) is None and lines[0].get("secret"):
        # A saved game that goes on later: only its player's own view is shown.
        from .session import load_secret, own_seat
        secret = load_secret(plan.record, lines)
        seat = own_seat([str(x) for x in lines[0].get("seats", [])], seat)
        public = seat is None
    rep = verify(lines, secret) if plan.verify else run_replay(lines, secret)
    players = rep.state.rules.players
    if seat is not None and not 0 <= seat < players:
        raise ReplayRefused(f"--seat must be from 0 to {players - 1}")
    if plan.verify:
        return _verified(rep)
    if plan.step and seat is not None:
        _step_through(rep, seat, [str(n) for n in rep.header.get("seats", [])], plan.each_event)
    else:
        _tell(rep, seat, public, plan)
    return True


def _verified(rep: Replay) -> bool:
    if rep.ok:
        n = sum(len(e) for _, _, e in rep.steps)
        typer.echo(f"OK: {len(rep.steps) - 1} moves and {n} events replay identically;"
                   f" scores {list(rep.state.scores)}")
        return True
    for m in rep.mismatches:
        typer.echo(f"MISMATCH: {m}")
    return False


def _tell(rep: Replay, seat: int | None, public: bool, plan: ReplayPlan) -> None:
    """Every move and event in words, as ``seat`` (or the public, or everyone) saw them."""
    card = event_cards()  # 6♥ as on the table, on a terminal and on a pipe alike
    step, each_event = plan.step, plan.each_event
    for i, (who, move, evs) in enumerate(rep.steps):
        if move is not None:
            say(f"--> seat {who}: {move}")
        for e in evs:
            shown = e.view(-1) if public else e.view(seat) if seat is not None else e.full()
            say("    " + describe_event(shown, card=card))
            if step and each_event and not next_step():
                return
        if step and not each_event and move is not None and _turn_ends(rep, i) \
                and not next_step():
            return


def _turn_ends(rep: Replay, i: int) -> bool:
    """Whether step ``i`` is the last move of a player's turn (the next move is somebody
    else's, or there is none)."""
    who = rep.steps[i][0]
    return i + 1 >= len(rep.steps) or rep.steps[i + 1][0] != who


def _step_through(rep: Replay, seat: int, names: list[str], each_event: bool = False) -> None:
    """``replay --step --seat N``: the table as seat N saw it after each player's turn, with
    what happened in between; ``each_event``: a pause after every event, the table shown
    after each move's last one."""
    states = rep.states
    steps = rep.steps
    style = stream_style()
    width = stream_width()
    height = stream_height()
    players = len(states[0].hands)
    names = names if len(names) == players else [f"seat {i}" for i in range(players)]
    labels = seat_labels(seat, names, states[0].rules.partnerships, states[0].rules.sides)
    card = only_cards(style.card)

    def label(s: int) -> str:
        return labels[s] if 0 <= s < players else str(s)

    told: list[str] = []
    for i, ((who, move, evs), state) in enumerate(zip(steps, states, strict=False)):
        if move is not None and who is not None:
            told.append(f"--> {labels[who]}: {move}")
        if each_event:
            # One pause per event: each event in words alone (a pile take is then three
            # events: the meld of the top card, the take and the pick-up).
            for e in evs[:-1]:
                told.append("    " + second_person(describe_event(e.view(seat), label, card)))
                typer.echo(fit("\n".join(told), width))
                told = []
                if not next_step():
                    return
            told += ["    " + second_person(describe_event(e.view(seat), label, card))
                     for e in evs[-1:]]
        else:
            told += ["    " + x for x in story([e.view(seat) for e in evs], label, card)]
            if i and not _turn_ends(rep, i) and not state.is_over:
                continue
        obs = observation(state, seat, history=False)
        screen = Screen(style, width, max(height - 8, 10) if height else 0)
        table = [] if state.is_over else [render_table(obs, [], names, screen)]
        room = max(height - 2 - rows(table, width), 3) if height else 0
        shown = tail_fitting(told, room, width) if height else told
        if len(shown) < len(told):
            shown = [f"({len(told) - len(shown)} earlier lines of this turn not shown)",
                     *shown[1:]]
        typer.echo(fit("\n".join(shown + table), width))
        told = []
        if state.is_over:
            break
        if i + 1 < len(steps) and not next_step():
            return
