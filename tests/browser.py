"""Headless Chromium driven through its DevTools protocol over a pipe (``--remote-debugging-pipe``: JSON messages
ended by a NUL byte on file descriptors 3 and 4), so the browser tests need no Python package beyond the standard
library and no browser download: Debian's ``chromium`` (scripts/system_deps.sh installs it)."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

BINARIES = ("chromium", "chromium-browser", "google-chrome")


def chromium_binary() -> str | None:
    return next((found for name in BINARIES if (found := shutil.which(name))), None)


class BrowserError(RuntimeError):
    pass


class Chromium:
    """One headless browser with one page attached (``session``): ``send`` a command and wait for its answer,
    ``events`` holds what the browser reported."""

    def __init__(self, binary: str, profile: Path, width: int = 1280, height: int = 1000) -> None:
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()
        # above 10 and close-on-exec, so that moving them onto 3 and 4 in the child cannot clobber one another
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_browser_r, from_browser_w)]
        os.close(to_browser_r)
        os.close(from_browser_w)

        def onto_3_and_4() -> None:
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        command = [
            binary,
            "--headless",
            "--remote-debugging-pipe",
            "--no-sandbox",  # root in a container has no user namespaces for Chromium's own sandbox
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--disable-features=IsolateSandboxedIframes",  # the app's frame stays in the page's process: one session
            "--disable-site-isolation-trials",
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
            "about:blank",
        ]
        self.log = (profile / "chromium.log").open("wb")
        self.proc = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
            close_fds=False, preexec_fn=onto_3_and_4,
        )  # fmt: skip
        for fd in high:
            os.close(fd)
        self._write, self._read = to_browser_w, from_browser_r
        self._lock = threading.Condition()
        self._answers: dict[int, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self._next = 0
        threading.Thread(target=self._reader, daemon=True).start()
        pages = [t for t in self.send("Target.getTargets")["targetInfos"] if t["type"] == "page"]
        target = pages[0]["targetId"] if pages else self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def _reader(self) -> None:
        buffer = b""
        while chunk := os.read(self._read, 1 << 20):
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            with self._lock:
                for raw in messages:
                    message = json.loads(raw)
                    if "id" in message:
                        self._answers[message["id"]] = message
                    else:
                        self.events.append(message)
                self._lock.notify_all()

    def send(self, method: str, params: dict[str, Any] | None = None, *, page: bool = False,
             timeout: float = 30) -> dict[str, Any]:  # fmt: skip
        """The result of ``method`` (sent to the attached page where ``page``), or BrowserError with its error."""
        with self._lock:
            self._next += 1
            number = self._next
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if page:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        with self._lock:
            if not self._lock.wait_for(lambda: number in self._answers, timeout):
                raise BrowserError(f"{method}: no answer in {timeout} s")
            answer = self._answers.pop(number)
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    def wait_event(self, method: str, timeout: float = 30) -> dict[str, Any]:
        with self._lock:
            if not self._lock.wait_for(lambda: any(e["method"] == method for e in self.events), timeout):
                raise BrowserError(f"no {method} in {timeout} s")
            return next(e for e in self.events if e["method"] == method)

    def evaluate(self, expression: str, context: int | None = None, timeout: float = 30) -> Any:
        """The value of a JavaScript expression (awaited) in the page, or in the execution ``context`` given."""
        params: dict[str, Any] = {"expression": expression, "awaitPromise": True, "returnByValue": True}
        if context is not None:
            params["contextId"] = context
        result = self.send("Runtime.evaluate", params, page=True, timeout=timeout)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:80]}…: {result['exceptionDetails']}")
        return result["result"].get("value")

    def frame_context(self, frame_id: str) -> int:
        """An isolated world in the frame: its DOM is the frame's, its script globals are not (the app's stay its
        own)."""
        made = self.send("Page.createIsolatedWorld", {"frameId": frame_id, "worldName": "test"}, page=True)
        return int(made["executionContextId"])

    def child_frames(self) -> list[str]:
        tree = self.send("Page.getFrameTree", page=True)["frameTree"]
        return [child["frame"]["id"] for child in tree.get("childFrames", [])]

    def screenshot(self) -> bytes:
        return base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"}, page=True)["data"])

    def close(self) -> None:
        with contextlib.suppress(BrowserError):
            self.send("Browser.close", timeout=5)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        os.close(self._write)
        self.log.close()


def wait_until(check: Any, timeout: float = 15, every: float = 0.05) -> Any:
    """The first true value ``check()`` returns within ``timeout`` seconds, else AssertionError."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(every)
    raise AssertionError(f"not true within {timeout} s: {check}")
