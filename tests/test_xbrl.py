"""Inline XBRL facts of a recorded EDGAR HTML filing (NVIDIA's 10-Q for the quarter ended 27 July 2025, from
../shared/corpus/edgar) matched to the statement rows printed from its converted PDF."""

from __future__ import annotations

import json
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from indexer.evidence.xbrl import FACTS_VERSION, FactReader, attach, facts_of, read_facts
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


def _bombed(tmp_path: Path, texts: list[str]) -> Path:
    """NVIDIA's 10-Q with hidden facts of the given texts added (an inline-XBRL bomb: ``1E+999999`` is a million
    digits once expanded)."""
    facts = "".join(
        f'<ix:nonFraction unitRef="usd" contextRef="c-3" decimals="-6" name="us-gaap:Planted{i}" '
        f'format="ixt:num-dot-decimal" scale="6" id="planted-{i}">{text}</ix:nonFraction>'
        for i, text in enumerate(texts)
    )
    bombed = tmp_path / "bombed.htm"
    bombed.write_text(NVDA_10Q.read_text(encoding="utf-8").replace("<ix:hidden>", f"<ix:hidden>{facts}", 1))
    return bombed


def test_facts_no_filing_prints_are_dropped_and_the_rest_kept(tmp_path: Path) -> None:
    """450 facts of 1E+999999 once made a 450 MB cache file and a 2 MB answer; one of 1E+10000000 raised an
    overflow that cost the filing all its facts."""
    bombed = _bombed(tmp_path, ["1E+999999"] * 450 + ["1E+10000000", "-1E-999999", "9" * 5000, "12,345"])
    facts = facts_of(bombed, "4" * 64, tmp_path)
    planted = {f.concept: f.value for f in facts if f.concept.startswith("us-gaap:Planted")}
    assert planted == {"us-gaap:Planted453": "12345000000"}  # an ordinary figure still read
    assert len(facts) > 500 and any(f.concept == "us-gaap:Revenues" and f.value == "46743000000" for f in facts)
    assert max(len(f.value) for f in facts) <= 40
    cached = tmp_path / "xbrl" / f"{'4' * 64}.v{FACTS_VERSION}.json"
    assert cached.stat().st_size < 1_000_000


def test_one_worker_per_filing_however_many_ask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started = []
    run = subprocess.run

    def counted(*args: object, **kwargs: object) -> object:
        started.append(args)
        return run(*args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(subprocess, "run", counted)
    reader = FactReader(tmp_path, workers=1)
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: reader.facts(NVDA_10Q, "5" * 64), range(4)))
    assert len(started) == 1 and all(answer == answers[0] for answer in answers) and len(answers[0]) > 500


def test_two_readers_of_one_cache_do_not_collide(tmp_path: Path) -> None:
    """Two knowledge bases (a server reloading, or a second process) reading one filing at once once shared one
    '.partial' file: the second rename failed and get_financials raised."""
    readers = [FactReader(tmp_path), FactReader(tmp_path)]
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda reader: reader.facts(NVDA_10Q, "6" * 64), readers))
    assert answers[0] == answers[1] and len(answers[0]) > 500
    assert [p.name for p in (tmp_path / "xbrl").iterdir()] == [f"{'6' * 64}.v{FACTS_VERSION}.json"]
