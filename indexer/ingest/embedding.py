"""A build's second phase: embed the passages the published version has no vectors for, and publish them.

A build publishes as soon as its documents are parsed (words, pages, boxes, tables: everything but vectors), then
embeds here. The vectors go to this machine's vector cache batch by batch, and a new version — the *current* one,
whatever build published it, with every vector now known — is published every ``publish_every_s`` and at the end.
One process embeds for an index at a time (the embedding lock, :mod:`indexer.index.lock`); a build that finds
another one embedding leaves its documents to it, and that process looks for passages without vectors, under the
index lock, before it stops. Killed half-way, the served version stays and the next build takes what was embedded
from the cache.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from indexer.core.errors import FilingsError
from indexer.core.models import StoredChunk
from indexer.index.embed import Embedder
from indexer.index.layout import DENSE, DENSE_ROWS, MANIFEST, OWNER_MARK
from indexer.index.lock import IndexLock
from indexer.index.publish import discard, publish, staging_folder
from indexer.index.store import Manifest, link_or_copy, read_chunk_table, read_manifest, write_manifest
from indexer.index.vector_cache import VectorCache
from indexer.ingest.backend import after_publish, write_vectors
from indexer.ingest.previous_vectors import own_vectors
from indexer.ingest.settings import BuildSettings
from indexer.ingest.vectors import VectorPlan, plan_vectors, with_readiness

logger = logging.getLogger(__name__)

_NOT_LINKED = frozenset({DENSE, DENSE_ROWS, MANIFEST, OWNER_MARK})


@dataclass
class Version:
    """The published version of an index and what its passages' vectors are now."""

    folder: Path
    manifest: Manifest
    chunks: Sequence[StoredChunk]
    plan: VectorPlan

    @property
    def has_new_vectors(self) -> bool:
        ready = self.plan.ready_documents([m.document for m in self.manifest.documents])
        return int(self.plan.known.sum()) != self.manifest.embedded_chunks or any(
            m.semantic_ready != (m.document in ready) for m in self.manifest.documents
        )


def current_version(index_dir: Path, embedder: Embedder, cache: VectorCache) -> Version | None:
    """The version ``index_dir`` points at, with its vectors from itself and the cache; None if it is no longer
    built with ``embedder`` (rebuilt meanwhile with another model, or none)."""
    folder = index_dir.resolve()
    manifest = read_manifest(folder)
    if manifest.embedder is None or manifest.embedder.id != embedder.id:
        return None
    chunks = read_chunk_table(folder)
    metas = {meta.document: meta for meta in manifest.documents}
    own = own_vectors(folder, manifest.storage)  # its chunks are this version's: matched by row, no key round trip
    plan = plan_vectors(chunks, metas, embedder.dim, manifest.embedder.passage_text, {}, cache, own=own)
    return Version(folder, manifest, chunks, plan)


def _link_files(source: Path, staging: Path) -> None:
    """Every file of ``source`` but its vectors and manifest, hard-linked into ``staging`` (copied where links
    cannot be made): published files are never written again, so the versions can share them."""
    for path in source.rglob("*"):
        relative = path.relative_to(source)
        if not path.is_file() or relative.as_posix() in _NOT_LINKED:
            continue
        link_or_copy(path, staging / relative)


def publish_vectors(index_dir: Path, version: Version) -> None:
    """Publish ``version`` again with every vector its plan knows; call under the index lock."""
    staging = staging_folder(index_dir)
    published = False
    documents = version.manifest.documents
    ready = version.plan.ready_documents([m.document for m in documents])
    try:
        _link_files(version.folder, staging)
        record = write_vectors(staging, version.chunks, version.plan, version.manifest.storage)
        update = {"documents": with_readiness(documents, ready), "embedded_chunks": int(version.plan.known.sum())}
        write_manifest(staging, version.manifest.with_storage(record, **update))
        publish(staging, index_dir)
        published = True
        after_publish(index_dir, record)
    except OSError as exc:  # a full disk, a quota: the version with the words keeps serving
        raise FilingsError(
            f"publishing the vectors failed ({exc.strerror or exc}: {exc.filename or staging}); the index at "
            f"{index_dir} keeps serving its current version and the vectors computed are in the cache: free some "
            "space and run `filings-index embed` to publish them"
        ) from exc
    finally:
        if not published:
            discard(staging)
    logger.info("published vectors for %d of %d documents", len(ready), len(documents))


@dataclass
class EmbeddingRun:
    computed: int = 0  # vectors this process computed
    published: int = 0  # versions it published
    left_to: str | None = None  # the process that embeds instead, when another one was at it
    seconds: float = 0.0


def embed_pending(settings: BuildSettings, embedder: Embedder) -> EmbeddingRun:
    """Embed what the index's current version lacks, publishing as it goes, until nothing is left."""
    run = EmbeddingRun()
    target = settings.index_dir
    embedding = IndexLock.of(target, "embedding")
    if not embedding.try_acquire():
        run.left_to = embedding.holder()
        logger.warning("%s is embedding passages for %s; it embeds these documents too", run.left_to, target.name)
        return run
    started = time.perf_counter()
    index_lock = IndexLock.of(target, "index")
    cache = VectorCache.open(settings.cache_dir, embedder.id, embedder.dim)
    try:
        while True:
            index_lock.acquire()
            try:
                cache.refresh()
                version = current_version(target, embedder, cache)
                if version is not None and version.has_new_vectors:
                    publish_vectors(target, version)
                    run.published += 1
                todo = version.plan.pending() if version is not None else []
                if not todo:
                    embedding.release()  # under the index lock: a build publishing after this embeds for itself
                    return run
            finally:
                index_lock.release()
            assert version is not None  # there is work only in a version built with this embedder
            _embed(todo, version.plan, embedder, cache, settings, run, index_lock)
    finally:
        embedding.release()
        cache.flush()
        run.seconds = time.perf_counter() - started


def _embed(
    todo: list[int],
    plan: VectorPlan,
    embedder: Embedder,
    cache: VectorCache,
    settings: BuildSettings,
    run: EmbeddingRun,
    index_lock: IndexLock,
) -> None:
    """Embed ``todo`` in batches into the cache, publishing the current version every ``publish_every_s``."""
    from tqdm import tqdm

    last_publish = time.monotonic()
    bar = tqdm(total=len(todo), unit="chunk", desc="embedding", file=sys.stderr, disable=not settings.progress)
    with bar:
        size = settings.batch_size * getattr(embedder, "workers", 1)  # a batch for each Ray actor
        for start in range(0, len(todo), size):
            batch = todo[start : start + size]
            vectors = embedder.embed_passages([plan.texts[pos] for pos in batch])
            cache.put([plan.keys[pos] for pos in batch], vectors)
            plan.fill(batch, vectors)
            run.computed += len(batch)
            bar.update(len(batch))
            if time.monotonic() - last_publish >= settings.publish_every_s and start + size < len(todo):
                cache.flush()
                with index_lock:
                    version = current_version(settings.index_dir, embedder, cache)
                    if version is not None and version.has_new_vectors:
                        publish_vectors(settings.index_dir, version)
                        run.published += 1
                last_publish = time.monotonic()
    cache.flush()
