"""Headless Chromium driven through the Chrome DevTools Protocol, for the
tests of the HTML report (test_html_report.py).

The protocol runs over a pair of pipes (--remote-debugging-pipe: Chromium
reads commands on its fd 3 and writes answers and events on its fd 4, each
message JSON ended by a NUL byte), not over a websocket: no port is opened,
no client library is needed, and it works in a network namespace with no
interface. What the tests use of it: load a page, collect the console's
messages, the uncaught exceptions and every request the page makes, run an
expression in the page, send real input events (wheel, mouse) and capture a
screenshot.

Every wait has a deadline (READ_TIMEOUT) so that a Chromium that stops
answering fails the test instead of hanging it; nothing is timed.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

READ_TIMEOUT = 60.0  # seconds for one answer: far above what a page of the tests needs
# Debian's package installs /usr/bin/chromium; as root it runs only without its sandbox.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--remote-debugging-pipe",
    "--disable-gpu",
    "--disable-dev-shm-usage",  # a container's /dev/shm is often too small for it
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--mute-audio",
    "--hide-scrollbars",
)


class ChromiumError(Exception):
    pass


def executable() -> str:
    """The Chromium to run: $PRIORA_CHROMIUM, else `chromium` on PATH."""
    found = os.environ.get("PRIORA_CHROMIUM") or shutil.which("chromium")
    if not found:
        raise ChromiumError(
            "chromium not found: install Debian's package (scripts/install-packages.sh test chromium; "
            "scripts/test.sh does) or set PRIORA_CHROMIUM to a Chromium binary"
        )
    return found


class Browser:
    """One Chromium process; `page()` opens a tab."""

    def __init__(self) -> None:
        self._profile = tempfile.TemporaryDirectory(prefix="priora-chromium-")
        commands_read, commands_write = os.pipe()
        answers_read, answers_write = os.pipe()

        def child_fds() -> None:  # runs in the child, before exec
            os.dup2(commands_read, 3)
            os.dup2(answers_write, 4)

        self._log = open(Path(self._profile.name) / "stderr.log", "wb")  # noqa: SIM115 (closed in close())
        self._process = subprocess.Popen(
            [executable(), *FLAGS, f"--user-data-dir={self._profile.name}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._log,
            pass_fds=(3, 4),
            preexec_fn=child_fds,
        )
        os.close(commands_read)
        os.close(answers_write)
        self._out = commands_write
        self._in = answers_read
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def _send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._out, data) :]

    def _receive(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._in], [], [], READ_TIMEOUT)
            if not ready:
                raise ChromiumError(f"no answer from Chromium within {READ_TIMEOUT:g} s")
            chunk = os.read(self._in, 1 << 20)
            if not chunk:
                raise ChromiumError(
                    f"Chromium closed the pipe (exit status {self._process.poll()}): {self._stderr_tail()}"
                )
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        decoded: dict[str, Any] = json.loads(message)
        return decoded

    def _stderr_tail(self) -> str:
        self._log.flush()
        lines = (Path(self._profile.name) / "stderr.log").read_text(errors="replace").splitlines()
        return " | ".join(lines[-5:]) or "nothing on its stderr"

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        """Sends one command and returns its result; events that come
        meanwhile are kept in `events`."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        self._send(message)
        while True:
            answer = self._receive()
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise ChromiumError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, matches: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first event, kept or still to come, for which `matches` holds."""
        for event in self.events:
            if matches(event):
                return event
        while True:
            event = self._receive()
            self.events.append(event)
            if matches(event):
                return event

    def page(self, width: int = 1200, height: int = 900) -> Page:
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        return Page(self, session, width, height)

    def close(self) -> None:
        try:
            self._send({"id": 0, "method": "Browser.close", "params": {}})
            self._process.wait(timeout=READ_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()
        finally:
            os.close(self._out)
            os.close(self._in)
            self._log.close()
            self._profile.cleanup()


class Page:
    """One tab, its console, exceptions and requests recorded from the start."""

    def __init__(self, browser: Browser, session: str, width: int, height: int) -> None:
        self.browser = browser
        self.session = session
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return self.browser.call(method, params, self.session)

    def _mine(self, method: str) -> list[dict[str, Any]]:
        return [
            e["params"]
            for e in self.browser.events
            if e.get("sessionId") == self.session and e.get("method") == method
        ]

    def load(self, path: Path) -> None:
        """Opens `path` and returns once its load event has fired."""
        self.call("Page.navigate", {"url": path.resolve().as_uri()})
        self.browser.wait_for(
            lambda e: e.get("sessionId") == self.session and e.get("method") == "Page.loadEventFired"
        )

    def problems(self) -> list[str]:
        """Every uncaught exception, console error or warning, and log entry
        of level error or warning, as text."""
        found = [
            f"exception: {p['exceptionDetails'].get('exception', {}).get('description') or p['exceptionDetails']}"
            for p in self._mine("Runtime.exceptionThrown")
        ]
        found += [
            f"console.{p['type']}: {' '.join(str(a.get('value', a.get('description'))) for a in p['args'])}"
            for p in self._mine("Runtime.consoleAPICalled")
            if p["type"] in ("error", "warning", "assert")
        ]
        found += [
            f"log {p['entry']['level']}: {p['entry']['text']}"
            for p in self._mine("Log.entryAdded")
            if p["entry"]["level"] in ("error", "warning")
        ]
        return found

    def requests(self) -> list[str]:
        """The URL of every request the page made, in order."""
        return [p["request"]["url"] for p in self._mine("Network.requestWillBeSent")]

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON values only)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise ChromiumError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wheel(self, x: float, y: float, delta_y: float) -> None:
        """A wheel event at (x, y) in CSS pixels, as a mouse's wheel makes it."""
        self.call(
            "Input.dispatchMouseEvent", {"type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": delta_y}
        )

    def drag(self, x_from: float, y: float, x_to: float) -> None:
        """The left button pressed at (x_from, y), moved to x_to, released."""
        self.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x_from, "y": y})
        press = {"button": "left", "buttons": 1, "clickCount": 1}
        self.call("Input.dispatchMouseEvent", {"type": "mousePressed", "x": x_from, "y": y, **press})
        self.call(
            "Input.dispatchMouseEvent",
            {"type": "mouseMoved", "x": x_to, "y": y, "button": "left", "buttons": 1},
        )
        self.call("Input.dispatchMouseEvent", {"type": "mouseReleased", "x": x_to, "y": y, **press})

    def key(self, key: str) -> None:
        """One key pressed and released, as a keyboard types it ("+", "ArrowLeft")."""
        text = key if len(key) == 1 else ""
        self.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": key, "text": text})
        self.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": key})

    def click(self, x: float, y: float) -> None:
        press = {"x": x, "y": y, "button": "left", "clickCount": 1}
        self.call("Input.dispatchMouseEvent", {"type": "mousePressed", "buttons": 1, **press})
        self.call("Input.dispatchMouseEvent", {"type": "mouseReleased", "buttons": 0, **press})

    def screenshot(self) -> bytes:
        """The viewport as a PNG."""
        return base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"])

    def close(self) -> None:
        self.browser.call(
            "Target.closeTarget", {"targetId": self.call("Target.getTargetInfo")["targetInfo"]["targetId"]}
        )
