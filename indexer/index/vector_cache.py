"""Passage vectors kept between builds, by the SHA-256 of the exact text embedded, one folder per embedder.

Embedding is most of a build's time (~4 chunks/s on 2 cores), so a vector is computed once per (embedder, text)
on this machine, whatever index it goes into: a rebuild into a new folder, an experiment with other chunking, a
build killed half-way (each batch is written as it is embedded) all reuse what was already computed.

Layout: ``<cache_dir>/vectors/<embedder id, made file-safe>/<shard>.npz``, each shard holding ``keys`` (the hex
digests, fixed-width bytes) and ``vectors`` (float32, one row per key). A shard is written to a temporary name and
renamed, so a reader sees whole shards only; a shard that cannot be read is skipped with a warning (it is only a
cache: the vectors are computed again).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
import time
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)

FLUSH_EVERY = 64  # vectors held in memory before they are written as a shard
_KEY_BYTES = 64  # a SHA-256 hex digest


def text_key(text: str) -> str:
    """The cache key of a text as it is embedded."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _folder_name(embedder_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", embedder_id)[:120] or "embedder"


STALE_TMP_S = 3600  # a shard being written that is this old was left by a process that died before its rename


def _remove_if_stale(partial: Path) -> None:
    """Remove a ``.NAME.tmp.npz`` a killed process left (ours: flush names them so); one being written is young."""
    try:
        if partial.name.endswith(".tmp.npz") and time.time() - partial.lstat().st_mtime > STALE_TMP_S:
            partial.unlink()
            logger.info("removed %s, left by a process that stopped while writing it", partial.name)
    except OSError:
        pass


class VectorCache:
    """A key → vector map backed by append-only shards; ``put`` buffers, ``flush`` writes one shard."""

    def __init__(self, folder: Path, dim: int) -> None:
        self.folder = folder
        self.dim = dim
        self._vectors: dict[str, np.ndarray] = {}
        self._pending_keys: list[str] = []
        self._pending: list[np.ndarray] = []
        self._read: set[str] = set()  # shards already loaded

    @classmethod
    def open(cls, cache_dir: Path, embedder_id: str, dim: int) -> VectorCache:
        cache = cls(cache_dir / "vectors" / _folder_name(embedder_id), dim)
        cache._load()
        return cache

    def __len__(self) -> int:
        return len(self._vectors)

    def get(self, key: str) -> np.ndarray | None:
        return self._vectors.get(key)

    def put(self, keys: list[str], vectors: np.ndarray) -> None:
        for key, vector in zip(keys, vectors, strict=True):
            self._vectors[key] = vector
            self._pending_keys.append(key)
            self._pending.append(vector)
        if len(self._pending_keys) >= FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        """Write what was put since the last flush as one shard (nothing is lost if the build dies after it)."""
        if not self._pending_keys:
            return
        keys = np.array([k.encode("ascii") for k in self._pending_keys], dtype=f"S{_KEY_BYTES}")
        vectors = np.stack(self._pending).astype(np.float32)
        self._pending_keys, self._pending = [], []
        try:
            self.folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.folder.mkdir(mode=0o700, exist_ok=True)
            name = f"{time.time_ns()}-{os.getpid()}"
            tmp = self.folder / f".{name}.tmp.npz"
            with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600), "wb") as out:
                np.savez(out, keys=keys, vectors=vectors)  # 0600: the cache is this user's alone
            tmp.replace(self.folder / f"{name}.npz")
            self._read.add(f"{name}.npz")
        except OSError as exc:  # a full disk or a read-only cache costs a re-embedding later, not this build
            logger.warning("could not keep %d vectors in the cache %s: %s", len(keys), self.folder, exc)

    def refresh(self) -> None:
        """Load the shards other processes wrote since this cache was opened."""
        self._load()

    def _load(self) -> None:
        if not self.folder.is_dir():
            return
        for shard in sorted(self.folder.glob("*.npz")):
            if shard.name.startswith("."):
                _remove_if_stale(shard)
                continue
            if shard.name in self._read:
                continue
            self._read.add(shard.name)
            try:
                if not stat.S_ISREG(shard.lstat().st_mode):  # a FIFO would hang the read, a link lead elsewhere
                    raise ValueError("not a regular file")
                with np.load(shard, allow_pickle=False) as data:
                    keys, vectors = data["keys"], data["vectors"]
                if vectors.ndim != 2 or vectors.shape[1] != self.dim or len(keys) != len(vectors):
                    raise ValueError(f"shape {vectors.shape} for {len(keys)} keys, expected width {self.dim}")
                if keys.dtype.kind != "S":
                    raise ValueError(f"keys of type {keys.dtype}, expected SHA-256 hex digests")
                names = [key.decode("ascii") for key in keys]  # a non-ASCII key: UnicodeDecodeError, a ValueError
            except (OSError, ValueError, KeyError) as exc:
                logger.warning("skipping unreadable vector cache shard %s: %s", shard, exc)
                continue
            self._vectors.update(zip(names, vectors, strict=True))
