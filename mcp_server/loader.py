"""Load the index and the embedder on a background thread; calls wait (bounded) for it.

When a build publishes a new version of the index (add, remove, rebuild), the next call notices (the manifest's
inode and mtime changed) and loads it, reusing the tokenizer and embedder; calls already running keep the
version they started with, and a version that fails to load leaves the previous one serving.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from pathlib import Path

from indexer.core.errors import IndexLoadError
from indexer.index.reader import manifest_stamp
from indexer.knowledge_base import KnowledgeBase

logger = logging.getLogger(__name__)


def _settle() -> None:
    """Move what is loaded now (chunks, dictionaries: millions of objects) out of the garbage collector's sight:
    a full collection scanning them took ~150 ms in the middle of a search."""
    gc.collect()
    gc.freeze()


class IndexLoader:
    def __init__(self, index_dir: Path, cache_dir: Path, timeout: float) -> None:
        self._index_dir = index_dir
        self._cache_dir = cache_dir
        self._timeout = timeout
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._index: KnowledgeBase | None = None
        self._error: Exception | None = None
        self._thread: threading.Thread | None = None
        self._reload_lock = threading.Lock()
        self._failed_stamp: tuple[int, int] | None = None

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._load, name="index-loader", daemon=True)
                self._thread.start()

    def _load(self) -> None:
        started = time.perf_counter()
        try:
            index = KnowledgeBase.open(self._index_dir, self._cache_dir)
            _settle()
            with self._lock:
                self._index = index
            logger.info("index %s loaded in %.2fs", self._index_dir, time.perf_counter() - started)
        except Exception as exc:  # reported to every caller, with the reason
            logger.error("loading %s failed: %s", self._index_dir, exc)
            with self._lock:
                self._error = exc
        finally:
            self._done.set()

    def get(self) -> KnowledgeBase:
        """The loaded index; waits up to the timeout, raises IndexLoadError with the reason if loading failed."""
        self.start()
        if not self._done.wait(self._timeout):
            raise IndexLoadError(
                f"the index at {self._index_dir} is still loading after {self._timeout:.0f}s; try again shortly"
            )
        with self._lock:
            if self._error is not None:
                raise IndexLoadError(f"the index at {self._index_dir} could not be loaded: {self._error}")
            assert self._index is not None
            current = self._index
        return self._current_version(current)

    def _current_version(self, current: KnowledgeBase) -> KnowledgeBase:
        stamp = manifest_stamp(self._index_dir)
        if stamp is None or stamp == current.stamp or stamp == self._failed_stamp:
            return current
        if not self._reload_lock.acquire(blocking=False):
            return current  # another call is loading the new version; this one is answered from the old
        try:
            started = time.perf_counter()
            index = KnowledgeBase.open(self._index_dir, self._cache_dir, previous=current)
        except Exception as exc:  # the previous version keeps serving
            logger.error("new version of %s not loaded, still serving the previous one: %s", self._index_dir, exc)
            self._failed_stamp = stamp
            return current
        finally:
            self._reload_lock.release()
        _settle()
        with self._lock:
            self._index = index
        logger.info("index %s reloaded (new version) in %.2fs", self._index_dir, time.perf_counter() - started)
        return index
