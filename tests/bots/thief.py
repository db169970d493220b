"""A cheating bot: it tries every route a same-user bot has to the cards it may not see, and
scores itself by predicting the next card it draws from the stock.

    thief.py REPORT [PATH ...]

PATHs are places an attacker might guess (record, transcript and output directories, the
person's home).  Routes:

* proc      - every visible /proc/<pid>/{cmdline,environ,fd/*}
* files     - every file under the PATHs: seeds, decks, revealed cards, secrets
* seeds     - candidate seeds 0..63 and seed + k for every seed found, each checked against
              the bot's own dealt hand with the public engine (also as tournament master
              seeds, with the bot names of game_start)
* memory    - deals it played before, in this process or in an earlier one (notes kept in
              files beside its program, in its HOME and in /tmp): the same deal again from
              another seat (recognised by its upcard) means an opponent now holds the hand it
              held; two different deals may share an upcard, so this route only means
              something where deals are replayed (tournaments)

A route "wins" a game when it yields the deal of the game being played.  At every draw the bot
predicts the card it is about to draw; it writes one JSON line per game to REPORT (and to
stderr): which routes won, and its hits against its tries.
"""

import json
import os
import stat
import sys
from typing import Any

REPORT = sys.argv[1]
PATHS = sys.argv[2:]
MEMORY: dict[str, list[str]] = {}  # the upcard of an earlier game -> this bot's hand in it
NOTES = [os.path.join(os.path.dirname(os.path.abspath(__file__)), ".thief-notes.json"),
         os.path.join(os.environ.get("HOME", "/tmp"), ".thief-notes.json"),
         "/tmp/.thief-notes.json"]


def recall() -> None:
    """Notes an earlier process of this bot left, wherever it could leave them."""
    for path in NOTES:
        try:
            with open(path) as f:
                MEMORY.update(json.load(f))
        except (OSError, ValueError):
            continue


def remember() -> None:
    for path in NOTES:
        try:
            with open(path, "w") as f:
                json.dump(MEMORY, f)
        except OSError:
            continue

try:
    from canasta_cli.core import Ruleset, new_game
    from canasta_cli.core.cards import TEXT_OF
    from canasta_cli.tournament.schedule import deal_seed
    ENGINE = True
except ImportError:  # sandboxed: the engine may not be in sight
    ENGINE = False


