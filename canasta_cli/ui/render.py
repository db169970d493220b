"""Text for people: cards with suit symbols and colour, the table, score tables.

Everything here works from protocol messages (observation, event views), exactly what the
human's seat may see.  Colour follows NO_COLOR and the terminal; ``ascii`` drops symbols.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.cards import SUIT_SYMBOLS as SYMBOLS
from ..util.seat_names import split_name
from ..util.words import plural
from .event_text import CardText, only_cards, story
from .screen import choose, rows, tail_fitting
from .screen import fit as fit  # re-exported: callers import it from here
from .screen import visible_len as visible_len

RANK_ORDER = ["Jo", "2", "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3"]


FOUR_COLORS = {"c": "32", "d": "34", "h": "31", "s": ""}  # clubs green, diamonds blue


@dataclass(frozen=True)
class Style:
    color: bool = True
    ascii: bool = False
    four_color: bool = False  # each suit its own colour (--four-color)

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def red(self, text: str) -> str:
        return self._wrap("31", text)

    def wild(self, text: str) -> str:
        return self._wrap("35;1", text)

    def good(self, text: str) -> str:
        return self._wrap("32", text)

    def warn(self, text: str) -> str:
        return self._wrap("33", text)

    def card(self, card: str) -> str:
        """``Kh`` as K♥ in red, wild cards marked; ``Kh`` / ``*2c`` in ASCII."""
        if card == "Jo":
            return self.wild("Jo*" if self.ascii else "Jo\u2605")
        rank, suit = card[:-1], card[-1]
        shown = rank + (suit if self.ascii else SYMBOLS[suit])
        if rank == "2":
            return self.wild(shown + "*")
        if self.four_color:
            code = FOUR_COLORS.get(suit, "")
            return self._wrap(code, shown) if code else shown
        return self.red(shown) if suit in "dh" else shown


def stream_style(err: bool = False) -> Style:
    """The style of plain printed lines (a replay, a demo, a spectator's view): no colour,
    cards as on the table (6♥), in ASCII (6h) only where the stream's encoding cannot write
    the suits."""
    import sys
    stream = sys.stderr if err else sys.stdout
    try:
        "\u2663\u2666\u2665\u2660\u2605".encode(getattr(stream, "encoding", None) or "ascii")
    except (LookupError, UnicodeError):
        return Style(color=False, ascii=True)
    return Style(color=False, ascii=False)


def event_cards(err: bool = False) -> CardText:
    """How printed events write cards: as the table does (``stream_style``)."""
    return only_cards(stream_style(err).card)


def rank_of(card: str) -> str:
    return "Jo" if card == "Jo" else card[:-1]


def hand_line(cards: list[str], style: Style) -> str:
    """Grouped by rank, wild cards first: ``Jo★ 2♣* | A♦ | Q♣ Q♥ | 7♣ 7♥``."""
    groups: dict[str, list[str]] = {}
    for c in cards:
        groups.setdefault(rank_of(c), []).append(c)
    order = sorted(groups, key=lambda r: RANK_ORDER.index(r) if r in RANK_ORDER else 99)
    return " | ".join(" ".join(style.card(c) for c in groups[r]) for r in order)


RANK_NAMES = {"A": "Aces", "K": "Kings", "Q": "Queens", "J": "Jacks", "10": "Tens",
              "9": "Nines", "8": "Eights", "7": "Sevens", "6": "Sixes", "5": "Fives",
              "4": "Fours", "3": "Black threes"}


def meld_line(meld: dict[str, Any], style: Style) -> str:
    """``Aces ×3: A♠ A♦ ★`` (x3 in ASCII), with the canasta it is, if it is one."""
    cards = " ".join(style.card(c) for c in meld["cards"])
    n = len(meld["cards"])
    times = "x" if style.ascii else "\u00d7"
    label = f"{RANK_NAMES.get(str(meld['rank']), str(meld['rank']))} {times}{n}"
    if meld.get("canasta"):
        kind = meld["canasta"] + (" concealed" if meld.get("concealed") else "")
        label += " " + style.good(f"({kind} canasta)")
    return f"{label}: {cards}"


SIX_LABELS = ["You", "Left 1", "Left 2", "Across", "Right 2", "Right 1"]
PAIRS_LABELS = ["You", "Left 1", "Left 2", "Partner", "Right 2", "Right 1"]


def seat_labels(seat: int, names: list[str], partnerships: bool, sides: int = 2) -> list[str]:
    """What a player calls each seat: You, Partner, Left, Right, Across (a name given with
    human:NAME or NAME=COMMAND is kept), so that no screen says a bare "seat 3".  Six
    players count around the table: Left 1 sits next to you, Left 2 beyond, then Across,
    Right 2, Right 1 (with three partnerships of two, ``sides`` 3, your partner opposite is
    Partner): no name reads as somebody else's partner."""
    n = len(names)
    relative = {2: ["You", "Opponent"],
                3: ["You", "Left", "Right"],
                4: ["You", "Left", "Partner", "Right"],
                6: PAIRS_LABELS if sides == 3 else SIX_LABELS}
    table = relative.get(n, ["You", *(f"Player {k}" for k in range(1, n))])
    out = []
    for s in range(n):
        name = names[s] if s < len(names) else ""
        given = ""
        if s != seat and name.startswith("human:"):
            given = name.split(":", 1)[1]
        elif s != seat:
            given = split_name(name)[0]  # a seat named NAME=COMMAND
        out.append(given or table[(s - seat) % n])
    return out


def watch_labels(names: list[str]) -> list[str]:
    """What a spectator calls each seat: its name (``ana`` for ``remote:ana`` or
    ``human:ana``, ``Bob`` for ``Bob=builtin:greedy``), ``seat N`` for a seat without one,
    a built-in player by its level (``hard``); a name two seats share gets the seat's
    number (``random#1``)."""
    short = []
    for i, name in enumerate(names):
        given, command = split_name(name)
        kind, _, rest = command.partition(":")
        if not given and kind in ("remote", "human"):
            given = rest or f"seat {i}"
        elif not given and kind == "builtin" and rest:
            given = rest
        short.append(given or command or f"seat {i}")
    return [f"{n}#{i}" if short.count(n) > 1 else n for i, n in enumerate(short)]


def side_name(side: int, my_side: int | None, partnerships: bool,
              labels: list[str] | None = None, sides: int = 2) -> str:
    """A side's name in a score column: us / them with partners (with three partnerships,
    each other side by its players: ``Left 1+Right 2``); without, the player's own name from
    ``labels`` (You, Left, Right, Opponent).  A spectator (``my_side`` None) names each side
    by its players (``ana+bo``)."""
    if partnerships and (sides > 2 or my_side is None) and side != my_side \
            and labels is not None:
        return "+".join(labels[s] for s in range(len(labels)) if s % sides == side)
    if partnerships and my_side is None:
        return f"side {side}"
    if partnerships:
        return "us" if side == my_side else "them"
    if labels is not None and 0 <= side < len(labels):
        return labels[side]
    return "you" if side == my_side else f"player {side}"


def _team(labels: list[str], side: int, sides: int) -> str:
    """The players of a side: ``You, Left 2, Right 2``."""
    return ", ".join(labels[s] for s in range(len(labels)) if s % sides == side)


def meld_token(meld: dict[str, Any], style: Style) -> str:
    """One meld in a few columns: ``A×3 (1 wild)``, ``K×7 natural canasta``."""
    times = "x" if style.ascii else "\u00d7"
    n = len(meld["cards"])
    wilds = sum(1 for c in meld["cards"] if c == "Jo" or c[:-1] == "2")
    text = f"{meld['rank']}{times}{n}"
    if meld.get("canasta"):
        kind = meld["canasta"] + (" concealed" if meld.get("concealed") else "")
        return style.good(f"{text} {kind} canasta")
    return text + (f" ({wilds} wild)" if wilds else "")


def frozen_by(events: list[dict[str, Any]]) -> str | None:
    """The card that froze the pile, from this hand's events as a seat saw them: the first
    wild card, red or black three turned up or discarded since the pile was last taken."""
    card: str | None = None
    for e in events:
        t = e.get("type")
        if t in ("hand_started", "took_pile"):
            card = None
        elif t in ("upcard", "discard") and card is None:
            c = str(e.get("card", ""))
            if c == "Jo" or c[:-1] in ("2", "3"):
                card = c
    return card


COMPACT_BELOW = 72  # columns: narrower terminals get the compact table


@dataclass(frozen=True)
class _Seen:
    """What the parts of ``render_table`` share: the observation, the style, and how this
    seat (or a spectator, ``watching``) names the seats."""

    obs: dict[str, Any]
    style: Style
    labels: list[str]
    watching: bool
    partnerships: bool
    sides: int


# PLR0913: net/client.py and cli/ (replay, demo, learn, explore) pass the size and the hand
# positionally; its signature waits for their rewrite (issue 47), its parts share ``_Seen``.
@dataclass(frozen=True)
class Screen:
    """Where text is drawn: the card ``style`` and the terminal's size in columns and rows
    (0: no limit)."""

    style: Style
    width: int = 0
    height: int = 0


def _screen(where: Screen | Style) -> Screen:
    return where if isinstance(where, Screen) else Screen(where)


def render_table(obs: dict[str, Any], recent: list[dict[str, Any]], names: list[str],
                 where: Screen | Style, hand_events: list[dict[str, Any]] | None = None) -> str:
    """The table as seat ``obs["seat"]`` sees it, or as a spectator does (``seat`` None: a
    public observation, every seat by its name, no hand).  Under ``COMPACT_BELOW`` columns
    the compact layout: a short header, the stock and the pile on lines of their own.  With a
    ``height`` (rows), the table fits in it: the melds are written short if they must be,
    and only the most recent events are told, with how many earlier ones ``log`` shows.
    ``hand_events`` (this hand so far) name the card that froze the pile."""
    screen = _screen(where)
    style, width, height = screen.style, screen.width, screen.height
    seat = obs["seat"]
    watching = seat is None
    sides = len(obs["scores"])
    partnerships = obs["players"] in (4, 6)
    compact = 0 < width < COMPACT_BELOW
    labels = watch_labels(names) if watching else seat_labels(seat, names, partnerships, sides)
    seen = _Seen(obs, style, labels, watching, partnerships, sides)
    head = _table_head(seen, names, compact)
    pile = _pile_lines(obs, style, compact, hand_events)
    counts = ", ".join(f"{labels[i]}: {n}" for i, n in enumerate(obs["hand_counts"]) if i != seat)
    tail = [f"{'Hands' if compact else 'Cards in hand'}: {counts}"]
    mine = [] if watching else _my_lines(seen)
    told = story(recent, lambda s: labels[s] if 0 <= s < len(labels) else f"seat {s}",
                 style.card)
    if height <= 0:
        return "\n".join(head + _meld_lines(seen, False) + pile + tail
                         + _told_lines(seen, told, width, height, 0) + mine)
    fixed = rows(head + pile + tail + mine, width)
    # Full melds if they leave room for a few events (all of them, when there are few).
    want = min(rows(told, width) + 1, 4) if told else 0
    table = choose([lambda: _meld_lines(seen, False), lambda: _meld_lines(seen, True)],
                   height - fixed - want, width)
    room = height - fixed - rows(table, width)
    return "\n".join(head + table + pile + tail + _told_lines(seen, told, width, height, room)
                     + mine)


def _table_head(seen: _Seen, names: list[str], compact: bool) -> list[str]:
    """The table's title (the hand, the phase, who is to act) and the scores line."""
    obs, style, labels = seen.obs, seen.style, seen.labels
    seat, side = obs["seat"], obs["side"]
    who = "you" if obs["to_act"] == seat else labels[obs["to_act"]]
    phase = obs["phase"].replace("_", " ")
    if seen.watching:
        head = [style.bold(f"== Hand {obs['hand_no']} - {phase} - {who} to act ==")]
    elif compact:
        head = [style.bold(f"== Hand {obs['hand_no']} - seat {seat} - {phase} - {who}"
                           " to act ==")]
    else:
        head = [style.bold(f"== Hand {obs['hand_no']} - seat {seat} ({names[seat]}) - "
                           f"{phase} - {who} to act ==")]
    score_bits = []
    for s in range(seen.sides):
        melded = "" if obs["side_melded"][s] else f", needs {obs['minimums'][s]} to meld"
        name = side_name(s, side, seen.partnerships, labels, seen.sides)
        name += ":" if name[-1:].isdigit() else ""  # Left 1+Right 2: 0, never "Right 2 0"
        score_bits.append(f"{name} {obs['scores'][s]}{melded}")
    head.append("Scores: " + " | ".join(score_bits))
    return head


def _my_lines(seen: _Seen) -> list[str]:
    """A seat's own lines: its hand, under what its partner answered and what its side has
    melded this turn toward the minimum."""
    obs, style = seen.obs, seen.style
    seat, side, turn = obs["seat"], obs["side"], obs["turn"]
    mine = [style.bold(f"Your hand ({len(obs['hand'])}): ") + hand_line(obs["hand"], style)]
    if turn["permission"] is not None:
        mine.insert(0, style.warn("Your partner said " + ("YES: you must go out this turn"
                                                          if turn["permission"] else
                                                          "NO: you may not go out this turn")))
    if not obs["side_melded"][side] and turn["opening_total"] and obs["turn_seat"] == seat:
        mine.insert(0, f"Melded this turn toward the minimum: {turn['opening_total']}"
                       f" of {obs['minimums'][side]}")
    return mine


def _meld_lines(seen: _Seen, short: bool) -> list[str]:
    """Each side's red threes and melds, a meld a line (``short``: a side a line)."""
    obs, style, labels, sides = seen.obs, seen.style, seen.labels, seen.sides
    if "meld_side" in obs:
        return _cutthroat_lines(obs, labels, style, short)
    side = obs["side"]
    out = []
    for s in range(sides):
        red = " ".join(style.card(c) for c in obs["red_threes"][s])
        name = side_name(s, side, seen.partnerships, labels, sides)
        if not seen.watching:  # a spectator's names are the players' own: left as they are
            name = name[:1].upper() + name[1:]
        if len(labels) > 4 and seen.partnerships and (sides == 2 or s == side) \
                and not seen.watching:
            name += f" ({_team(labels, s, sides)})"
        if short:
            tokens = ", ".join(meld_token(m, style) for m in obs["melds"][s]) or "no melds"
            out.append(f"{name}: {tokens}" + (f"; red threes {red}" if red else ""))
            continue
        out.append(f"{name}: red threes {red or '-'}")
        out += ["    " + meld_line(m, style) for m in obs["melds"][s]]
    return out


def _told_lines(seen: _Seen, told: list[str], width: int, height: int,
                room: int) -> list[str]:
    """The plays since this seat's last turn; with a ``height``, the most recent that fit
    in ``room`` rows, under how many earlier ones 'log' shows."""
    style = seen.style
    if not told:
        return []
    if height <= 0 or rows(told, width) + 1 <= room:
        since = "The last plays:" if seen.watching else "Since your last turn:"
        return [style.dim(since)] + ["  " + t for t in told]
    shown = tail_fitting(["  " + t for t in told], room - 1, width)
    if not shown:
        return [style.dim(f"{plural(len(told), 'event')} since your last turn: type"
                          " 'log' to read them")]
    earlier = len(told) - len(shown)
    return [style.dim(f"Since your last turn ({earlier} earlier"
                      f" {'event' if earlier == 1 else 'events'}: type 'log'):")] + shown


def _pile_lines(obs: dict[str, Any], style: Style, compact: bool,
                hand_events: list[dict[str, Any]] | None) -> list[str]:
    top = style.card(obs["pile_top"]) if obs["pile_top"] else "-"
    pile = f"Pile {plural(obs['pile_size'], 'card')}, top {top}"
    if obs["pile_stopped"]:
        three = rank_of(obs["pile_top"] or "") == "3"
        pile += style.warn(" - a black three: nobody may take it this turn" if three else
                           " - a wild card: nobody may take it until it is covered")
    elif obs["pile_frozen"]:
        card = frozen_by(hand_events or obs.get("history") or [])
        pile += style.warn(f" - frozen: {style.card(card)} is in it" if card else
                           " - frozen (a wild card or red three is in it)")
    elif obs["pile_frozen_for_me"]:
        pile += style.warn(" - frozen for you (your side has not melded)")
    if compact:
        return [f"Stock {obs['stock_size']}", pile]
    return [f"Stock {obs['stock_size']} | {pile}"]


def _cutthroat_lines(obs: dict[str, Any], labels: list[str], style: Style,
                     short: bool = False) -> list[str]:
    """Cut-throat: who plays with whom right now, each player's red threes, and each row of
    melds under the players who share it."""
    lone, rows_ = obs.get("lone_hand"), obs["meld_side"]
    if lone is None:
        out = [style.dim("Everyone plays alone until someone takes the pile.")]
    else:
        a, b = (s for s in range(len(rows_)) if s != lone)
        if labels[b] == "You":
            a, b = b, a
        alone = "You play" if labels[lone] == "You" else f"{labels[lone]} plays"
        out = [style.warn(f"{alone} alone this hand; {labels[a]} and {labels[b]} are partners.")]
    reds = [f"{labels[s]} {' '.join(style.card(c) for c in obs['red_threes'][s])}"
            for s in range(len(rows_)) if obs["red_threes"][s]]
    if short:
        out.append("Red threes: " + (", ".join(reds) or "none"))
    else:
        for s in range(len(rows_)):
            red = " ".join(style.card(c) for c in obs["red_threes"][s]) or "-"
            out.append(f"{labels[s]}: red threes {red}")
    for row in range(len(rows_)):
        sharing = [s for s in range(len(rows_)) if rows_[s] == row]
        if not sharing:
            continue
        who = " and ".join(labels[s] for s in sharing)
        if short:
            out.append(f"{who}: " + (", ".join(meld_token(m, style) for m in obs["melds"][row])
                                    or "no melds"))
            continue
        out.append(f"{who}: " + ("no melds" if not obs["melds"][row] else "melds"))
        for meld in obs["melds"][row]:
            out.append("    " + meld_line(meld, style))
    return out


SCORE_ROWS = [("melds", "Cards melded"), ("canasta_bonus", "Canasta bonuses"),
              ("concealed_bonus", "Concealed canastas"), ("going_out", "Going out"),
              ("red_three_points", "Red threes"), ("hand_penalty", "Cards left in hand"),
              ("total", "Hand total")]


_POINTS = {"Jo": 50, "2": 20, "A": 20, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10, "8": 10,
           "7": 5, "6": 5, "5": 5, "4": 5, "3": 5}


_ZERO_ROWS = ("Concealed canastas", "Going out", "Red threes")  # may go when all zero


def card_points(card: str) -> int:
    return _POINTS.get(rank_of(card), 0)


# PLR0913: net/client.py and cli/learn.py pass these positionally; its signature waits for
# their rewrite (issue 47).
@dataclass(frozen=True)
class Side:
    """Whose eyes a hand's end is shown through: ``my_side`` (None: a spectator's), whether
    the game is played in partnerships, and how the seats are called (``seat N`` if not
    given)."""

    my_side: int | None
    partnerships: bool
    labels: list[str] | None = None


def render_hand_end(event: dict[str, Any], side: Side, where: Screen | Style,
                    plays: list[str] | None = None, earlier: bool = True) -> str:
    """How the hand ended: who went out (or that the stock ran out), the plays since your
    last turn, every player's cards left with their points, then the score table (a
    spectator's, ``my_side`` None, heads its columns side 0, side 1... under a line naming
    each side's players).  With a ``height``, a
    summary taller than it is cut into pages separated by a form feed (``\\f``): the earlier
    plays first, then the last plays with the scores, each page under the hand's header;
    without ``earlier``, only the last plays that fit with the scores, on one page."""
    my_side, partnerships, labels = side.my_side, side.partnerships, side.labels
    screen = _screen(where)
    style, width, height = screen.style, screen.width, screen.height
    sides = event["scores"]["sides"]
    hands = event.get("hands") or []
    labels = labels or [f"seat {i}" for i in range(len(hands))]
    watching = my_side is None and partnerships
    heads = [f"side {s['side']}" if watching else
             side_name(s["side"], my_side, partnerships, labels, len(sides)) for s in sides]
    col = max(8, *(len(h) for h in heads))
    out = event["scores"].get("went_out")
    if out is not None:
        how = f"{labels[out]} went out" + (" concealed" if event["scores"].get("concealed")
                                           else "")
    else:
        how = ("the stock ran out" if "stock" in event["reason"] else
               event["reason"].replace("_", " "))
    title = f"== Hand {event['hand']} is over: {how} =="
    results: list[str] = []
    if hands:
        results.append("Cards left:")
        for i, cards in enumerate(hands):
            held = " ".join(style.card(c) for c in cards) or "-"
            pts = sum(card_points(c) for c in cards)
            results.append(f"  {labels[i]:<14} {held}" + (f"  ({pts} points)" if cards else ""))
    if watching:
        results.append("Sides: " + "; ".join(
            f"{h}: {_team(labels, s['side'], len(sides))}" for h, s in zip(heads, sides,
                                                                           strict=True)))
    results.append(f"{'':<20}" + "".join(f"{h:>{col + 2}}" for h in heads))
    for key, label in SCORE_ROWS:
        results.append(f"{label:<20}" + "".join(f"{s[key]:>{col + 2}}" for s in sides))
    results.append(f"{'Game total':<20}" + "".join(f"{t:>{col + 2}}" for t in event["totals"]))
    told = ["  " + p for p in plays or []]
    whole = [style.bold(title)] + ([style.dim("The last plays:")] + told if told else []) \
        + results
    if height <= 0 or rows(whole, width) <= height:
        return "\n".join(whole)
    if rows([title] + results, width) + 1 > height:  # rows of nothing but zeros go first
        results = [r for r in results if not r.startswith(_ZERO_ROWS)
                   or any(s[k] for k, label in SCORE_ROWS if r.startswith(label)
                          for s in sides)]
    last_page = [style.bold(title)] + results
    room = height - rows(last_page, width) - 1
    tail = tail_fitting(told, room, width) if room > 0 else []
    if not earlier:
        return "\n".join([style.bold(title)] + ([style.dim("The last plays:")] + tail if tail
                                                else []) + results)
    first = [style.bold(title), style.dim("The plays of the hand:")] + told[:len(told) - len(tail)]
    second = [style.bold(title.replace(" ==", " (continued) ==", 1))]
    if tail:
        second += [style.dim("The last plays:")] + tail
    return "\n".join(first) + "\f" + "\n".join(second + results)


def render_scores(obs: dict[str, Any], history: list[dict[str, Any]],
                  partnerships: bool) -> str:
    """The game so far: each finished hand's scores and the running totals, then the minimum
    each side needs for its first meld now."""
    side = obs["side"]
    sides = len(obs["scores"])
    labels = seat_labels(obs["seat"], [""] * int(obs["players"]), partnerships, sides)
    heads = [side_name(s, side, partnerships, labels, sides) for s in range(sides)]
    lines = [f"{'hand':<6}" + "".join(f"{h:>12}" for h in heads)]
    for e in history:
        lines.append(f"{e['hand']:<6}" + "".join(f"{s['total']:>+12}" for s in e["scores"]["sides"]))
    lines.append(f"{'total':<6}" + "".join(f"{t:>12}" for t in obs["scores"]))
    lines.append(f"{'needs':<6}" + "".join(
        f"{'melded' if obs['side_melded'][s] else obs['minimums'][s]:>12}"
        for s in range(len(obs["scores"]))))
    return "\n".join(lines)
