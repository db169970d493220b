"""``canasta replay``: step through a recorded game, as a seat saw it, or verify it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..core import observation
from ..hosting.records import RecordError, load_record, sealed_parts
from ..hosting.replay import Replay, verify
from ..hosting.replay import replay as run_replay
from ..ui.event_text import describe_event, only_cards, second_person, story
from ..ui.render import event_cards, fit, render_table, seat_labels, stream_style
from ..ui.screen import rows, say, stream_height, stream_width, tail_fitting
from .options import fail, next_step


def register(app: typer.Typer) -> None:
    app.command()(replay)



def replay(
    record: Annotated[Path, typer.Argument(help="A game record (.jsonl) written by a match.")],
    seat: Annotated[int | None, typer.Option(
        help="Show the game as this seat saw it (an unfinished save of yours: your seat, by"
        " default).")] = None,
    verify_: Annotated[bool, typer.Option(
        "--verify", help="Re-play every move through the engine and check every event and score.")]
    = False,
    step: Annotated[bool, typer.Option(
        help="Wait for Enter after each player's turn (with --seat: the table as it saw it).")]
    = False,
    each_event: Annotated[bool, typer.Option(
        "--each-event", help="With --step: wait after every event, not every turn (with"
        " --seat: the table after each move's last event).")]
    = False,
    html: Annotated[Path | None, typer.Option(
        help="Write a self-contained HTML replay viewer to this file (opens at --seat's view).")]
    = None,
) -> None:
    """Step through a recorded game, or verify it."""
    if html is not None:
        from .report import replay_to_html
        return replay_to_html(record, html, seat)
    public = False
    try:
        lines = load_record(record)
        secret = None
        if sealed_parts(lines) is None and lines[0].get("secret"):
            # A saved game that goes on later: only its player's own view is shown.
            from ..table.session import load_secret  # with the prompt: loaded only for a save
            secret = load_secret(record, lines)
            seat = _own_seat(lines[0], seat)
            public = seat is None
        rep = verify(lines, secret) if verify_ else run_replay(lines, secret)
    except RecordError as exc:
        raise fail(str(exc)) from None
    players = rep.state.rules.players
    if seat is not None and not 0 <= seat < players:
        raise fail(f"--seat must be from 0 to {players - 1}")
    if verify_:
        if rep.ok:
            n = sum(len(e) for _, _, e in rep.steps)
            typer.echo(f"OK: {len(rep.steps) - 1} moves and {n} events replay identically;"
                       f" scores {list(rep.state.scores)}")
            return
        for m in rep.mismatches:
            typer.echo(f"MISMATCH: {m}")
        raise typer.Exit(1)
    if step and seat is not None:
        _step_through(rep, seat, [str(n) for n in rep.header.get("seats", [])], each_event)
        return
    card = event_cards()  # 6♥ as on the table, on a terminal and on a pipe alike
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


def _own_seat(header: dict[str, Any], seat: int | None) -> int | None:
    """The seat an unfinished save may be shown from: its one person's seat.  The other
    seats' hands stay hidden; a save of several people at one terminal shows none."""
    specs = [str(x) for x in header.get("seats", [])]
    humans = [i for i, spec in enumerate(specs) if spec == "human" or spec.startswith("human:")]
    if seat is None:
        return humans[0] if len(humans) == 1 else None
    if len(humans) == 1 and seat == humans[0]:
        return seat
    raise fail("this game is not over: it is shown only from its player's own seat"
               + (f" (--seat {humans[0]})" if len(humans) == 1 else
                  ", and several people share it: from no seat until it ends"))


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
        table = [] if state.is_over else [render_table(obs, [], names, style, width,
                                                       max(height - 8, 10) if height else 0)]
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
