"""Searchable first, semantic after: a build publishes its documents' words before it embeds them, a running server
sees both versions, a build killed while embedding leaves the words served and the next one resumes, and one
writer at a time holds an index."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from indexer.core.errors import FilingsError
from indexer.index.lock import IndexBusyError, IndexLock
from indexer.index.store import read_manifest
from indexer.ingest.build import add_documents, build_index
from indexer.ingest.settings import BuildSettings
from indexer.knowledge_base import KnowledgeBase
from tests.conftest import BESTBUY_10Q, MGM, ROOT, SIFANG, docs_folder, hits_for, kill_when
from tests.test_server_e2e import _params

pytestmark = pytest.mark.serial  # run alone, after the parallel run (Makefile: test)

WAIT_S = 300


def _settings(index: Path, cache: Path, docs: Path | None = None, **more: Any) -> BuildSettings:
    return BuildSettings(index_dir=index, docs_dir=docs, progress=False, cache_dir=cache, **more)


@pytest.fixture
def embedded_index(tmp_path: Path, cache_dir: Path) -> Path:
    """The Chinese annual-report sample, embedded with the default model."""
    index = tmp_path / "index"
    report = build_index(_settings(index, cache_dir, docs_folder(tmp_path / "docs", SIFANG)))
    assert report.published and _readiness(index) == {SIFANG.name: True}
    return index


def _add(index: Path, pdf: Path, cache: Path) -> subprocess.Popen[str]:
    """`filings-index add` in its own process, with its own (empty) vector cache: it has to embed."""
    command = [sys.executable, "-m", "indexer", "add", str(pdf), "--index", str(index), "--no-progress", "--json"]
    env = {**os.environ, "FILINGS_CACHE_DIR": str(cache)}
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _readiness(index: Path) -> dict[str, bool]:
    try:
        return {meta.document: meta.semantic_ready for meta in read_manifest(index).documents}
    except FilingsError:  # not published yet
        return {}


async def _watch_an_add(index: Path, cache_dir: Path, fresh_cache: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"seen": []}
    async with stdio_client(_params(index, cache_dir)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        adding = _add(index, BESTBUY_10Q, fresh_cache)
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            listing = (await session.call_tool("list_documents", {})).structured_content
            ready = {d["document"]: d["semantic_ready"] for d in listing["documents"]}
            out["seen"].append(ready.get(BESTBUY_10Q.name))
            if ready.get(BESTBUY_10Q.name) is False and "words" not in out:
                out["listing"] = listing
                found = await session.call_tool(
                    "search_reports", {"query": "Best Buy comparable sales", "documents": BESTBUY_10Q.name}
                )
                out["words"] = found.structured_content
            if ready.get(BESTBUY_10Q.name) and adding.poll() is not None:
                break
            await asyncio.sleep(0.3)
        stdout, stderr = adding.communicate(timeout=WAIT_S)
        out["status"], out["report"], out["stderr"] = adding.returncode, stdout, stderr
        found = await session.call_tool("search_reports", {"query": "Best Buy comparable sales"})
        out["after"] = found.structured_content
    return out


def test_a_running_server_finds_a_new_filing_by_its_words_before_it_is_embedded(
    embedded_index: Path, cache_dir: Path, tmp_path: Path
) -> None:
    out = asyncio.run(_watch_an_add(embedded_index, cache_dir, tmp_path / "fresh-cache"))
    assert out["status"] == 0, out["stderr"]
    report = json.loads(out["report"])
    # seen by the server: first the words only, then semantic
    assert False in out["seen"] and out["seen"][-1] is True, out["seen"]
    assert out["seen"].index(False) < out["seen"].index(True)
    words = out["words"]
    assert words["hits"] and all(hit["document"] == BESTBUY_10Q.name for hit in words["hits"])
    assert words["still_embedding"] == 1 and words["dense_search"]
    assert out["listing"]["still_embedding"] == [BESTBUY_10Q.name]
    assert out["after"]["still_embedding"] == 0
    # the second phase computed exactly the passages the first could not find anywhere
    assert report["pending_vectors"] > 0 and report["computed_vectors"] == report["pending_vectors"]
    assert report["versions_published"] >= 2 and report["seconds"]["searchable"] < report["seconds"]["total"]
    assert report["reused_vectors"] > 0  # the annual report's vectors come from the index being replaced
    assert all(_readiness(embedded_index).values())


def test_kill_9_while_embedding_leaves_the_words_served_and_the_next_run_resumes(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    docs = docs_folder(tmp_path / "docs", BESTBUY_10Q)
    index = tmp_path / "idx"
    command = [sys.executable, "-m", "indexer", "build", str(docs), "--index", str(index), "--no-progress",
               "--batch-size", "8"]  # fmt: skip  # several batches, so the kill lands between two
    process = subprocess.Popen(
        command, cwd=ROOT, env={**os.environ, "FILINGS_CACHE_DIR": str(cache)}, stderr=subprocess.DEVNULL
    )
    kill_when(process, lambda: bool(_readiness(index)) and bool(_shards(cache)), "embedding", WAIT_S)
    lexical = read_manifest(index)
    assert [m.semantic_ready for m in lexical.documents] == [False] and lexical.embedded_chunks == 0

    hits = hits_for(KnowledgeBase.open(index, cache), "comparable sales", top_k=3)
    assert hits and hits[0].document == BESTBUY_10Q.name  # searchable by its words

    stored = _cached_keys(cache)
    assert stored and len(stored) == len(set(stored))
    result = subprocess.run(
        [sys.executable, "-m", "indexer", "embed", "--index", str(index), "--no-progress", "--json"],
        cwd=ROOT,
        env={**os.environ, "FILINGS_CACHE_DIR": str(cache)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    resumed = json.loads(result.stdout)
    after = _cached_keys(cache)
    # the resumed run computed only what the killed one had not stored, each distinct text once
    assert resumed["computed_vectors"] > 0 and len(after) == len(stored) + resumed["computed_vectors"]
    assert len(after) == len(set(after))
    final = read_manifest(index)
    assert all(m.semantic_ready for m in final.documents) and final.embedded_chunks >= len(after)


def _shards(cache: Path) -> list[Path]:
    """The vector cache's shards; not a shard being written (``.NAME.tmp.npz``, renamed when whole): a build killed
    before the rename leaves one, which the cache never reads."""
    return sorted(p for p in cache.glob("vectors/*/*.npz") if not p.name.startswith("."))


def _cached_keys(cache: Path) -> list[bytes]:
    """Every key stored in a vector cache, shard by shard (a key stored twice was embedded twice)."""
    keys: list[bytes] = []
    for shard in _shards(cache):
        with np.load(shard) as data:
            keys += data["keys"].tolist()
    return keys


@contextmanager
def _said(words: str, logger_name: str) -> Iterator[threading.Event]:
    """An event set when ``logger_name`` logs a message holding ``words`` (from any thread)."""
    said = threading.Event()

    class Listener(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if words in record.getMessage():
                said.set()

    listener, logger = Listener(), logging.getLogger(logger_name)
    logger.addHandler(listener)
    try:
        yield said
    finally:
        logger.removeHandler(listener)


def test_one_writer_at_a_time_a_second_build_queues_or_says_who(embedded_index: Path, cache_dir: Path) -> None:
    held = IndexLock.of(embedded_index, "index")
    assert held.try_acquire()
    try:
        with pytest.raises(IndexBusyError, match=rf"pid {os.getpid()} since .* is writing the index index"):
            add_documents(_settings(embedded_index, cache_dir, wait_for_lock=False), [MGM])
        queued = threading.Thread(target=add_documents, args=(_settings(embedded_index, cache_dir), [MGM]))
        with _said("waiting for", "indexer.index.lock") as waiting:
            queued.start()
            assert waiting.wait(WAIT_S), "the second build never said it was waiting"
        assert queued.is_alive() and MGM.name not in _readiness(embedded_index)  # waiting, nothing written
    finally:
        held.release()
    queued.join(timeout=WAIT_S)
    assert not queued.is_alive() and _readiness(embedded_index).get(MGM.name) is True


def test_a_build_that_finds_another_embedding_leaves_its_documents_to_it(
    embedded_index: Path, cache_dir: Path, tmp_path: Path
) -> None:
    fresh = tmp_path / "fresh-cache"
    first = _add(embedded_index, BESTBUY_10Q, fresh)
    deadline = time.monotonic() + WAIT_S
    embedding = IndexLock.of(embedded_index, "embedding")  # read, never taken: the test must not compete for it
    while time.monotonic() < deadline and first.poll() is None:
        if _readiness(embedded_index).get(BESTBUY_10Q.name) is False and f"pid {first.pid}" in embedding.holder():
            break
        time.sleep(0.1)
    assert first.poll() is None, "the first build ended before it was caught embedding"
    second = add_documents(_settings(embedded_index, fresh), [MGM])
    assert second.embedding_left_to and f"pid {first.pid}" in second.embedding_left_to
    assert second.computed_vectors == 0 and _readiness(embedded_index).get(MGM.name) is False
    stdout, stderr = first.communicate(timeout=WAIT_S)
    assert first.returncode == 0, stderr
    report = json.loads(stdout)
    final = _readiness(embedded_index)
    assert final == {SIFANG.name: True, BESTBUY_10Q.name: True, MGM.name: True}
    assert report["computed_vectors"] > report["pending_vectors"]  # it embedded the second build's filing too


def test_a_failed_publication_of_vectors_keeps_the_words_served_and_the_vectors_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from indexer.ingest import embedding
    from indexer.ingest.build import embed_index

    def full_disk(staging: Path, target: Path) -> None:
        raise OSError(28, "No space left on device", str(staging))

    cache, index = tmp_path / "cache", tmp_path / "idx"
    monkeypatch.setattr(embedding, "publish", full_disk)
    with pytest.raises(FilingsError, match=r"vectors failed \(No space left on device.*filings-index embed"):
        build_index(_settings(index, cache, docs_folder(tmp_path / "docs", MGM)))
    assert _readiness(index) == {MGM.name: False}  # the words were published and stay served
    assert not list(tmp_path.glob(".idx.building-*"))  # the staging folder was removed
    monkeypatch.undo()
    resumed = embed_index(_settings(index, cache))
    assert resumed.computed_vectors == 0 and _readiness(index) == {MGM.name: True}  # every vector from the cache
