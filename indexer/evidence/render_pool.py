"""Page renders under a budget: each runs in a worker process that is stopped past its time or memory, and at most
a few run at once, so a PDF that draws a million nested forms costs one refused page, not the server.

PDFium renders whatever a page's content stream asks for: a few kilobytes of form objects that draw each other can
fan out to millions of draws, in the page itself or where text extraction never looks (an annotation's appearance,
a pattern cell). The server's own process never renders: a worker (``python -m indexer.evidence.render_pool``)
reads one request per line on stdin and answers one line on stdout; its data segment is capped (``RLIMIT_DATA``),
and the server kills it at the deadline and starts another for the next page. A page refused once is refused at
once afterwards (the answer names the page and the budget), so a viewer asking again costs nothing.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import queue
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

from indexer.core.errors import FilingsError, QueryError
from indexer.core.models import Box
from indexer.core.workers import PYTHON_ISOLATED
from indexer.evidence.render import Rendered, render_png

logger = logging.getLogger(__name__)

RENDER_TIMEOUT_S = 5.0  # one page's render, in the worker
RENDER_MEMORY_MB = 512  # what a render may allocate above the worker's own baseline
RENDER_WORKERS = 2  # renders at once per server; a third call waits for a worker
WAIT_FOR_WORKER_S = 30.0  # how long a call waits for a free worker before it is told the renderer is busy
MAX_WAITING = 8  # calls waiting for a worker at once; one more is told at once (waiting calls hold server threads)
REFUSED_MEMORY = 256  # pages remembered as refused (oldest forgotten first)
STARTUP_S = 20.0  # how long a fresh worker may take to import PDFium and Pillow and say it is ready


class RenderError(FilingsError):
    """A page that could not be rendered within the budget (or at all); the server keeps serving."""


class _Worker:
    """One render worker process: requests in on stdin, answers out on stdout, one JSON line each."""

    def __init__(self, memory_mb: float) -> None:
        command = [*PYTHON_ISOLATED, "-m", "indexer.evidence.render_pool", str(int(memory_mb))]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0
        )
        self.memory_mb = memory_mb
        self.ready = False
        self.failure = ""  # why the last request got no answer
        self._rest = b""

    def ask(self, request: dict[str, object], timeout: float) -> dict[str, object] | None:
        """The worker's answer, or None if it did not answer in time or died (it is then stopped). A fresh worker
        first says it is ready (PDFium and Pillow imported): that wait is not the render's."""
        stdin = self.process.stdin
        assert stdin is not None
        if not self.ready:
            self.ready = self._line(time.monotonic() + STARTUP_S) == b"ready\n"
            if not self.ready:
                self.failure = f"could not be rendered: the renderer did not start within {STARTUP_S:g} s"
                self.stop()
                return None
        try:
            stdin.write(json.dumps(request).encode() + b"\n")
        except OSError:
            self.failure = "could not be rendered: the renderer stopped"
            self.stop()
            return None
        deadline = time.monotonic() + timeout
        received = self._line(deadline)
        if received is None:
            self.failure = (
                f"took longer than {timeout:g} s to render and was stopped"
                if time.monotonic() >= deadline
                else f"needed more than {self.memory_mb:g} MB of memory to render (or crashed the renderer) and was "
                "stopped"
            )
            self.stop()
            return None
        answer: dict[str, object] = json.loads(received)
        return answer

    def _line(self, deadline: float) -> bytes | None:
        """One line from the worker by ``deadline``; None past it or when the worker died (out of memory, or PDFium
        crashed)."""
        stdout = self.process.stdout
        assert stdout is not None
        received = bytearray(self._rest)
        while b"\n" not in received:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([stdout], [], [], left)[0]:
                return None
            chunk = os.read(stdout.fileno(), 1 << 20)
            if not chunk:
                return None
            received += chunk
        line, _, rest = bytes(received).partition(b"\n")
        self._rest = rest
        return line + b"\n"

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


