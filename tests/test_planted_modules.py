"""Code left in the folder the server or a build was started in never runs in a worker (attack pass 3, item 3).

Each test plants a module named like a library a worker imports (``weasyprint``, ``ixbrlparse``, ``liteparse``)
in the current folder; if a worker imported it, it would leave a marker file. The workers still do their job.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.evidence.xbrl import facts_of
from indexer.ingest.convert import convert_in_worker
from indexer.ingest.memory_guard import MemoryGuard
from indexer.ingest.parse import PdfParser
from tests.conftest import MGM, ROOT

META_10K = ROOT / "tests" / "html" / "meta-20251219.htm"


def _plant(folder: Path, module: str) -> Path:
    marker = folder / f"{module}.ran"
    (folder / f"{module}.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('planted code ran')\nraise SystemExit(0)\n",
        encoding="utf-8",
    )
    return marker


def test_the_html_conversion_worker_does_not_import_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = _plant(tmp_path, "weasyprint")
    monkeypatch.chdir(tmp_path)
    pages = convert_in_worker(META_10K, tmp_path / "out.pdf", 120, MemoryGuard(None))
    assert pages >= 1 and not marker.exists()


def test_the_xbrl_worker_does_not_import_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = _plant(tmp_path, "ixbrlparse")
    monkeypatch.chdir(tmp_path)
    facts_of(META_10K, "2" * 64, None)
    assert not marker.exists()


def test_the_pdf_parsing_workers_do_not_import_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = _plant(tmp_path, "liteparse")
    monkeypatch.chdir(tmp_path)
    with PdfParser(timeout=120) as parser:  # a timeout parses in LiteParse's pool of worker processes
        pages = parser.parse(MGM)
    assert pages and pages[0].lines and not marker.exists()