def out(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def read(path: str, limit: int = 1 << 22) -> str:
    """A regular file's first bytes (pipes and devices are skipped: they could block)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return ""
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return ""


def numbers_near_seed(text: str) -> set[int]:
    """Integers that follow a "seed" key or option in ``text``."""
    found: set[int] = set()
    low = text.lower()
    start = 0
    while True:
        i = low.find("seed", start)
        if i < 0:
            return found
        start = i + 4
        j = start
        while j < len(text) and not text[j].isdigit() and j - start < 6:
            j += 1
        k = j
        while k < len(text) and text[k].isdigit():
            k += 1
        if k > j:
            found.add(int(text[j:k]))


def route_proc() -> set[int]:
    seeds: set[int] = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        for name in ("cmdline", "environ"):
            try:
                with open(f"/proc/{pid}/{name}", "rb") as f:
                    text = f.read().decode("utf-8", "replace")
            except OSError:
                continue
            seeds |= numbers_near_seed(text.replace("\0", " "))
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            seeds |= numbers_near_seed(read(f"/proc/{pid}/fd/{fd}"))
    return seeds


def route_files() -> set[int]:
    seeds: set[int] = set()
    for top in PATHS:
        for root, _dirs, files in os.walk(top):
            for name in files:
                seeds |= numbers_near_seed(read(os.path.join(root, name)))
    return seeds


class Game:
    def __init__(self, msg: dict[str, Any], rules: dict[str, Any]) -> None:
        self.seat = msg["seat"]
        self.names = msg["names"]
        self.rules = rules
        self.dealer = None
        self.hand: list[str] = []
        self.upcard = ""
        self.stock: list[str] | None = None  # the stock order, if a route found it
        self.won: dict[str, bool] = {"proc": False, "files": False, "seeds": False,
                                     "memory": False}
        self.prediction: str | None = None
        self.hits = 0
        self.tries = 0
        self.hand_no = 0

    def deal_of(self, seed: int) -> list[str] | None:
        """The stock order of hand 1 if ``seed`` deals this bot its hand, else None."""
        if not ENGINE:
            return None
        try:
            state = new_game(Ruleset.from_dict(self.rules), seed=seed, dealer=self.dealer)
        except Exception:  # noqa: BLE001 - a wrong guess is just a wrong guess
            return None
        for event in state.events():
            full = event.full()
            if full["type"] == "dealt" and full["seat"] == self.seat:
                if sorted(full["cards"]) == sorted(self.hand):
                    return [TEXT_OF[c] for c in state.stock]
                return None
        return None

    def try_routes(self) -> None:
        found = {"proc": route_proc(), "files": route_files()}
        found["seeds"] = set(range(64)) | {s + k for s in found["proc"] | found["files"]
                                           for k in range(-3, 4)}
        pairs = {(a, b) for a in set(self.names) for b in set(self.names) if a != b}
        masters = set(range(16)) | found["proc"] | found["files"]
        if ENGINE:
            found["seeds"] |= {deal_seed(m, p, d) for m in masters for p in pairs
                               for d in range(8)}
        for route in ("proc", "files", "seeds"):
            for seed in sorted(found[route]):
                stock = self.deal_of(seed)
                if stock is not None:
                    self.won[route] = True
                    self.stock = stock
                    break
        earlier = MEMORY.get(self.upcard)
        if earlier is not None and sorted(earlier) != sorted(self.hand):
            self.won["memory"] = True  # the same deal from another seat: an opponent's hand
        MEMORY[self.upcard] = self.hand
        remember()

    def predict(self, stock_size: int) -> None:
        if self.stock is not None and stock_size <= len(self.stock):
            self.prediction = self.stock[len(self.stock) - stock_size]
        else:
            self.prediction = "Kh"  # a blind guess
        self.tries += 1


def main() -> None:
    recall()
    rules: dict[str, Any] = {}
    game: Game | None = None
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            rules = msg["rules"]
            out({"type": "ready", "protocol": "canasta/1", "name": "thief"})
        elif kind == "game_start":
            game = Game(msg, msg.get("rules", rules))
        elif kind == "event" and game is not None:
            ev = msg["event"]
            if ev["type"] == "hand_started":
                game.hand_no = ev["hand"]
                game.dealer = ev["dealer"]
            elif ev["type"] == "dealt" and ev["seat"] == game.seat and game.hand_no == 1:
                game.hand = ev["cards"]
            elif ev["type"] == "upcard" and game.hand_no == 1 and not game.upcard:
                game.upcard = ev["card"]
                game.try_routes()
            elif (ev["type"] == "drew" and ev["seat"] == game.seat and "card" in ev
                  and game.prediction is not None and not ev.get("replacement")):
                game.hits += ev["card"] == game.prediction
                game.prediction = None
        elif kind == "act" and game is not None:
            moves = msg["moves"]
            draw = next((m for m in moves if m["action"] == "draw"), None)
            if draw is not None and game.hand_no == 1:
                game.predict(msg["observation"]["stock_size"])
                choice = draw["index"]
            else:
                discard = next((m for m in moves if m["action"] == "discard"), None)
                choice = (discard or moves[0])["index"]
            out({"type": "move", "id": msg["id"], "index": choice})
        elif kind == "game_end" and game is not None:
            report = {"seat": game.seat, "won": game.won, "hits": game.hits,
                      "tries": game.tries, "engine": ENGINE,
                      "paths_seen": [p for p in PATHS if os.path.exists(p) and (
                          not os.path.isdir(p) or os.listdir(p))],
                      "root": sorted(os.listdir("/")), "tmp": sorted(os.listdir("/tmp"))[:20]}
            sys.stderr.write("THIEF " + json.dumps(report) + "\n")
            sys.stderr.flush()
            try:
                with open(REPORT, "a") as f:
                    f.write(json.dumps(report) + "\n")
            except OSError:
                pass
        elif kind == "bye":
            return


if __name__ == "__main__":
    main()
