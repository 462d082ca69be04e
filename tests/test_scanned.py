"""Scanned pages: an unreadable text layer is detected and kept out of search; --ocr reads it (local Tesseract)."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.index.reader import load_index
from indexer.ingest.build import build_index
from indexer.ingest.parse import PdfParser, find_tessdata
from indexer.ingest.settings import BuildSettings
from indexer.knowledge_base import KnowledgeBase
from indexer.requests import PageRequest
from tests.conftest import ROOT, SIFANG, docs_folder, hits_for

SCANNED = ROOT / "tests" / "pdfs" / "scanned_tianjian_letter_p1-2.pdf"


def _tesseract_ready() -> bool:
    try:
        find_tessdata(None)
    except Exception:
        return False
    return True


def _build(tmp_path: Path, cache_dir: Path, ocr: bool) -> Path:
    docs = docs_folder(tmp_path / "docs", SCANNED, SIFANG)
    index = tmp_path / ("ocr" if ocr else "plain")
    settings = BuildSettings(
        index_dir=index, docs_dir=docs, embedder="none", ocr=ocr, progress=False, cache_dir=cache_dir
    )
    build_index(settings)
    return index


def test_an_old_hidden_ocr_layer_is_detected_and_not_indexed(tmp_path: Path, cache_dir: Path) -> None:
    pages = PdfParser().parse(SCANNED)
    assert [(p.has_text, p.unreadable, p.ocr) for p in pages] == [(True, True, False)] * 2
    assert not any(p.unreadable for p in PdfParser().parse(SIFANG))  # a born-digital report is readable
    index = load_index(_build(tmp_path, cache_dir, ocr=False), cache_dir)
    kb = KnowledgeBase(index)
    doc = next(d for d in kb.list_documents().documents if d.document == SCANNED.name)
    assert doc.pages_unreadable == [1, 2] and doc.pages_ocr == []
    assert not [c for c in index.chunks if c.document == SCANNED.name]  # noise stays out of search
    page = kb.get_page(PageRequest(document=SCANNED.name, page=1))
    assert page.unreadable and not page.ocr


@pytest.mark.skipif(not _tesseract_ready(), reason="Tesseract language data (chi_sim, eng) not installed")
def test_ocr_reads_the_scanned_pages_with_word_boxes(tmp_path: Path, cache_dir: Path) -> None:
    index = load_index(_build(tmp_path, cache_dir, ocr=True), cache_dir)
    kb = KnowledgeBase(index)
    doc = next(d for d in kb.list_documents().documents if d.document == SCANNED.name)
    assert doc.pages_ocr == [1, 2] and doc.pages_unreadable == []
    page = kb.get_page(PageRequest(document=SCANNED.name, page=1))
    assert page.ocr and "Pan-China" in page.text and "菲" in page.text
    assert all(0 <= ln.box.x0 < ln.box.x1 <= page.width and 0 <= ln.box.top < ln.box.bottom <= page.height
               for ln in page.lines)  # fmt: skip
    hits = hits_for(kb, "天健 问询函 菲达环保", top_k=3, documents=SCANNED.name)
    assert hits and hits[0].document == SCANNED.name
    # the born-digital report beside it is not OCR'd
    assert next(d for d in kb.list_documents().documents if d.document == SIFANG.name).pages_ocr == []


GLYPH_NUMBERED = ROOT / "tests" / "pdfs" / "rapid7_2022_10k_cover.pdf"


def test_a_text_layer_of_glyph_numbers_on_printable_characters_is_unreadable(tmp_path: Path, cache_dir: Path) -> None:
    # The cover's fonts have no Unicode map: "registrant" comes out as "G:<>HIG6CI", "the" as "I=:".
    (page,) = PdfParser().parse(GLYPH_NUMBERED)
    assert page.has_text and page.unreadable and "G:<>HIG6CI" in " ".join(line.text for line in page.lines)
    docs = docs_folder(tmp_path / "docs", GLYPH_NUMBERED)
    index = tmp_path / "plain"
    build_index(BuildSettings(index_dir=index, docs_dir=docs, embedder="none", progress=False, cache_dir=cache_dir))
    kb = KnowledgeBase(load_index(index, cache_dir))
    (doc,) = kb.list_documents().documents
    assert doc.pages_unreadable == [1] and doc.company is None  # no name read from the noise


@pytest.mark.skipif(not _tesseract_ready(), reason="Tesseract language data (chi_sim, eng) not installed")
def test_ocr_reads_a_glyph_numbered_cover(tmp_path: Path, cache_dir: Path) -> None:
    docs = docs_folder(tmp_path / "docs", GLYPH_NUMBERED)
    index = tmp_path / "ocr"
    settings = BuildSettings(
        index_dir=index, docs_dir=docs, embedder="none", ocr=True, progress=False, cache_dir=cache_dir
    )
    build_index(settings)
    kb = KnowledgeBase(load_index(index, cache_dir))
    (doc,) = kb.list_documents().documents
    assert doc.pages_ocr == [1] and doc.form == "10-K"
    page = kb.get_page(PageRequest(document=GLYPH_NUMBERED.name, page=1))
    assert "Exact name of registrant" in page.text and "Rapid7" in page.text.replace("RAPID7", "Rapid7")
