from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pdfplumber
import pytest

from indexer.core.models import Box
from indexer.core.recipe import DEFAULT_RECIPE, Recipe
from indexer.index.embed import DEFAULT_EMBEDDER, HASHING
from indexer.index.reader import LoadedIndex, load_index
from indexer.ingest.build import build_index
from indexer.ingest.settings import BuildSettings
from indexer.knowledge_base import KnowledgeBase
from indexer.search.request import SearchRequest
from indexer.search.retrieve import Hit

ROOT = Path(__file__).resolve().parent.parent
# The project's read-only shared material (recorded EDGAR responses, corpora), beside the project folder.
SHARED = Path(os.environ.get("FILINGS_SHARED_DIR") or ROOT.parent / "shared")
SAMPLES = ROOT / "data" / "samples"
BESTBUY_10Q = SAMPLES / "BESTBUY_2024Q2_10Q.pdf"
MGM = SAMPLES / "MGMRESORTS_2022Q4_EARNINGS.pdf"
SIFANG = SAMPLES / "finglm_603339_四方科技_2019_年度报告_p1-12.pdf"
BROKER = SAMPLES / "mineru_research_report_688556_高测股份_德邦证券_2022-07-19.pdf"


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cache")
    os.environ["FILINGS_CACHE_DIR"] = str(path)
    return path


def _samples_index(index_dir: Path, cache_dir: Path, embedder: str) -> Path:
    report = build_index(
        BuildSettings(docs_dir=SAMPLES, index_dir=index_dir, embedder=embedder, progress=False, cache_dir=cache_dir)
    )
    assert report.published and not report.failures
    return index_dir


