"""A hit names the page number the filing prints beside the PDF page (issue 43): "p.4, printed 3" in an annual
report whose unnumbered cover puts every folio one behind; agents cite the PDF page, readers look for the printed
one. The folios are read at index time (core/folios.py) and kept in the document's metadata as a few runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.core.folios import folio_runs, printed_page, read_folios
from indexer.knowledge_base import KnowledgeBase
from indexer.search.request import SearchRequest
from mcp_server.renderings import answer_parts
from tests.conftest import words_only_kb

GALILEO = Path(__file__).parent / "pdfs" / "galileo_resources_2022_p1-8.pdf"  # cover unnumbered: PDF page = printed + 1


@pytest.fixture(scope="module")
def galileo(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> KnowledgeBase:
    return words_only_kb(tmp_path_factory, cache_dir, GALILEO)


def test_the_runs_of_folios_are_kept_with_the_document(galileo: KnowledgeBase) -> None:
    (meta,) = galileo.documents()
    pages = [galileo.page(meta.document, n).lines for n in range(1, meta.pages + 1)]
    assert meta.folios == folio_runs(read_folios(pages)) and meta.folios  # what the pages print, read at build
    assert all(offset == 1 for _, _, offset in meta.folios)
    assert printed_page(meta.folios, 4) == 3 and printed_page(meta.folios, 1) is None  # the cover prints none


def test_a_hit_names_the_printed_page_where_it_differs(galileo: KnowledgeBase) -> None:
    result = galileo.search_reports(SearchRequest(query="directors officers advisers", top_k=5))
    hits = result.hits
    assert hits and all(h.source.printed_page in (None, h.page - 1) for h in hits)
    numbered = next(h for h in hits if h.source.printed_page is not None)
    text, structured = answer_parts(result, "compact")
    rank = hits.index(numbered) + 1
    assert f"[{rank}] {numbered.document} p.{numbered.page}, printed {numbered.page - 1}" in text
    assert structured["hits"][rank - 1]["printed"] == numbered.page - 1
