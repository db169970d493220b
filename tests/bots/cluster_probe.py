#!/usr/bin/env python3
"""A bot that tries to reach a tournament's Dask cluster before it plays.

    cluster_probe.py HOST PORT MODE [DIR ...]

It connects to HOST:PORT (the scheduler), tries a TLS session there without a certificate of
the cluster, and looks for files in each DIR (the certificates, the tournament's --out).

MODE says what counts as getting in: ``network`` - reaching the port at all; ``cluster`` - a
TLS session the scheduler does not end, or any file read in a DIR; ``any`` - either.  It writes what it got as
one ``PROBE {...}`` line on stderr; if it got in it exits with status 3 at once (so the referee
records a crash), otherwise it plays random legal moves (seeded: the same game every time).
"""

import json
import os
import random
import socket
import ssl
import sys
from typing import Any


def probe(host: str, port: int, dirs: list[str]) -> dict[str, Any]:
    got: dict[str, Any] = {"tcp": None, "tls": None, "files": []}
    try:
        sock = socket.create_connection((host, port), timeout=5)
    except OSError as exc:
        got["tcp"] = f"{type(exc).__name__}: {exc}"
    else:
        got["tcp"] = "connected"
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        try:
            with ctx.wrap_socket(sock) as tls:
                tls.settimeout(5)
                data = tls.recv(1)  # a server that wants a certificate ends the session here
                got["tls"] = "session" if data else "closed"
        except TimeoutError:
            got["tls"] = "session"  # not sent away: counts as getting in
        except (OSError, ssl.SSLError) as exc:
            got["tls"] = f"{type(exc).__name__}: {exc}"
    for d in dirs:
        for root, _dirs, files in os.walk(d):
            for name in files:
                path = os.path.join(root, name)
                try:
                    with open(path, "rb") as f:
                        if f.read(64):
                            got["files"].append(path)
                except OSError:
                    pass
    return got


def main() -> None:
    host, port, mode, dirs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    got = probe(host, port, dirs)
    reached = got["tcp"] == "connected"
    inside = got["tls"] in ("session", "closed") or bool(got["files"])
    won = reached if mode == "network" else inside if mode == "cluster" else reached or inside
    got["won"] = won
    sys.stderr.write("PROBE " + json.dumps(got) + "\n")
    sys.stderr.flush()
    if won:
        sys.exit(3)
    rng = random.Random(0)
    request: dict[str, Any] = {}
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        reply: dict[str, object]
        if kind == "hello":
            reply = {"type": "ready", "protocol": "canasta/1", "name": "cluster_probe"}
        elif kind == "act" or (kind == "error" and msg.get("retry")):
            if kind == "act":
                request = msg
            reply = {"type": "move", "id": request["id"],
                     "index": rng.randrange(len(request["moves"]))}
        elif kind == "bye":
            return
        else:
            continue
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
