"""HTML filings: converted to PDF and indexed like any PDF (pages, boxes, quotes, rendering); EDGAR fetch → index."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from indexer.cli import main as cli_main
from indexer.index.reader import load_index
from indexer.index.store import pdf_file, source_file
from indexer.ingest.build import add_documents, build_index
from indexer.ingest.convert import _local_fetcher
from indexer.ingest.settings import BuildSettings
from indexer.knowledge_base import KnowledgeBase
from indexer.requests import PageRequest, QuoteRequest, RenderRequest
from tests.conftest import BROKER, ROOT, text_under
from tests.edgar_server import RECORDED, Faults, edgar_server

META_8K = ROOT / "tests" / "html" / "meta-20251219.htm"
QUOTE = "Dina Powell McCormick notified Meta Platforms, Inc."


def _settings(index: Path, cache: Path, docs: Path | None = None) -> BuildSettings:
    return BuildSettings(index_dir=index, docs_dir=docs, embedder="none", progress=False, cache_dir=cache)


@pytest.fixture(scope="module")
def html_index(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> Path:
    docs = tmp_path_factory.mktemp("html-docs")
    shutil.copy(META_8K, docs / META_8K.name)
    (docs / "empty.htm").write_text("", encoding="utf-8")
    index = tmp_path_factory.mktemp("html-index") / "index"
    report = build_index(_settings(index, cache_dir, docs))
    assert report.converted == 1
    assert [(f.document, f.reason) for f in report.failures] == [("empty.htm", "is empty (0 bytes); download it again")]
    return index


def test_an_html_filing_is_served_like_a_pdf(html_index: Path, cache_dir: Path) -> None:
    index = load_index(html_index, cache_dir)
    meta = index.documents[META_8K.name]
    assert meta.source_format == "html" and meta.pages == 4 and meta.form == "8-K"
    stored_pdf = pdf_file(html_index, meta)
    assert len(PdfReader(stored_pdf).pages) == 4  # the converted PDF is kept: page images match the index
    assert source_file(html_index, meta).read_bytes() == META_8K.read_bytes()  # and the original beside it
    page = KnowledgeBase(index).get_page(PageRequest(document=META_8K.name, page=3))
    assert QUOTE in " ".join(page.text.split())
    located = KnowledgeBase(index).locate_quote(QuoteRequest(document=META_8K.name, page=3, quote=QUOTE))
    assert located.verified and located.page == 3
    assert text_under(stored_pdf, 3, located.boxes).replace(" ", "") == QUOTE.replace(" ", "")
    png, info = KnowledgeBase(index).render_page(RenderRequest(document=META_8K.name, page=3, quote=QUOTE, dpi=72))
    assert png.startswith(b"\x89PNG") and info.highlighted


def test_unchanged_html_is_neither_converted_nor_parsed_again(html_index: Path, cache_dir: Path) -> None:
    report = add_documents(_settings(html_index, cache_dir), [BROKER])
    assert report.converted == 0 and report.reused_documents == 1
    index = load_index(html_index, cache_dir)
    assert set(index.documents) == {META_8K.name, BROKER.name}
    assert index.documents[META_8K.name].source_format == "html"


def test_conversion_loads_nothing_from_outside_the_filing_folder(tmp_path: Path) -> None:
    fetcher = _local_fetcher(tmp_path)
    for url in ("http://example.com/logo.png", "https://www.sec.gov/x.css", "file:///etc/passwd"):
        with pytest.raises(ValueError):
            fetcher.fetch(url)
    (tmp_path / "logo.txt").write_text("ok", encoding="utf-8")
    assert fetcher.fetch((tmp_path / "logo.txt").as_uri()).status in (None, 200)


@pytest.mark.skipif(not RECORDED.is_dir(), reason="../shared/corpus/edgar is not present")
def test_fetch_into_an_index_keeps_edgar_metadata(
    tmp_path: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FILINGS_SEC_USER_AGENT", "Filings Test tests@example.com")
    index = tmp_path / "index"
    shutil.copytree(ROOT / "tests" / "html", tmp_path / "seed")
    build_index(_settings(index, cache_dir, tmp_path / "seed"))  # an index without vectors, so the test is quick
    with edgar_server(Faults()) as base:
        args = ["--cache-dir", str(cache_dir), "fetch", "--ticker", "NVDA", "--form", "10-Q"]
        args += ["--since", "2025-08-01", "--dest", str(tmp_path / "filings"), "--index", str(index), "--json"]
        code = cli_main([*args, "--sec-www-url", base, "--sec-data-url", base, "--no-progress"])
    out = capsys.readouterr().out
    summary = json.loads(out[: out.index("\n}\n") + 2])
    assert code == 1 and len(summary["failed"]) == 1  # the recording lacks the November 10-Q: reported
    name = "NVDA_10-Q_2025-07-27_0001045810-25-000209.htm"
    loaded = load_index(index, cache_dir)
    meta = loaded.documents[name]
    assert (meta.company, meta.cik, meta.form, meta.filing_date) == ("NVIDIA CORP", "0001045810", "10-Q", "2025-08-27")
    assert meta.period == "2025-07-27" and meta.year == 2025 and meta.tickers == ["NVDA"]
    assert meta.source_format == "html" and meta.pages > 30
