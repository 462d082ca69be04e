"""What is embedded for a passage (a header naming filing and section, then the text) and the machine's vector
cache that keeps each vector between builds: a rebuild elsewhere, or after a kill, does not embed again."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from indexer.core.models import DocumentMeta
from indexer.index.embed import DEFAULT_EMBEDDER, HASHING
from indexer.index.reader import load_index
from indexer.index.store import read_manifest
from indexer.index.vector_cache import VectorCache, text_key
from indexer.ingest.build import as_the_index_was_built, build_index
from indexer.ingest.chunk import (
    OPENING_PASSAGES,
    OPENING_TOKENS,
    PLAIN_PASSAGES,
    WHOLE_PASSAGES,
    dense_text,
    embedded_text,
    opening,
)
from indexer.ingest.settings import BuildSettings
from tests.conftest import BESTBUY_10Q, MGM, SIFANG, docs_folder, kill_when


def _settings(docs: Path, index: Path, cache: Path, embedder: str = DEFAULT_EMBEDDER) -> BuildSettings:
    return BuildSettings(docs_dir=docs, index_dir=index, embedder=embedder, progress=False, cache_dir=cache)


def test_a_passage_is_embedded_under_a_header_naming_its_filing_and_section(
    e5_samples_index_dir: Path, cache_dir: Path
) -> None:
    index = load_index(e5_samples_index_dir, cache_dir)
    manifest = read_manifest(e5_samples_index_dir)
    assert manifest.embedder is not None and manifest.embedder.passage_text == WHOLE_PASSAGES
    metas = {m.document: m for m in manifest.documents}
    statement = next(c for c in index.chunks if c.document == BESTBUY_10Q.name and c.page == 4 and c.kind == "body")
    text = dense_text(statement, metas[statement.document])
    first_line = text.split("\n", 1)[0]
    assert first_line == "BEST BUY CO., INC. 10-Q FY2024. Condensed Consolidated Statements of Earnings"
    assert text.endswith(statement.text)
    annual = next(c for c in index.chunks if c.document == SIFANG.name and c.kind == "body")
    assert dense_text(annual, metas[annual.document]).startswith("四方科技 年报 2019年")
    # the stored vector is the model's vector of that text, not of the bare passage
    row = index.chunks.index(statement)
    assert index.storage.dense is not None
    stored = index.storage.dense.vectors()[int(np.flatnonzero(index.storage.dense.rows == row)[0])]
    embedder = index.embedder
    assert embedder is not None
    assert float(stored @ embedder.embed_passages([text])[0]) > 0.999
    assert float(stored @ embedder.embed_passages([statement.text])[0]) < 0.99


def test_a_build_elsewhere_takes_every_vector_from_the_cache(tmp_path: Path) -> None:
    """The cache keys a vector by embedder id and text, whatever the model: the test embedder serves."""
    cache = tmp_path / "cache"
    docs = docs_folder(tmp_path / "docs", MGM)
    first = build_index(_settings(docs, tmp_path / "a", cache, HASHING))
    assert first.embedded > 20 and first.cached_vectors == 0 and first.reused_vectors == 0
    second = build_index(_settings(docs, tmp_path / "b", cache, HASHING))  # a new folder: no previous index to reuse
    assert second.reused_vectors == 0 and second.cached_vectors == second.embedded == first.embedded
    a, b = load_index(tmp_path / "a", cache), load_index(tmp_path / "b", cache)
    assert a.storage.dense is not None and b.storage.dense is not None
    assert np.array_equal(a.storage.dense.vectors(), b.storage.dense.vectors())
    # plain passages (build --plain-passages) are other texts: embedded anew, recorded, and kept by an update
    plain = build_index(replace(_settings(docs, tmp_path / "c", cache, HASHING), passage_text=PLAIN_PASSAGES))
    assert plain.cached_vectors == 0 and plain.embedded == first.embedded
    manifest = read_manifest(tmp_path / "c")
    assert manifest.embedder is not None and manifest.embedder.passage_text == PLAIN_PASSAGES
    assert as_the_index_was_built(_settings(docs, tmp_path / "c", cache)).embedder == HASHING
    assert as_the_index_was_built(_settings(docs, tmp_path / "c", cache)).passage_text == PLAIN_PASSAGES
    c = load_index(tmp_path / "c", cache)
    assert c.storage.dense is not None and not np.allclose(c.storage.dense.vectors(), a.storage.dense.vectors())


def test_an_opening_is_embedded_within_its_token_budget_and_an_index_keeps_what_it_embeds(tmp_path: Path) -> None:
    english = "Net revenue increased 12% in fiscal 2023, driven by strong demand for services. " * 30
    chinese = "营业收入同比增长百分之十二，主要由于产品需求旺盛。" * 40

    def tokens(text: str) -> float:  # the estimate the budget is in: a CJK character 0.7, anything else 0.25
        return sum(0.7 if "\u3400" <= char <= "\u9fff" else 0.25 for char in text)

    for text in (english, chinese):
        cut = opening(text)
        assert text.startswith(cut) and tokens(cut) <= OPENING_TOKENS < tokens(text[: len(cut) + 41]), len(cut)
    assert not opening(english).endswith(" ")
    assert opening("a short passage") == "a short passage"
    meta = DocumentMeta(document="x.pdf", sha256="0" * 64, pages=1, company="ACME", form="10-K", year=2023)
    assert embedded_text(english, "Revenue", meta, OPENING_PASSAGES) == f"ACME 10-K FY2023. Revenue\n{opening(english)}"
    docs = docs_folder(tmp_path / "docs", MGM)
    build_index(replace(_settings(docs, tmp_path / "o", tmp_path / "cache", HASHING), passage_text=OPENING_PASSAGES))
    manifest = read_manifest(tmp_path / "o")
    assert manifest.embedder is not None and manifest.embedder.passage_text == OPENING_PASSAGES
    assert as_the_index_was_built(_settings(docs, tmp_path / "o", tmp_path / "cache")).passage_text == OPENING_PASSAGES


def test_unreadable_shards_are_skipped_and_computed_again(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    cache = VectorCache.open(tmp_path, "model@1", 3)
    cache.put(["k1", "k2"], np.eye(3, dtype=np.float32)[:2])
    cache.flush()
    (cache.folder / "0-broken.npz").write_bytes(b"not a numpy archive")
    np.savez(cache.folder / "1-wrong-width.npz", keys=np.array([b"k3"], dtype="S64"), vectors=np.ones((1, 5)))
    with caplog.at_level(logging.WARNING):
        again = VectorCache.open(tmp_path, "model@1", 3)
    assert len(again) == 2 and np.array_equal(again.get("k2"), [0, 1, 0]) and again.get("k3") is None
    assert sum("skipping unreadable vector cache shard" in r.message for r in caplog.records) == 2
    assert len(VectorCache.open(tmp_path, "other-model@1", 3)) == 0  # one folder per embedder
    assert text_key("a") != text_key("a ")


def test_a_build_killed_while_embedding_keeps_what_it_embedded(tmp_path: Path) -> None:
    """kill -9 once the first batches are in the cache; the next build embeds only the rest."""
    cache = tmp_path / "cache"
    docs = docs_folder(tmp_path / "docs", BESTBUY_10Q)
    command = [sys.executable, "-m", "indexer", "build", str(docs), "--index", str(tmp_path / "idx"), "--no-progress",
               "--batch-size", "8"]  # fmt: skip  # several batches, so the kill lands between two
    env = {**os.environ, "FILINGS_CACHE_DIR": str(cache)}
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kill_when(process, lambda: bool(list(cache.glob("vectors/*/*.npz"))), "with a batch cached")
    lexical = read_manifest(tmp_path / "idx")  # the words were published before the embedding began
    assert [meta.semantic_ready for meta in lexical.documents] == [False] and lexical.embedded_chunks == 0
    report = build_index(_settings(docs, tmp_path / "idx", cache))
    assert 0 < report.cached_vectors < report.embedded
    assert report.computed_vectors > 0
    assert report.cached_vectors + report.computed_vectors <= report.embedded  # nothing embedded twice


def test_a_text_repeated_verbatim_is_embedded_once_and_fills_every_chunk_that_prints_it(tmp_path: Path) -> None:
    from indexer.core.models import StoredChunk
    from indexer.ingest.vectors import plan_vectors

    def chunk(n: int, text: str, kind: str = "body", document: str = "a.pdf") -> StoredChunk:
        return StoredChunk(chunk_id=f"c{n}", document=document, page=1, page_width=600, page_height=800, text=text,
                           kind=kind, content_hash=str(n))  # fmt: skip

    chunks = [chunk(0, "same paragraph"), chunk(1, "another one, longer"), chunk(2, "same paragraph"),
              chunk(3, "same paragraph", "boilerplate"), chunk(4, "short"),
              chunk(5, "b's", document="b.pdf")]  # fmt: skip
    cache = VectorCache.open(tmp_path, "test-embedder", 4)
    cache.put([text_key("short")], np.ones((1, 4), dtype=np.float32))
    plan = plan_vectors(chunks, {}, 4, PLAIN_PASSAGES, {}, cache)
    assert plan.rows.tolist() == [0, 1, 2, 4, 5] and plan.cached == 1  # boilerplate is not embedded
    todo = plan.pending()
    # once each; document by document (b's shorter text waits for a's), shortest first within one
    assert [plan.texts[pos] for pos in todo] == ["same paragraph", "another one, longer", "b's"]
    assert plan.ready_documents(["a.pdf", "b.pdf", "c.pdf"]) == {"c.pdf"}
    plan.fill(todo[:2], np.arange(8, dtype=np.float32).reshape(2, 4))
    assert np.array_equal(plan.vectors[0], plan.vectors[2]) and plan.ready_documents(["a.pdf", "b.pdf"]) == {"a.pdf"}
    plan.fill(todo[2:], np.ones((1, 4), dtype=np.float32))
    assert plan.known.all() and plan.dense().size == 5


def test_a_damaged_shard_is_a_miss_not_a_crash_and_a_fifo_is_never_opened(tmp_path: Path) -> None:
    """Shards with integer or non-ASCII keys once crashed build and embed, and a FIFO named *.npz hung them: each is
    skipped (logged) and the good shard still counts."""
    cache = VectorCache.open(tmp_path, "model@1", 3)
    cache.put([text_key("kept")], np.ones((1, 3), dtype=np.float32))
    cache.flush()
    folder = cache.folder
    np.savez(folder / "integers.npz", keys=np.array([1, 2]), vectors=np.ones((2, 3), dtype=np.float32))
    np.savez(folder / "latin.npz", keys=np.array([b"\xe9" * 64]), vectors=np.ones((1, 3), dtype=np.float32))
    os.mkfifo(folder / "pipe.npz")
    again = VectorCache.open(tmp_path, "model@1", 3)
    assert len(again) == 1 and again.get(text_key("kept")) is not None


def test_a_shard_left_half_written_by_a_killed_process_is_removed_once_stale(tmp_path: Path) -> None:
    cache = VectorCache.open(tmp_path, "e5-test", dim=2)
    cache.put([text_key("a")], np.ones((1, 2), dtype=np.float32))
    cache.flush()
    folder = cache.folder
    stale, fresh = folder / ".1-1.tmp.npz", folder / ".2-2.tmp.npz"
    for partial in (stale, fresh):
        np.savez(partial, keys=np.array([text_key("b").encode()], dtype="S64"), vectors=np.ones((1, 2)))
    os.utime(stale, (1, 1))  # written long ago by a process that died before renaming it
    reopened = VectorCache.open(tmp_path, "e5-test", dim=2)
    assert reopened.get(text_key("a")) is not None and reopened.get(text_key("b")) is None  # never read
    assert not stale.exists() and fresh.exists()  # a young one may still be being written: left alone
