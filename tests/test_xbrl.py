"""Inline XBRL facts of a recorded EDGAR HTML filing (NVIDIA's 10-Q for the quarter ended 27 July 2025, from
../shared/corpus/edgar) matched to the statement rows printed from its converted PDF."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from indexer.evidence.xbrl import FACTS_VERSION, attach, facts_of, read_facts
from indexer.ingest.build import build_index
from indexer.ingest.settings import BuildSettings
from indexer.knowledge_base import KnowledgeBase
from tests.conftest import SHARED, text_under

NVDA_10Q = SHARED / "corpus" / "edgar" / "Archives" / "edgar" / "data" / "1045810" / "000104581025000209"
NVDA_10Q = NVDA_10Q / "nvda-20250727.htm"
QUARTER = "Three Months Ended Jul 27, 2025"


@pytest.fixture(scope="module")
def nvda(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> KnowledgeBase:
    docs = tmp_path_factory.mktemp("edgar-html")
    shutil.copy(NVDA_10Q, docs / NVDA_10Q.name)
    index = docs.parent / f"{docs.name}-index"
    settings = BuildSettings(docs_dir=docs, index_dir=index, progress=False, cache_dir=cache_dir, embedder="none")
    assert build_index(settings).published
    return KnowledgeBase.open(index, cache_dir, with_embedder=False)


def test_printed_rows_carry_the_concept_the_filer_tagged(nvda: KnowledgeBase) -> None:
    rows = nvda.financial_rows(NVDA_10Q.name)
    revenue = next(r for r in rows if r.concept == "revenue" and r.period.endswith(QUARTER))
    assert (revenue.page, revenue.value_printed, revenue.value) == (5, "$46,743", "46743000000")
    assert (revenue.xbrl_concept, revenue.xbrl_value, revenue.xbrl_agrees) == (
        "us-gaap:Revenues", "46743000000", True,
    )  # fmt: skip
    assert text_under(nvda.pdf(NVDA_10Q.name), 5, [revenue.boxes[-1]]).endswith("46,743")
    assets = next(r for r in rows if r.concept == "total_assets" and r.period == "Jul 27, 2025")
    assert (assets.xbrl_concept, assets.value, assets.xbrl_agrees) == ("us-gaap:Assets", "140740000000", True)
    # the cash flow statement's "(In millions)" and "Six Months Ended" are printed on the page before its table
    operating = next(r for r in rows if r.concept == "operating_cash_flow" and r.period_end == "2025-07-27")
    assert (operating.months, operating.value, operating.xbrl_agrees) == (6, "42779000000", True)
    agreed = [r for r in rows if r.xbrl_agrees]
    assert len(agreed) >= 0.9 * len(rows) and not any(r.xbrl_agrees is False for r in rows)


def test_a_tagged_value_that_differs_from_the_printed_one_is_flagged(nvda: KnowledgeBase) -> None:
    rows = nvda.financial_rows(NVDA_10Q.name)
    facts = read_facts(NVDA_10Q)
    quarter = next(r for r in rows if r.concept == "revenue" and r.period.endswith(QUARTER))
    wrong = [
        f.model_copy(update={"value": "46700000000"})
        if f.concept == "us-gaap:Revenues" and f.end == "2025-07-27" and f.months == 3 and not f.dimensional
        else f
        for f in facts
    ]
    flagged = next(r for r in attach(rows, wrong) if r.label == quarter.label and r.period == quarter.period)
    assert (flagged.value, flagged.xbrl_value, flagged.xbrl_agrees) == ("46743000000", "46700000000", False)


def test_facts_are_read_once_within_a_deadline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert facts_of(NVDA_10Q, "0" * 64, tmp_path, timeout=0.01) == []  # stopped at the deadline: no facts, no crash
    facts = facts_of(NVDA_10Q, "1" * 64, tmp_path)
    assert len(facts) > 500 and any(f.concept == "us-gaap:Revenues" for f in facts)

    def no_worker(*args: object, **kwargs: object) -> None:
        raise AssertionError("the worker ran again")

    monkeypatch.setattr(subprocess, "run", no_worker)
    assert facts_of(NVDA_10Q, "1" * 64, tmp_path) == facts  # from the cache


def test_a_truncated_cache_file_is_a_miss(tmp_path: Path) -> None:
    """A cache file cut short (a full disk, a killed write) once broke get_financials on its filing for good: it is
    read again from the filing, and the cache rewritten."""
    cached = tmp_path / "xbrl" / f"{'3' * 64}.v{FACTS_VERSION}.json"
    cached.parent.mkdir(parents=True)
    cached.write_text('[{"concept": "us-gaap:Reven', encoding="utf-8")
    facts = facts_of(NVDA_10Q, "3" * 64, tmp_path)
    assert len(facts) > 500 and json.loads(cached.read_text(encoding="utf-8"))
