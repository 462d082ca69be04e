"""A build over broken and hostile files finishes, indexes what can be indexed, names every failure with its
reason, bounds each file's parse, and never leaves a partial index."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.core.errors import DocumentError
from indexer.index.reader import load_index
from indexer.index.verify import verify_index
from indexer.ingest.build import build_index
from indexer.ingest.parse import PdfParser
from indexer.ingest.settings import BuildSettings
from indexer.knowledge_base import KnowledgeBase
from tests.conftest import MGM, hits_for
from tests.hostile_docs import ODD_NAMES, make_corpus, many_text_items

pytestmark = pytest.mark.slow
RUN_SUMMARY: list[str] = []  # printed at the end of the test run (conftest)


@pytest.fixture(scope="module")
def hostile_build(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("hostile")
    corpus = make_corpus(folder / "docs")
    index = folder / "index"
    settings = BuildSettings(
        index_dir=index,
        docs_dir=folder / "docs",
        embedder="none",
        progress=False,
        cache_dir=cache_dir,
        passwords={"locked-with-password.pdf": "s3cret"},
        parse_timeout=120,
    )
    return corpus, build_index(settings), index


def test_every_failure_is_named_and_the_rest_is_indexed(hostile_build, cache_dir: Path) -> None:  # type: ignore[no-untyped-def]
    corpus, report, index_dir = hostile_build
    reasons = {f.document: f.reason for f in report.failures}
    assert reasons["zero.pdf"].startswith("is empty")
    assert reasons["not-a-pdf.pdf"].startswith("is not a PDF")
    assert "damaged or truncated" in reasons["truncated.pdf"]
    assert "encrypted" in reasons["locked-no-password.pdf"] and "password" in reasons["locked-no-password.pdf"]
    assert report.published and set(reasons) | {m.document for m in read_docs(index_dir)} >= set(corpus) - {
        "bomb-page-tree.pdf"
    }
    index = load_index(index_dir, cache_dir)
    docs = index.documents
    assert docs["locked-with-password.pdf"].pages == 4  # opened with its own password
    assert docs["long.pdf"].pages == 2000 and len(docs["long.pdf"].pages_without_text) == 2000
    assert docs["items-100k.pdf"].pages == 1
    assert docs["mixed-scan-and-text.pdf"].pages_unreadable == [1]
    for name in ODD_NAMES:  # awkward names are just names
        assert docs[name].company == "高测股份"
        assert hits_for(KnowledgeBase(index), "金刚线", top_k=1, documents=name.replace("[", "[[]").replace("*", "[*]"))
    assert verify_index(index_dir, cache_dir).ok  # never a partial index
    RUN_SUMMARY.append(f"hostile documents tried: {len(corpus)}; indexed {len(docs)}, refused {len(reasons)}")


def read_docs(index_dir: Path):  # type: ignore[no-untyped-def]
    from indexer.index.store import read_manifest

    return read_manifest(index_dir).documents


def test_the_page_tree_bomb_is_refused_or_read_as_what_it_holds(hostile_build) -> None:  # type: ignore[no-untyped-def]
    _, report, index_dir = hostile_build
    reasons = {f.document: f.reason for f in report.failures}
    docs = {m.document: m for m in read_docs(index_dir)}
    assert ("bomb-page-tree.pdf" in reasons) != ("bomb-page-tree.pdf" in docs)
    if "bomb-page-tree.pdf" in docs:
        assert docs["bomb-page-tree.pdf"].pages <= 5000


def test_a_parse_past_its_deadline_is_stopped(tmp_path: Path) -> None:
    slow = tmp_path / "items.pdf"
    slow.write_bytes(many_text_items(100_000))
    with PdfParser(timeout=0.01) as parser, pytest.raises(DocumentError, match=r"longer than 0\.01s"):
        parser.parse(slow)


def test_a_file_over_the_page_limit_is_refused(tmp_path: Path) -> None:
    from tests.hostile_docs import blank_pages

    with blank_pages(30) as document:
        document.save(tmp_path / "thirty.pdf")
    with PdfParser(max_pages=20) as parser, pytest.raises(DocumentError, match="more than the limit of 20"):
        parser.parse(tmp_path / "thirty.pdf")


def test_a_parse_over_its_memory_limit_is_stopped_and_the_next_file_parses(tmp_path: Path) -> None:
    heavy = tmp_path / "items.pdf"
    heavy.write_bytes(many_text_items(100_000))  # its worker holds ~450 MB while parsing
    with PdfParser(timeout=120, max_memory_mb=150) as parser:
        with pytest.raises(DocumentError, match="needed more than 150 MB of memory"):
            parser.parse(heavy)
        assert parser.memory.kills == 1
        pages = parser.parse(MGM)  # a fresh worker takes the next file
        assert len(pages) == 15 and "MGM" in pages[0].text
        assert parser.memory.peak_mb > 150  # what the heavy parse held when it was stopped
