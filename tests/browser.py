"""A headless Chromium driven over its DevTools protocol on a pipe (``--remote-debugging-pipe``:
no port, no extra package): open a page from disk, press keys, read the DOM, take a PNG.

Only what the HTML tests need.  ``find_chromium`` is None where no browser is installed.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-default-apps", "--disable-extensions", "--mute-audio",
         "--remote-debugging-pipe"]
KEYS = {"ArrowRight": 39, "ArrowLeft": 37, "ArrowUp": 38, "ArrowDown": 40, "End": 35,
        "Home": 36, "PageDown": 34, "PageUp": 33}


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(RuntimeError):
    pass


class Browser:
    """One Chromium with one page.  Events seen are kept in ``events`` (method, params)."""

    def __init__(self, executable: str, width: int = 1280, height: int = 900,
                 timeout: float = 20.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="canasta-chromium-")
        r, self._out = os.pipe()             # we write, Chromium reads fd 3
        self._in, w = os.pipe()              # Chromium writes fd 4, we read
        # Above 4, so that putting one on 3 cannot overwrite the other.
        to_child, from_child = fcntl.fcntl(r, fcntl.F_DUPFD_CLOEXEC, 10), \
            fcntl.fcntl(w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(r)
        os.close(w)

        def fds() -> None:
            os.dup2(to_child, 3)
            os.dup2(from_child, 4)

        self.proc = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self.profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=fds)
        os.close(to_child)
        os.close(from_child)
        self._buf = b""
        self._id = 0
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.session: str | None = None
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page.enable", "Runtime.enable"):
            self.send(domain)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    # the protocol ---------------------------------------------------------------------------
    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("Chromium did not answer in time")
            ready, _, _ = select.select([self._in], [], [], left)
            if ready:
                chunk = os.read(self._in, 1 << 20)
                if not chunk:
                    raise BrowserError("Chromium closed its pipe")
                self._buf += chunk
        raw, _, self._buf = self._buf.partition(b"\0")
        msg: dict[str, Any] = json.loads(raw)
        return msg

    def _event(self, msg: dict[str, Any]) -> None:
        self.events.append((msg["method"], msg.get("params", {})))
        if msg["method"] == "Page.javascriptDialogOpening":
            self._post("Page.handleJavaScriptDialog", {"accept": True})

    def _post(self, method: str, params: dict[str, Any] | None = None) -> int:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if self.session and not method.startswith(("Target.", "Browser.")):
            msg["sessionId"] = self.session
        os.write(self._out, json.dumps(msg).encode() + b"\0")
        return self._id

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        want = self._post(method, params)
        deadline = time.monotonic() + self.timeout
        while True:
            msg = self._read(deadline)
            if "method" in msg:
                self._event(msg)
            elif msg.get("id") == want:
                if "error" in msg:
                    raise BrowserError(f"{method}: {msg['error']}")
                result: dict[str, Any] = msg.get("result", {})
                return result

    def wait_event(self, method: str, since: int = 0) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while True:
            for name, params in self.events[since:]:
                if name == method:
                    return params
            since = len(self.events)
            msg = self._read(deadline)
            if "method" in msg:
                self._event(msg)

    # what the tests use ---------------------------------------------------------------------
    def open(self, path: Path, fragment: str = "") -> None:
        since = len(self.events)
        self.send("Page.navigate", {"url": path.resolve().as_uri() + fragment})
        self.wait_event("Page.loadEventFired", since)

    def js(self, expression: str) -> Any:
        res = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in res:
            raise BrowserError(f"{expression[:80]}: {res['exceptionDetails'].get('text')}")
        return res["result"].get("value")

    def key(self, key: str, shift: bool = False) -> None:
        code = KEYS[key]
        mods = 8 if shift else 0
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": key,
                                                 "windowsVirtualKeyCode": code,
                                                 "nativeVirtualKeyCode": code,
                                                 "modifiers": mods})

    def screenshot(self, path: Path, full_page: bool = False) -> None:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"],
                              "scale": 1}
            params["captureBeyondViewport"] = True
        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", params)["data"]))

    def dialogs(self) -> list[dict[str, Any]]:
        return [p for m, p in self.events if m == "Page.javascriptDialogOpening"]

    def exceptions(self) -> list[dict[str, Any]]:
        return [p for m, p in self.events if m == "Runtime.exceptionThrown"]

    def close(self) -> None:
        try:
            self._post("Browser.close")
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        finally:
            for fd in (self._in, self._out):
                with contextlib.suppress(OSError):
                    os.close(fd)
            shutil.rmtree(self.profile, ignore_errors=True)
