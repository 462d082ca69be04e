from __future__ import annotations

import os
from pathlib import Path

import pytest

from indexer.build import build_index
from indexer.reader import LoadedIndex, load_index
from indexer.settings import BuildSettings

ROOT = Path(__file__).resolve().parent.parent
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


@pytest.fixture(scope="session")
def samples_index_dir(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> Path:
    """The four committed sample filings, indexed with the default embedder (built once per test run)."""
    index_dir = tmp_path_factory.mktemp("idx") / "samples"
    report = build_index(BuildSettings(docs_dir=SAMPLES, index_dir=index_dir, progress=False, cache_dir=cache_dir))
    assert report.published and not report.failures
    return index_dir


@pytest.fixture(scope="session")
def samples_index(samples_index_dir: Path, cache_dir: Path) -> LoadedIndex:
    return load_index(samples_index_dir, cache_dir)
