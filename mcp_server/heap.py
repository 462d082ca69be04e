"""Giving memory back to the system after large request bodies.

glibc's malloc keeps what a burst of large allocations freed: after 24 calls of 4 MiB strings in flight, the server
held 640 MB more than before, for good (freed blocks stay in the heap for reuse, and the mmap threshold rises to the
largest block freed, so later large blocks come from the heap too). And much of it is not free yet when the calls
end: a call refused by validation leaves its parsed body in reference cycles (the exception, its traceback, the
input it quotes) until the cyclic collector runs, which with the server's thresholds can be minutes later.

So once the large bodies have stopped for ``TRIM_DELAY_S`` (a flood is handled once, after it, not once a call), a
full ``gc.collect()`` frees those cycles (cheap: the loaded index is frozen out of the collector's sight, see
``mcp_server/loader.py``), then ``malloc_trim(0)`` returns the free pages of every arena, in a thread since it
walks the heap. Measured: 24 calls of 4 MiB strings in flight, 48 in all, left 756 MB of RSS held; collected and
trimmed, 311 MB (300 before). Elsewhere than glibc there is no ``malloc_trim`` and only the collection is done.
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import logging
from collections.abc import Callable

logger = logging.getLogger(__name__)

TRIM_DELAY_S = 0.5  # quiet time after the last large body before the heap is trimmed


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):  # not glibc (Windows cannot even open the process's own symbols)
        return None
    return trim


class HeapTrimmer:
    """``soon()`` after each large body; the heap is trimmed once none has ended for ``delay_s``."""

    def __init__(self, delay_s: float = TRIM_DELAY_S) -> None:
        self.delay_s = delay_s
        self.trims = 0
        self._trim = _malloc_trim()
        self._timer: asyncio.TimerHandle | None = None
        self._busy: Callable[[], bool] = lambda: False

    def when_idle(self, busy: Callable[[], bool]) -> None:
        """Trim only while ``busy()`` is false (large bodies in flight would be freed again soon)."""
        self._busy = busy

    def soon(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(self.delay_s, self._start)

    def _start(self) -> None:
        self._timer = None
        if self._busy():
            return  # the last large body to finish calls soon() again
        self.trims += 1
        gc.collect()
        if self._trim is not None:
            asyncio.get_running_loop().run_in_executor(None, self._run)

    def _run(self) -> None:
        if self._trim is not None:
            released = self._trim(0)
            logger.debug("malloc_trim released memory: %s", bool(released))
