"""The human seat: the table, redrawn at each decision, and the prompt.

It receives exactly the protocol messages a bot would and answers ``act`` requests with the
move a person typed.  Several human seats may share one terminal (hot-seat play): each
hand is hidden until its owner presses Enter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from ..core.cards import parse_kind
from ..core.notation import NOTATION_HELP
from ..core.reasons import GOES_ON
from ..protocol.messages import PROTOCOL, ActRequest
from ..ui.event_text import story
from ..ui.prompt import Choice, InputError, Terminal, check_input
from ..ui.render import Screen, Side, Style, render_hand_end, render_scores, render_table, seat_labels
from ..ui.screen import fit, rows
from ..util.package_data import rules_file
from .base import Interrupted, Message, Seat

_MOVES = NOTATION_HELP.split("\n\n", 1)[-1].rstrip()  # the table of moves, not the docstring's title

HELP_PARAGRAPHS = [
    "Commands: help, moves (the legal moves), log (everything that happened this hand),"
    " score, hint (what the search player would do, and why), undo (takes back your last"
    " meld or addition of this turn, or your last line of them, before you discard; never a"
    " draw or a pile take), quit (saves the game; also when asked to press Enter).",
    "Type a move and press Enter; Tab completes it, or lists the moves and commands that"
    " start with what you typed; Up and Down recall what you typed. Several moves in one"
    " line, separated by ';' (meld 6 6 6; meld A A A; discard 9), are played all together"
    " or, if one cannot be played, not at all: handy to reach the minimum. 'hint' sees only"
    " what your seat may see.",
    "Rules in short: draw or take the pile, meld (3 or more cards of a rank; wild cards never"
    " more than the naturals, nor more than 3), discard one card. Your side's first melds of a"
    " hand must reach the minimum shown. Going out needs a canasta (7 or more cards). All the"
    f" rules: canasta rules, and the file {rules_file()}",
]
_MOVE_ROWS = [line.strip() for line in _MOVES.splitlines() if line.strip()]


def help_text(width: int = 0) -> str:
    """The help, each paragraph and each row of the moves table wrapped to ``width`` (the
    moves' explanations under one another)."""
    table = []
    for row in _MOVE_ROWS:
        move, _, what = row.partition("  ")
        line = f"  {move:<21}{what.strip()}"
        table.append(fit(line, width, hang=23) if width else line)
    paragraphs = [fit(p, width, hang=0) if width else p for p in HELP_PARAGRAPHS]
    return "\n".join([paragraphs[0], paragraphs[1], "Moves:", *table, paragraphs[2]])


HELP = help_text()


RESERVE_FINAL = 9  # rows under the last hand's summary: the verdict, the replay and review lines


def _why_not(move: Any, top: Any, evidence: Any) -> str:
    """Why ``move`` (a search ``Ranked``), estimated above ``top``, is not recommended: its
    estimate is rougher (fewer deals), or the difference is within the noise, and then the
    search keeps its quick player's move (players/evidence.py: ``clearly_better``)."""
    if move.samples < top.samples:
        values = evidence.values[move.index] if evidence is not None else None
        if values is not None and len(values) >= evidence.deals:
            how = "it could not be played on the others"
        else:
            how = "it looked weaker on the first deals and was dropped"
        return (f"judged on {move.samples} deals only ({how}): a rougher estimate than"
                f" the {top.samples} deals of the recommended move")
    return (f"by less than the noise of these estimates: over the same {top.samples} deals it"
            " is not clearly better, and then the search player keeps its quick player's"
            " choice")


class SharedTable:
    """State shared by the human seats of one terminal: what has been shown already."""

    def __init__(self, terminal: Terminal, style: Style) -> None:
        self.terminal = terminal
        self.style = style
        self.humans: list[int] = []
        self.last_actor: int | None = None
        self.shown: set[tuple[str, int, int]] = set()
        self.undo = False  # 'undo' offered (play: built-in opponents only, or --undo)

    def once(self, key: tuple[str, int, int]) -> bool:
        if key in self.shown:
            return False
        self.shown.add(key)
        return True


@dataclass
class _Turn:
    """One decision at the prompt: what may be typed, and the moves held so far."""

    msg: Message
    asked: Any  # the referee's request, or what a network client asks with (RemoteAct)
    ahead: Any  # the turn after held moves, asked of ``asked`` (None: 'undo' is off)
    recent: list[dict[str, Any]]  # the events since this seat last played
    legal: list[str] = field(default_factory=list)
    explain: Any = None
    sequence: Any = None
    view: Any = None  # the turn after the held moves (None: as dealt to this decision)
    held: list[str] = field(default_factory=list)  # melds and additions not yet sent
    sizes: list[int] = field(default_factory=list)  # the moves of each line held
    top: int | None = None

    def __post_init__(self) -> None:
        self.top = parse_kind(self.obs["pile_top"]) if self.obs["pile_top"] else None
        self.see(None)

    @property
    def obs(self) -> dict[str, Any]:
        return cast(dict[str, Any], self.msg["observation"])

    def see(self, view: Any) -> None:
        """The legal moves and judges after the held moves (``view``), or, None, the
        request's own."""
        self.view = view
        if view is not None:
            self.legal = list(view.moves)
            self.explain, self.sequence = view.explain, view.sequence
        else:
            self.legal = [m["text"] for m in self.msg["moves"]]
            self.explain = getattr(self.asked, "explain", None)
            self.sequence = getattr(self.asked, "sequence", None)

    def check(self, text: str) -> Choice:
        if text.strip().lower() == "undo":
            return Choice(command="undo")
        return check_input(text, self.legal, self.top, self.explain, self.sequence)

    def options(self) -> list[str]:
        """What Tab completes."""
        return [*self.legal, "help", "moves", "log", "score", "quit",
                *(["undo"] if self.held else [])]


class HumanSeat(Seat):
    timed = False
    explains = True

    def __init__(self, table: SharedTable, name: str = "you") -> None:
        self.table = table
        self.name = name
        self._asked: ActRequest | None = None  # the request in hand (its explain and ahead)
        self.seat = 0
        self.names: list[str] = []
        self.recent: list[dict[str, Any]] = []
        self.obs: dict[str, Any] | None = None
        self.game = 0
        self.partnerships = True
        self.sides = 2  # scores kept: 2 partnerships, 3 (six players in pairs), or one a player
        self.hand_over = False  # a hand ended since this seat last played
        self.history: list[dict[str, Any]] = []  # hand_ended events of this game
        self.replaying = False  # a resumed game's moves so far are being replayed
        self.queue: list[str] = []  # the rest of a line of several moves, checked whole
        # The melds and additions held at the last prompt, with that request's game and id: a
        # request asked again (the prompt woken by news from a network table) starts with them.
        # ``sizes``: how many moves each undo takes back (a line of several melds is one).
        self.held: tuple[Any, list[str], list[int]] | None = None
        self.hand_events: list[dict[str, Any]] = []  # this hand so far, for 'log'
        self.pending_end: dict[str, Any] | None = None  # a hand_ended not shown yet
        # Hands whose end this player has not seen (a table's client, back after hands played
        # without them): shown even while the game so far is replayed.
        self.missed: set[int] = set()
        self._missed_end = False  # the pending end is one of those
        from ..players.search import SearchPlayer
        # 'hint': sees what this seat sees; twice the deals of 'hard', the same every time
        self.advisor = SearchPlayer(seed=0, deals=96, infer=True)

    def _label(self, s: int) -> str:
        """What this player calls seat ``s`` (You, Partner, Left...)."""
        labels = self._labels()
        return labels[s] if 0 <= s < len(labels) else f"seat {s}"

    def _hint(self, msg: Message) -> str:
        """The search player's top three moves for this decision, from this seat's view.  A
        listed move whose estimate is above the recommended one's says why it is not the
        one recommended."""
        ranked = self.advisor.rank(msg)
        if len(ranked) == 1:
            return f"Hint: {ranked[0].text} (the only sensible move here)"
        top = ranked[0]
        lines = [f"Hint: the search player would play {top.text}. Its estimates (score"
                 " difference for your side after a few turns, over"
                 f" {top.samples} random deals of the cards you cannot see):"]
        evidence = getattr(self.advisor, "evidence", None)
        players = len(self.names) if evidence is not None else 0
        labels = [self._label(s) for s in range(players)]
        for r in ranked[:3]:
            # A move dropped early by the search was judged on fewer deals: say how many.
            fewer = f"  ({r.samples} deals)" if r.samples != top.samples else ""
            lines.append(f"  {r.text:<20} {r.value:+8.0f}{fewer}")
            if r is not top and r.value > top.value:
                lines.append(f"      above {top.text}, but {_why_not(r, top, evidence)}")
            if evidence is not None:
                lines.append(f"      {evidence.reason(r.index, players, labels)}")
        return "\n".join(lines)

    def _undo_off(self) -> str:
        return " (and undo is off in this game: see play --undo)"

    def start(self, hello: Message, timeout: float) -> Message:
        self.advisor(hello)
        self.seat = int(hello["seat"])
        self.table.humans.append(self.seat)
        return {"type": "ready", "protocol": PROTOCOL, "name": self.name}

    @property
    def my_side(self) -> int:
        return self.seat % self.sides

    def _labels(self) -> list[str]:
        return seat_labels(self.seat, self.names, self.partnerships, self.sides)

    def _show_hand_end(self, final: bool) -> None:
        """The summary of the hand that just ended, held back until the next message says
        whether the game ends with it: the last one leaves room for the game's verdict."""
        event, self.pending_end = self.pending_end, None
        if event is None:
            return
        terminal, style = self.table.terminal, self.table.style
        plays = story([e for e in self.recent if e["type"] != "hand_ended"], self._label,
                      style.card)
        height = terminal.height
        # A hand that ended while this player was away: its last plays that fit, on one
        # page under a line that says so (its whole story would be every play since the hand
        # began, the ones seen before they left too).
        room = height - (RESERVE_FINAL if final else 1) - (1 if self._missed_end else 0)
        text = render_hand_end(event, Side(self.my_side, self.partnerships, self._labels()),
                               Screen(style, terminal.width, max(8, room) if height else 0),
                               plays, earlier=not self._missed_end)
        if self._missed_end:
            terminal.show(style.warn(f"While you were away, hand {event['hand']} ended:"))
        terminal.page(text)

    def send(self, msg: Message) -> None:
        self.advisor(msg)
        kind = msg.get("type")
        if self.pending_end is not None:
            final = kind == "game_end" or (kind == "event"
                                           and msg["event"]["type"] == "game_ended")
            self._show_hand_end(final)
        if kind == "game_start":
            self.seat, self.game = int(msg["seat"]), int(msg["game"])
            self.names = list(msg["names"])
            self.partnerships = int(msg["players"]) in (4, 6)
            rules = msg.get("rules") or {}
            self.sides = (3 if rules.get("three_partnerships") else 2) if self.partnerships \
                else int(msg["players"])
            self.recent = []
            self.history = []
        elif kind == "event":
            event = msg["event"]
            self.recent.append(event)
            self.hand_events.append(event)
            if event["type"] == "hand_started":
                self.recent = [event]
                self.hand_events = [event]
            if event["type"] == "hand_ended":
                self.hand_over = not self.replaying  # no "start hand N" for one under way
                self.history.append(event)
            missed = self.replaying and event["type"] == "hand_ended" \
                and event["hand"] in self.missed
            if event["type"] == "hand_ended" and (missed or not self.replaying) \
                    and self.table.once(("hand", self.game, event["hand"])):
                self.pending_end = event
                self._missed_end = missed
        elif kind == "game_end" and msg["reason"] not in GOES_ON \
                and self.table.once(("game", self.game, 0)):
            self.table.terminal.show(self.table.style.bold(
                f"== Game over ({str(msg['reason']).replace('_', ' ')}): "
                f"{self._verdict(msg['winner'])} Final scores: "
                + " / ".join(str(s) for s in msg["scores"]) + " =="))
        elif kind == "error":
            self.table.terminal.show(self.table.style.warn(f"Referee: {msg['message']}"))

    def _held_hint(self, msg: Message, view: Any) -> str:
        """The hint for the rest of the turn after the held melds (``view``): the search
        player asked about the table as they would leave it, its events heard first."""
        asked = dict(msg, observation=view.observation,
                     moves=[{"index": i, "text": t} for i, t in enumerate(view.moves)])
        history: Any = getattr(self.advisor, "history", None)
        kept = list(history) if isinstance(history, list) else None
        if kept is not None:
            history.extend(view.events)
        try:
            text = self._hint(asked)
        finally:
            if kept is not None:
                history[:] = kept
        return f"  (after your held melds)\n{text}" if text.startswith("Hint") else text

    def _held_line(self, held: list[str]) -> str:
        return self.table.style.dim(f"Held, not played yet: {'; '.join(held)}. 'undo' takes"
                                    " back the last line; the others see them when you discard.")

    def _verdict(self, winner: int | None) -> str:
        """Who won, in this player's words (or by side, when several people share the
        terminal and "you" would be ambiguous)."""
        if winner is None:
            return "a draw."
        alone = len(self.table.humans) == 1
        if self.partnerships:
            if alone:
                return "your side wins!" if winner == self.my_side else "the other side wins."
            team = ", ".join(n for i, n in enumerate(self.names) if i % self.sides == winner)
            return f"side {winner} ({team}) wins."
        if alone:
            return "you win!" if winner == self.seat else f"{self._label(winner)} wins."
        return f"{self.names[winner]} wins."

    def act(self, request: ActRequest, timeout: float) -> Message:
        self._asked = request
        try:
            return self.request(cast(Message, request.message()), timeout)
        finally:
            self._asked = None

    def request(self, msg: Message, timeout: float) -> Message:
        self.replaying = False
        self._show_hand_end(False)
        if msg.get("type") != "act":
            raise Interrupted()
        if self.queue:
            following = self.queue.pop(0)
            if following in (m["text"] for m in msg["moves"]):
                return {"type": "move", "id": msg["id"], "move": following}
            self.queue.clear()  # cannot happen: the whole line was checked
        self.obs = msg["observation"]
        self._come_to_screen(self.obs)
        turn = self._turn(msg)
        self._draw(turn, first=self.table.once(("first", self.game, 0)))
        prompt = self._prompt(turn.obs)
        while True:
            choice = self.table.terminal.read_line(prompt, turn.check, turn.options)
            if choice.move is not None:
                line = [choice.move, *choice.then]
                if self._hold(turn, line):
                    continue
                moves = [*turn.held, *line]
                self.queue, self.held = moves[1:], None
                return {"type": "move", "id": msg["id"], "move": moves[0]}
            if choice.command == "quit":
                self.held = None
                raise Interrupted()
            self._command(turn, choice.command)

    def _come_to_screen(self, obs: dict[str, Any]) -> None:
        """The pauses before a decision: the start of a new hand, and in hot-seat play the
        screen handed over to this seat's player (cleared first: nothing private shows)."""
        terminal = self.table.terminal
        handed_over = False
        if self.hand_over:
            self.hand_over = False
            if self.table.once(("next", self.game, int(obs["hand_no"]))):
                if len(self.table.humans) > 1 and self.table.last_actor != self.seat:
                    # One Enter: the summary shows every hand already, so nothing private
                    # is on the screen while the next player comes to it.
                    terminal.pause(f"Hand {obs['hand_no']}: seat {self.seat} ({self.name})"
                                   " plays first: press Enter when nobody else can see the"
                                   " screen. ", quit_ok=True)
                    terminal.clear()
                    handed_over = True
                else:
                    terminal.pause(f"Press Enter to start hand {obs['hand_no']} ('quit'"
                                   " saves the game). ", quit_ok=True)
        if len(self.table.humans) > 1 and self.table.last_actor != self.seat \
                and not handed_over:
            terminal.clear()
            terminal.pause(f"Seat {self.seat} ({self.name}): press Enter when nobody else can see"
                           " the screen. ", quit_ok=True)
        self.table.last_actor = self.seat

    def _turn(self, msg: Message) -> _Turn:
        """The decision ``msg`` asks for, with the events since this seat last played; a
        request asked again (the prompt woken by news from a network table) starts with the
        melds and additions held at the last prompt."""
        recent, self.recent = self.recent, []
        # The referee's request, or what a network client asks with (``net.client.RemoteAct``).
        asked: Any = self._asked if self._asked is not None else msg
        turn = _Turn(msg, asked, getattr(asked, "ahead", None) if self.table.undo else None,
                     recent)
        kept, self.held = self.held, None
        if kept is not None and kept[0] == (self.game, msg["id"]) and kept[1] \
                and turn.ahead is not None:
            view = turn.ahead(list(kept[1]))  # asked again: the same held moves, seen anew
            if view is not None:
                turn.held[:] = kept[1]
                turn.sizes[:] = kept[2] if sum(kept[2]) == len(turn.held) \
                    else [1] * len(turn.held)
                turn.see(view)
        self.held = ((self.game, msg["id"]), turn.held, turn.sizes)
        return turn

    def _draw(self, turn: _Turn, first: bool = False, again: bool = False) -> None:
        """The table after the held moves (or as dealt to this decision), the held line
        under it.  Drawn first, a welcome under it for a newcomer's ``first`` decision and a
        blank line above it when it leaves room; drawn ``again`` (after a move held or taken
        back), three rows kept for the rest and a blank line above it on a pipe only."""
        terminal, style = self.table.terminal, self.table.style
        height, width = terminal.height, terminal.width
        note = [style.dim("New here? 'help' lists the commands and moves; 'canasta learn'"
                          " teaches the game.")] if first else []
        if turn.held:
            note.append(self._held_line(turn.held))
        budget = (height - 3 if again else height - 2 - rows(note, width)) if height else 0
        view = turn.view
        events = view.events if view is not None else []
        text = render_table(view.observation if view is not None else turn.obs,
                            turn.recent + events, self.names,
                            Screen(style, width, max(budget, 6) if height else 0),
                            self.hand_events + events)
        blank = not height or (not again and rows([text, *note], width) < height - 2)
        terminal.show("\n".join(([""] if blank else []) + [text] + note))

    def _prompt(self, obs: dict[str, Any]) -> str:
        """The prompt of this decision, after the question it answers if it is one."""
        if obs["phase"] == "answer":
            asker = obs["turn_seat"]
            self.table.terminal.show(self.table.style.bold(
                f"{self._label(asker)} asks you: may I go out?"))
            return "Answer yes or no> "
        return f"Seat {self.seat}, your move> "

    def _hold(self, turn: _Turn, line: list[str]) -> bool:
        """Hold ``line`` until the discard if it can be: only melds and additions are held
        (asked about: over the network, a question to the server); anything else ends the
        line, played at once (False)."""
        if turn.ahead is None or not all(m.startswith(("meld ", "add ")) for m in line):
            return False
        view = turn.ahead([*turn.held, *line])
        if view is None:
            return False
        turn.held.extend(line)
        turn.sizes.append(len(line))
        turn.see(view)
        self._draw(turn, again=True)
        return True

    def _command(self, turn: _Turn, command: str | None) -> None:
        """A command typed at the prompt (all but 'quit')."""
        terminal, style = self.table.terminal, self.table.style
        if command == "undo":
            self._undo(turn)
        elif command == "help":
            terminal.page(help_text(terminal.width))
        elif command == "moves":
            terminal.show("Legal moves: " + ", ".join(turn.legal))
        elif command == "log":
            terminal.page("\n".join(story(self.hand_events, self._label, style.card)))
        elif command == "score":
            terminal.show(render_scores(turn.obs, self.history, self.partnerships))
        elif command == "hint":
            terminal.show(self._held_hint(turn.msg, turn.view)
                          if turn.held and turn.view is not None else self._hint(turn.msg))

    def _undo(self, turn: _Turn) -> None:
        """Take back the last line of held melds and additions, and draw the table again."""
        terminal, held = self.table.terminal, turn.held
        if not held:
            terminal.show("  nothing to undo: only your melds and additions of this"
                          " turn are taken back, never a draw or a pile take"
                          + ("" if self.table.undo else self._undo_off()))
            return
        count = turn.sizes.pop() if turn.sizes else 1
        taken = "; ".join(held[-count:])
        del held[-count:]
        turn.see(turn.ahead(held) if held and turn.ahead is not None else None)
        terminal.show(f"  took back: {taken}")
        self._draw(turn, again=True)


__all__ = ["HumanSeat", "InputError", "SharedTable"]
