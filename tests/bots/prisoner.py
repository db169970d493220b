"""A bot that tries to leave its box: ``prisoner.py MODE [ARG ...]``.

It plays legal moves (always the first listed) and, at its first request, tries what MODE
names; it writes one line ``PRISONER {json}`` to stderr saying what each try got.

* probe PORT file:SECRET PTY: connect to 127.0.0.1:PORT; read the file SECRET (named so that
  the referee does not take it for a file the command gives the bot); open the terminal
  PTY and /dev/tty; list /dev/pts and /tmp; write beside its own program; write in HOME
* fill MB: write MB megabytes to /tmp and report how far it got
* memory MB: allocate MB megabytes
* forkbomb N: start N children that sleep, and report how many it could start
* killall: kill(-1, SIGKILL) and kill its parent (only ever run inside a PID namespace)
* signal0: signal 0 (delivers nothing; says whether a signal would be let through) to every
  process (-1), its process group (0), its parent and itself
* burn: between its turns, several children spin
* escape file:FILE file:SOCKET (named so, as for probe): what a bot outside bubblewrap
  could do to the user: write, read and list FILE (in the user's home), write the box's
  root, /dev and /dev/shm (and 20 MB into the root, past its /tmp's cap), list /run and
  connect to the Unix socket SOCKET
"""

import json
import os
import signal
import socket
import sys
import time
from collections.abc import Callable

MODE = sys.argv[1]
ARGS = sys.argv[2:]
HERE = os.path.dirname(os.path.abspath(__file__))


def attempt(fn: Callable[[], object]) -> dict[str, object]:
    try:
        return {"ok": True, "value": fn()}
    except Exception as exc:  # noqa: BLE001 - a prisoner reports every failure
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}


def connect(port: str) -> str:
    with socket.create_connection(("127.0.0.1", int(port)), timeout=2) as s:
        return s.recv(64).decode()


def read(path: str) -> str:
    with open(path) as f:
        return f.read()


def write(path: str) -> str:
    with open(path, "w") as f:
        f.write("note")
    return path


def tty(path: str) -> str:
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    os.write(fd, b"\x1b]0;owned\x07hello from a bot\n")
    os.close(fd)
    return path


def fill(mb: str) -> dict[str, object]:
    written = 0
    try:
        with open("/tmp/fill", "wb") as f:
            block = b"x" * (1 << 20)
            for _ in range(int(mb)):
                f.write(block)
                f.flush()
                written += 1
    except OSError as exc:
        return {"written_mb": written, "error": exc.strerror}
    return {"written_mb": written}


def memory(mb: str) -> int:
    blocks = [bytearray(1 << 20) for _ in range(int(mb))]
    return len(blocks)


def forkbomb(n: str) -> int:
    started = 0
    for _ in range(int(n)):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(300)
            os._exit(0)
        started += 1
    return started


def killall() -> dict[str, str]:
    results: dict[str, str] = {}
    for name, target in (("all", -1), ("parent", os.getppid())):
        try:
            os.kill(target, signal.SIGKILL)
            results[name] = "sent"
        except OSError as exc:
            results[name] = exc.strerror or str(exc)
    return results


def signal0() -> dict[str, str]:
    results: dict[str, str] = {}
    for name, target in (("all", -1), ("group", 0), ("parent", os.getppid()),
                         ("self", os.getpid())):
        try:
            os.kill(target, 0)
            results[name] = "allowed"
        except OSError as exc:
            results[name] = exc.strerror or str(exc)
    return results


def unix(path: str) -> str:
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(2)
        s.connect(path)
        return s.recv(64).decode()


def fill_at(path: str, mb: int) -> int:
    written = 0
    with open(path, "wb") as f:
        for _ in range(mb):
            f.write(b"x" * (1 << 20))
            f.flush()
            written += 1
    return written


def escape(target: str, sock: str) -> dict[str, object]:
    target, sock = target.removeprefix("file:"), sock.removeprefix("file:")
    shm = f"/dev/shm/prisoner-{os.getpid()}"
    return {
        "home_write": attempt(lambda: write(target)),
        "home_read": attempt(lambda: read(target)),
        "home_list": attempt(lambda: os.listdir(os.path.dirname(target))),
        "root": attempt(lambda: write("/prisoner-note")),
        "root_fill": attempt(lambda: fill_at("/prisoner-fill", 20)),
        "dev": attempt(lambda: write("/dev/prisoner-note")),
        "shm": attempt(lambda: fill_at(shm, 1)),
        "shm_in_tmp": attempt(lambda: os.path.exists(f"/tmp/prisoner-{os.getpid()}")),
        "run": attempt(lambda: os.listdir("/run")),
        "socket": attempt(lambda: unix(sock)),
    }


def burn() -> int:
    for _ in range(4):
        if os.fork() == 0:
            os.close(0)
            os.close(1)
            while True:
                pass
    return 4


def first_request() -> None:
    report: dict[str, object]
    if MODE == "probe":
        port, secret, pty = ARGS
        report = {
            "network": attempt(lambda: connect(port)),
            "secret": attempt(lambda: read(secret.removeprefix("file:"))),
            "pty": attempt(lambda: tty(pty)),
            "devtty": attempt(lambda: tty("/dev/tty")),
            "pts": attempt(lambda: sorted(os.listdir("/dev/pts"))),
            "tmp": attempt(lambda: sorted(os.listdir("/tmp"))),
            "own_dir": attempt(lambda: write(os.path.join(HERE, "prisoner-note"))),
            "home": attempt(lambda: write(os.path.join(os.environ["HOME"], "note"))),
            "oom_score_adj": attempt(lambda: read("/proc/self/oom_score_adj").strip()),
        }
    elif MODE == "fill":
        report = {"fill": fill(ARGS[0])}
    elif MODE == "memory":
        report = {"memory": attempt(lambda: memory(ARGS[0]))}
    elif MODE == "forkbomb":
        report = {"forkbomb": forkbomb(ARGS[0])}
    elif MODE == "killall":
        report = {"killall": killall()}
    elif MODE == "signal0":
        report = {"signal0": signal0()}
    elif MODE == "burn":
        report = {"burn": burn()}
    elif MODE == "escape":
        report = {"escape": escape(*ARGS)}
    else:
        report = {}
    sys.stderr.write("PRISONER " + json.dumps(report) + "\n")
    sys.stderr.flush()


def main() -> None:
    asked = False
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            print(json.dumps({"type": "ready", "protocol": "canasta/1", "name": MODE}),
                  flush=True)
        elif kind == "act":
            if not asked:
                asked = True
                first_request()
            print(json.dumps({"type": "move", "id": msg["id"], "index": 0}), flush=True)
        elif kind == "bye":
            break


if __name__ == "__main__":
    main()
