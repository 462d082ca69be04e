"""A memory bound per parse: a watchdog thread that kills a LiteParse worker process (or an HTML conversion worker)
whose resident memory passes the limit (the parse of that file fails with a reason; the pool starts a fresh worker
for the next file).

Linux only (it reads /proc); elsewhere the guard does nothing and says so in the log.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from pathlib import Path

logger = logging.getLogger(__name__)

# In the command line of a process the guard watches: a LiteParse worker, an HTML conversion worker.
WORKER_MARKS = (b"liteparse._pool", b"indexer.ingest.convert")
POLL_S = 0.05


def _children(pid: int) -> list[int]:
    """Child process ids of ``pid`` (every thread's children file, or a scan of /proc if the kernel lacks it)."""
    tasks = Path(f"/proc/{pid}/task")
    found: list[int] = []
    try:
        for task in tasks.iterdir():
            found += [int(child) for child in (task / "children").read_text().split()]
        return found
    except OSError:
        pass
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            if f"\nPPid:\t{pid}\n" in status.read_text():
                found.append(int(status.parent.name))
        except OSError:
            continue
    return found


def _is_worker(pid: int) -> bool:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return any(mark in command for mark in WORKER_MARKS)


def resident_mb(pid: int) -> float | None:
    """Resident memory of a process in MiB (None if it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class MemoryGuard:
    """Watches this process's LiteParse workers between start() and stop(); ``kills`` counts the workers it stopped and
    ``peak_mb`` is the most any worker held."""

    def __init__(self, limit_mb: float | None) -> None:
        self.limit_mb = limit_mb
        self.kills = 0
        self.killed: set[int] = set()  # pids of the workers it stopped
        self.peak_mb = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.limit_mb is None or self._thread is not None:
            return
        if not Path("/proc/self/status").exists():
            logger.warning("no /proc on this system: the parse memory limit is not enforced")
            return
        self._thread = threading.Thread(target=self._watch, name="parse-memory-guard", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _watch(self) -> None:
        me = os.getpid()
        while not self._stop.wait(POLL_S):
            for pid in _children(me):
                used = resident_mb(pid)
                if used is None or not _is_worker(pid):
                    continue
                self.peak_mb = max(self.peak_mb, used)
                if self.limit_mb is not None and used > self.limit_mb:
                    logger.warning("parse worker %d held %.0f MB, over the limit of %.0f MB", pid, used, self.limit_mb)
                    self.kills += 1  # counted first: the parse that fails must see it
                    self.killed.add(pid)
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        self.kills -= 1
                        self.killed.discard(pid)