class RenderPool:
    """At most ``workers`` renders at once, each within ``timeout`` seconds and ``memory_mb`` of memory."""

    def __init__(
        self,
        workers: int = RENDER_WORKERS,
        timeout: float = RENDER_TIMEOUT_S,
        memory_mb: float = RENDER_MEMORY_MB,
    ) -> None:
        self.workers, self.timeout, self.memory_mb = workers, timeout, memory_mb
        self._idle: queue.LifoQueue[_Worker | None] = queue.LifoQueue()
        for _ in range(workers):
            self._idle.put(None)  # a slot; its worker starts on first use
        self._refused: dict[tuple[str, int], str] = {}
        self._waiting = 0
        self._lock = threading.Lock()

    def render(
        self, pdf: Path, page: int, boxes: list[Box], dpi: int = 110, colors: int | None = None, name: str = ""
    ) -> Rendered:
        """:func:`render_png` in a worker, within the budget; :class:`RenderError` naming the page if it is not."""
        where = f"page {page} of {name or pdf.name}"
        key = (str(pdf), page)
        busy = f"the renderer is busy ({self.workers} renders running, more waiting); ask again in a moment"
        with self._lock:
            refused = self._refused.get(key)
            crowded = self._waiting >= MAX_WAITING
            if refused is None and not crowded:
                self._waiting += 1
        if refused is not None:
            raise RenderError(f"{where} {refused} (refused earlier; not tried again)")
        if crowded:
            raise RenderError(busy)
        try:
            worker = self._idle.get(timeout=WAIT_FOR_WORKER_S)
        except queue.Empty:
            raise RenderError(busy) from None
        finally:
            with self._lock:
                self._waiting -= 1
        try:
            if worker is None or not worker.alive:
                worker = _Worker(self.memory_mb)
            request = {"pdf": str(pdf), "page": page, "dpi": dpi, "colors": colors,
                       "boxes": [box.model_dump() for box in boxes]}  # fmt: skip
            answer = worker.ask(request, self.timeout)
            if answer is None:
                if worker.ready:  # the page's own cost (not a renderer that failed to start): not tried again
                    self._refuse(key, worker.failure)
                raise RenderError(f"{where} {worker.failure}; read its text with get_page instead")
        finally:
            self._idle.put(worker if worker is not None and worker.alive else None)
        if "query" in answer:
            raise QueryError(str(answer["query"]))
        if "failed" in answer:
            raise RenderError(f"{where} could not be rendered ({answer['failed']})")
        return Rendered(
            png=base64.b64decode(str(answer["png"])),
            scale=float(answer["scale"]),  # type: ignore[arg-type]
            width=int(answer["width"]),  # type: ignore[call-overload]
            height=int(answer["height"]),  # type: ignore[call-overload]
            drawn=[Box.model_validate(box) for box in answer["drawn"]],  # type: ignore[attr-defined]
        )

    def _refuse(self, key: tuple[str, int], reason: str) -> None:
        with self._lock:
            if len(self._refused) >= REFUSED_MEMORY:
                self._refused.pop(next(iter(self._refused)))
            self._refused[key] = reason

    def close(self) -> None:
        """Stops the workers (idle ones; one still rendering stops when its call ends)."""
        while True:
            try:
                worker = self._idle.get_nowait()
            except queue.Empty:
                return
            if worker is not None:
                worker.stop()


_shared: RenderPool | None = None
_shared_lock = threading.Lock()


def shared_pool() -> RenderPool:
    """The process's render pool, made on first use (the server renders through one pool, whatever index it has)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = RenderPool()
        return _shared


def _data_mb() -> float:
    """This process's data segment (what RLIMIT_DATA counts) in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmData:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _serve(memory_mb: float) -> int:
    """The worker: caps its own memory, then renders one request per line until stdin closes."""
    import resource

    import PIL.Image  # noqa: F401  (imported before the cap: the budget is for the render, not the libraries)
    import pypdfium2  # noqa: F401

    if Path("/proc/self/status").exists():
        limit = int((_data_mb() + memory_mb) * 1024 * 1024)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    sys.stdout.buffer.write(b"ready\n")
    sys.stdout.buffer.flush()
    for line in sys.stdin.buffer:
        request = json.loads(line)
        try:
            rendered = render_png(
                Path(request["pdf"]),
                int(request["page"]),
                [Box.model_validate(box) for box in request["boxes"]],
                int(request["dpi"]),
                request["colors"],
            )
            answer: dict[str, object] = {
                "png": base64.b64encode(rendered.png).decode(), "scale": rendered.scale,
                "width": rendered.width, "height": rendered.height,
                "drawn": [box.model_dump() for box in rendered.drawn],
            }  # fmt: skip
        except QueryError as exc:
            answer = {"query": str(exc)}
        except MemoryError:
            return 1  # the server reads the worker's end as over its memory
        except Exception as exc:  # PDFium's own failure on a damaged page: said, not raised
            answer = {"failed": f"{type(exc).__name__}: {exc}"[:200]}
        sys.stdout.buffer.write(json.dumps(answer).encode() + b"\n")
        sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(_serve(float(sys.argv[1])))
