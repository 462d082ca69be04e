"""One writer per index: advisory locks on files beside the index, released by the kernel when their process ends
(a build killed with ``kill -9`` leaves no stale lock).

Two locks, both named after the index and kept beside it (``.NAME.lock``, ``.NAME.embedding.lock``):

- the *index* lock is held while a version is composed from the current one and published: a build's lexical
  phase, each publication of new vectors, the last check for work. Builders queue on it, so no update is lost.
- the *embedding* lock is held by the one process that embeds for the index. A second build that finds it held
  leaves its documents to that process, which looks for documents without vectors before it stops.

A lock file is opened as :mod:`indexer.index.safe_paths` opens what we keep beside an index: made 0600 when new,
never through a link, and refused when it is another user's (a lock someone else made, and may hold forever, is an
error naming the file, not a wait) or writable by others.
"""

from __future__ import annotations

import fcntl
import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

from indexer.core.errors import FilingsError
from indexer.index.safe_paths import open_private_file, read_note

logger = logging.getLogger(__name__)


class IndexBusyError(FilingsError):
    """Another process holds the lock and the caller asked not to wait."""


def lock_path(target: Path, kind: str) -> Path:
    suffix = "lock" if kind == "index" else f"{kind}.lock"
    return target.parent / f".{target.name}.{suffix}"


@dataclass
class IndexLock:
    """An exclusive ``flock`` on ``path``; the file holds the holder's pid and start time, for messages."""

    path: Path
    index: str  # the index's name, for messages
    what: str
    _fd: int | None = field(default=None, repr=False)

    @classmethod
    def of(cls, target: Path, kind: str) -> IndexLock:
        what = "writing" if kind == "index" else "embedding passages for"
        return cls(lock_path(target, kind), target.name, what)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def holder(self) -> str:
        """Who holds the lock, as its holder wrote (read without following a link)."""
        return (read_note(self.path) or "").strip() or "another process"

    def try_acquire(self) -> bool:
        """Take the lock if it is free; False (and nothing held) if another process has it. A lock file that is a
        link, another user's or writable by others raises :class:`~indexer.index.safe_paths.UnsafePathError`."""
        if self._fd is not None:
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = open_private_file(self.path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} since {time.strftime('%Y-%m-%d %H:%M:%S')}\n".encode())
        self._fd = fd
        return True

    def acquire(self, wait: bool = True, poll_s: float = 0.2) -> None:
        """Take the lock, waiting for its holder (said once on stderr) unless ``wait`` is False."""
        if self.try_acquire():
            return
        holder = self.holder()
        if not wait:
            raise IndexBusyError(
                f"{holder} is {self.what} the index {self.index} (lock {self.path}); wait for it to finish, or run "
                "again without --no-wait to queue behind it"
            )
        logger.warning("waiting for %s, which is %s the index %s", holder, self.what, self.index)
        while not self.try_acquire():
            time.sleep(poll_s)

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with suppress(OSError):
            os.ftruncate(fd, 0)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    def __enter__(self) -> IndexLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


@contextmanager
def holding(target: Path, kind: str = "index", wait: bool = True) -> Iterator[IndexLock]:
    lock = IndexLock.of(target, kind)
    lock.acquire(wait)
    try:
        yield lock
    finally:
        lock.release()
