"""Hostile bots, one per attack on the referee: ``hostile.py MODE [PIDFILE]``.

Each mode plays legally except for its one attack, so that the referee's answer to that attack
is what a test sees.  With PIDFILE, the bot appends the pid of every process it starts (its
own included) so that a test can check that none outlives the referee.
"""

import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

MODE = sys.argv[1]
PIDFILE = sys.argv[2] if len(sys.argv) > 2 else None


def note_pid() -> None:
    """Note that a process started (its pid as this bot sees it)."""
    if PIDFILE:  # a boxed bot cannot write outside its box: then only its command line tells
        try:
            with open(PIDFILE, "a") as f:
                f.write(f"{os.getpid()}\n")
        except OSError:
            pass


def raw(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def out(obj: object) -> None:
    raw(json.dumps(obj) + "\n")


def escape() -> None:
    """Start children that leave the process group: one by setsid, one by a double fork."""
    r, w = os.pipe()
    subprocess.Popen([sys.executable, "-c", "import os, sys, time; f = open(sys.argv[1], 'a');"
                      " f.write(str(os.getpid()) + '\\n'); f.close();"
                      f" os.close({w}); time.sleep(300)", PIDFILE or os.devnull],
                     start_new_session=True, pass_fds=(w,))
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            note_pid()
            os.close(w)
            time.sleep(300)
            os._exit(0)
        os._exit(0)
    os.close(w)
    os.read(r, 1)  # both have noted their pids once the pipe's last writer is gone


def attack(msg: dict[str, Any], acts: int) -> bool:  # noqa: C901 - one branch per attack
    """Answer ``msg`` (an act) the hostile way; False to answer it legally instead."""
    rid = msg["id"]
    head = f'{{"type": "move", "id": {rid}'
    if MODE == "deep":
        raw(head + ', "index": 0, "x": ' + "[" * 100_000
            + "]" * 100_000 + "}\n")
    elif MODE == "deep-ok":  # deep but under the limit of one line: still refused cleanly
        raw(head + ', "index": 0, "x": ' + "{\"a\":" * 5000 + "1"
            + "}" * 5000 + "}\n")
    elif MODE == "bigint":
        raw(head + ', "index": ' + "9" * 5000 + "}\n")
    elif MODE == "bigint-under-limit":
        raw(head + ', "index": ' + "9" * 4000 + "}\n")
    elif MODE == "bigid":
        raw('{"type": "move", "id": ' + "7" * 5000 + ', "index": 0}\n')
    elif MODE in ("float300", "inf", "nan", "hugecount", "negative", "boolcount", "strcount",
                  "listrank"):
        value = {"float300": "1e300", "inf": "1e400", "nan": "NaN", "hugecount": "100000000",
                 "negative": "-5", "boolcount": "true", "strcount": '"3"',
                 "listrank": "3"}[MODE]
        rank = '["K"]' if MODE == "listrank" else '"K"'
        raw(head + f', "move": {{"action": "meld", "rank": {rank}, "naturals": {value},'
            ' "deuces": 0, "jokers": 0}}\n')
    elif MODE == "floatindex":
        raw(head + ', "index": 1e300}\n')
    elif MODE == "megatext":
        out({"type": "move", "id": rid, "move": "meld " + "K " * 500_000})
    elif MODE == "megaobject":
        out({"type": "move", "id": rid, "move": {"text": "x" * 1_000_000}})
    elif MODE == "megaaction":
        out({"type": "move", "id": rid, "move": {"action": "a" * 1_000_000}})
    elif MODE == "nonewline":
        raw("{" * 3_000_000)
        time.sleep(60)
    elif MODE == "partial":
        raw(head + ', "index": 0')
        time.sleep(60)
    elif MODE == "both":
        out({"type": "move", "id": rid, "index": 0, "move": "draw"})
    elif MODE == "badutf8":
        sys.stdout.buffer.write(b'{"type": "move", "id": 1, "move": "\xff\xfe"}\n')
        sys.stdout.flush()
    elif MODE == "nul":
        raw(head + ', "move": "dr\\u0000aw"}\n')
    elif MODE == "escape-codes":
        out({"type": "move", "id": rid, "move": "\x1b[2J\x1b]0;pwned\x07 meld"})
    elif MODE == "late" and acts == 1:
        time.sleep(1.5)  # past the whole budget of the test's time control
        out({"type": "move", "id": rid, "index": 0})
    elif MODE == "closestdin" and acts == 1:
        os.close(0)
        time.sleep(60)
    elif MODE == "closestdout" and acts == 1:
        os.close(1)
        time.sleep(60)
    elif MODE == "sigsegv" and acts == 2:
        os.kill(os.getpid(), signal.SIGSEGV)
        time.sleep(5)
    elif MODE == "sigkill" and acts == 2:
        os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(5)
    else:
        return False
    return True


def main() -> None:
    note_pid()
    if MODE == "hang-handshake":
        time.sleep(300)
        return
    hello = sys.stdin.readline()
    if MODE == "garbage-ready":
        raw("\x00\x01not json at all\n")
        time.sleep(300)
        return
    if MODE == "deep-ready":
        raw("[" * 200_000 + "\n")
        time.sleep(300)
        return
    if MODE == "crash-handshake":
        sys.exit(4)
    assert json.loads(hello)["type"] == "hello"
    if MODE == "early":
        out({"type": "move", "id": 1, "index": 0})  # before any request
    out({"type": "ready", "protocol": "canasta/1", "name": MODE})
    if MODE in ("escape", "escape-stubborn", "escape-slow"):
        escape()
    if MODE == "escape-stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    acts = 0
    request = None
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "bye":
            if MODE == "escape-stubborn":
                time.sleep(300)
            return
        if kind == "act":
            request = msg
            acts += 1
        elif not (kind == "error" and msg.get("retry")):
            continue
        assert request is not None
        if kind == "act" and attack(request, acts):
            continue
        if MODE == "stray":
            out({"type": "chatter", "text": "thinking..."})
            out({"type": "ping", "n": acts})
        if MODE == "flood-tiny" and acts <= 2:
            raw('{"type":"x"}\n' * 150_000)  # 2 MB of tiny messages nobody asked for
        if MODE == "future":
            out({"type": "move", "id": request["id"] + 1000, "index": 0})
        if MODE in ("slow", "escape-slow"):
            time.sleep(0.02)
        reply = {"type": "move", "id": request["id"], "index": 0}
        out(reply)
        if MODE in ("duplicate", "late"):
            out(reply)  # the same answer again: a late reply from now on


if __name__ == "__main__":
    main()