@pytest.fixture(scope="session")
def samples_index_dir(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> Path:
    """The four committed sample filings, indexed with the ``hashing`` test embedder (built once per test run, in
    seconds): the chunks, pages, BM25 and metadata of any build, and vectors that go through every dense path (the
    manifest's spec, the vector cache, FAISS, the query side rebuilt from the manifest, fusion) but rank by shared
    words, not meaning. A test about embedding, or whose assertions need real semantic similarity, takes
    ``e5_samples_index_dir``."""
    return _samples_index(tmp_path_factory.mktemp("idx") / "samples", cache_dir, HASHING)


@pytest.fixture(scope="session")
def samples_index(samples_index_dir: Path, cache_dir: Path) -> LoadedIndex:
    """The samples' index as its stages see it (storage, chunks, tokenizer): for tests of the index itself."""
    return load_index(samples_index_dir, cache_dir)


@pytest.fixture(scope="session")
def samples_kb(samples_index: LoadedIndex, cache_dir: Path) -> KnowledgeBase:
    """The samples' index behind the façade every caller uses (the same loaded version as ``samples_index``)."""
    return KnowledgeBase(samples_index, cache_dir)


@pytest.fixture(scope="session")
def e5_samples_index_dir(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> Path:
    """The samples embedded with the product's default, multilingual-e5-small on the onnx engine (about half a
    minute on 2 cores, once per run; the session's vector cache then holds its vectors for other builds of them)."""
    return _samples_index(tmp_path_factory.mktemp("idx") / "samples-e5", cache_dir, DEFAULT_EMBEDDER)


@pytest.fixture(scope="session")
def e5_samples_index(e5_samples_index_dir: Path, cache_dir: Path) -> LoadedIndex:
    return load_index(e5_samples_index_dir, cache_dir)


@pytest.fixture(scope="session")
def e5_samples_kb(e5_samples_index: LoadedIndex, cache_dir: Path) -> KnowledgeBase:
    """The real-embedder index behind the façade: for searches whose assertions rest on what the model ranks."""
    return KnowledgeBase(e5_samples_index, cache_dir)


def hits_for(kb: KnowledgeBase, query: str, recipe: Recipe = DEFAULT_RECIPE, **arguments: Any) -> list[Hit]:
    """The hits of a search with search_reports' arguments (validated as the tool validates them)."""
    return kb.search(SearchRequest(query=query, **arguments), recipe).hits


def docs_folder(folder: Path, *pdfs: Path) -> Path:
    """A folder (created if needed) holding copies of the given PDFs, to build an index from."""
    folder.mkdir(parents=True, exist_ok=True)
    for pdf in pdfs:
        shutil.copy(pdf, folder / pdf.name)
    return folder


def words_only_kb(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path, *pdfs: Path) -> KnowledgeBase:
    """A words-only index of ``pdfs`` (real filings cut to a few pages), built once per module that asks for it."""
    docs = docs_folder(tmp_path_factory.mktemp("docs"), *pdfs)
    index = tmp_path_factory.mktemp("index") / "index"
    build_index(BuildSettings(docs_dir=docs, index_dir=index, embedder="none", progress=False, cache_dir=cache_dir))
    return KnowledgeBase.open(index, cache_dir, with_embedder=False)


def kill_when(process: subprocess.Popen[Any], caught: Callable[[], bool], what: str, wait_s: float = 240) -> None:
    """``kill -9`` ``process`` as soon as ``caught()`` holds; fails if it ended first (the moment was missed)."""
    try:
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline and process.poll() is None and not caught():
            time.sleep(0.1)
        assert process.poll() is None, f"the build ended before it was caught {what}"
        process.send_signal(signal.SIGKILL)
    finally:
        process.kill()
        process.wait()


def text_under(pdf: Path, page: int, boxes: list[Box], level: str = "words") -> str:
    """pdfplumber's words (or characters) whose centres lie inside the boxes, box by box, left to right.

    An independent second extractor: what a reader would see inside the boxes we return.
    """
    with pdfplumber.open(pdf) as document:
        pdf_page = document.pages[page - 1]
        items = pdf_page.extract_words() if level == "words" else pdf_page.chars
    out = []
    for box in boxes:
        inside = [
            item
            for item in items
            if box.x0 - 1 <= (item["x0"] + item["x1"]) / 2 <= box.x1 + 1
            and box.top - 1 <= (item["top"] + item["bottom"]) / 2 <= box.bottom + 1
        ]
        out.append("".join(item["text"] for item in sorted(inside, key=lambda item: item["x0"])))
    return "".join(out)


_WORKERS_SUMMARY: list[str] = []  # with pytest-xdist: the lines each worker's suites reported, gathered here


def _run_summary() -> list[str]:
    return [
        line
        for name, module in sorted(sys.modules.items())
        if name.startswith(("tests.", "test_")) or ".test_" in name
        for line in getattr(module, "RUN_SUMMARY", [])
    ]


# What `make test-fast` leaves out, for the edit–test loop (`make test` runs it all): tests that load the real model,
# and the files whose tests start a server in its own process, drive a real MCP client, Milvus, Ray or a browser.
_REAL_MODEL = frozenset({"e5_samples_index_dir", "e5_samples_index", "e5_samples_kb"})
_OUTSIDE_FILES = frozenset({
    "test_clients.py", "test_evidence_app.py", "test_http_transport.py", "test_server_e2e.py", "test_protocol.py",
    "test_milvus.py", "test_milvus_attacks.py", "test_two_phase.py", "test_cli.py", "test_onnx_embedder.py",
    "test_docs.py", "test_attacks.py", "test_attacks_fourth.py", "test_index_files_attacks.py", "test_updates.py",
    # builds killed or run in a process of their own, OCR and render workers, HTTP servers on real sockets
    "test_vector_cache.py", "test_html.py", "test_build_and_store.py", "test_page_image.py", "test_render_budget.py",
    "test_scanned.py", "test_http_attacks.py", "test_http_limits.py", "test_xbrl.py", "test_verify.py",
})  # fmt: skip


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in _OUTSIDE_FILES or _REAL_MODEL & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.outside)


def pytest_sessionfinish(session: pytest.Session) -> None:
    output = getattr(session.config, "workeroutput", None)  # a pytest-xdist worker: hand the lines to the controller
    if output is not None:
        output["run_summary"] = _run_summary()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    _WORKERS_SUMMARY.extend(getattr(node, "workeroutput", {}).get("run_summary", []))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Counts the hostile suites report (cases tried, indexed, refused): printed with every run."""
    for line in _run_summary() + _WORKERS_SUMMARY:
        terminalreporter.write_line(line)


def call_tools(index_dir: Path, cache_dir: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Each (tool, arguments) called in order through an in-memory MCP client of the server over ``index_dir``."""
    from fastmcp import Client

    from mcp_server.loader import IndexLoader
    from mcp_server.server import build_server
    from mcp_server.settings import ServerSettings

    server = build_server(
        ServerSettings(index_dir=index_dir, cache_dir=cache_dir), IndexLoader(index_dir, cache_dir, 120)
    )

    async def run() -> list[Any]:
        async with Client(server) as client:
            return [await client.call_tool(name, arguments, raise_on_error=False) for name, arguments in calls]

    return asyncio.run(run())
