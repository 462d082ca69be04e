"""The wide-corpus benchmark's own reading of its inputs (bench/wide.py): the gold it scores against, and the files it
skips with a line instead of failing. The corpus itself stays outside the project; the list and the gold do not."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import wide  # noqa: E402  (bench/ is a folder of scripts, not a package)

from indexer.core.models import DocumentMeta  # noqa: E402


@pytest.fixture(scope="module")
def gold() -> dict[str, dict[str, object]]:
    if not wide.FILES.is_file():
        pytest.skip(f"the wide corpus list is not at {wide.FILES}")
    return {str(row["file"]): row for row in wide.load_gold(wide.FILES)}


def test_every_listed_filing_has_a_company_to_score_against(gold: dict[str, dict[str, object]]) -> None:
    assert len(gold) == 164
    assert all(row["company"] for row in gold.values())  # the 26 the corpus leaves empty, read from the pages


def test_the_lists_name_counts_only_where_the_pages_show_the_same_company(gold: dict[str, dict[str, object]]) -> None:
    caption = gold["erc_608c5097.pdf"]  # the list names a building pictured on the contents page
    assert caption["companies"] == ["Billington Holdings Plc"]
    ticker = gold["erc_9d7a7244.pdf"]  # the list names the ticker the report prints
    assert ticker["companies"] == ["Yellow Pages Limited", "TSX_Y"]
    row = gold["erc_faf8d7d7.pdf"]
    meta = DocumentMeta(document="erc_faf8d7d7.pdf", sha256="0" * 64, pages=1, company="eMetals Limited", year=2022)
    scored = wide.identity(meta, row)
    assert scored["company_right"] and scored["year_right"] and scored["gold_year"] == 2022
    wrong = wide.identity(meta.model_copy(update={"company": "Cicero International Pte Ltd"}), row)
    assert wrong["company_right"] is False


def test_a_missing_or_unreadable_file_is_skipped_with_a_line(tmp_path: Path) -> None:
    (tmp_path / "a.pdf").write_bytes(b"%PDF-1.4\n")
    (tmp_path / "b.pdf").write_text("<html>not a PDF</html>", encoding="utf-8")
    rows: list[dict[str, object]] = [
        {"file": name, "source_repo": "owner/name"} for name in ("a.pdf", "b.pdf", "c.pdf")
    ]
    kept, skipped = wide.usable(tmp_path, rows)
    assert [row["file"] for row in kept] == ["a.pdf"]
    assert skipped == ["b.pdf: not a PDF", f"c.pdf: missing from {tmp_path} (take it from owner/name)"]
