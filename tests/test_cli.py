"""`filings-index` end to end through a subprocess: build (with a bad file), list, search; exit statuses."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

from indexer.knowledge_base import KnowledgeBase
from tests.conftest import BROKER, ROOT, hits_for


def _cli(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "indexer", "--cache-dir", str(cache), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )


def test_build_list_search_and_exit_statuses(tmp_path: Path, cache_dir: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(BROKER, docs / BROKER.name)
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7\n garbage")
    index = tmp_path / "idx"

    built = _cli("build", str(docs), "--index", str(index), "--embedder", "none", "--json", cache=cache_dir)
    assert built.returncode == 1, built.stderr  # one file failed, the other was indexed
    assert "DEBUG" not in built.stderr and "bm25s" not in built.stderr  # no library noise at the default level
    summary = json.loads(built.stdout)
    assert summary["documents"] == 1 and summary["pages"] == 4
    assert [f["document"] for f in summary["failed"]] == ["broken.pdf"]

    listed = _cli("list", "--index", str(index), cache=cache_dir)
    assert listed.returncode == 0 and "高测股份 · 研报 · 2022-07-19" in listed.stdout

    found = _cli("search", "目标价 评级", "--index", str(index), "--json", cache=cache_dir)
    hits = json.loads(found.stdout)
    assert found.returncode == 0 and hits and hits[0]["source"]["document"] == BROKER.name
    assert hits[0]["bboxes"] and hits[0]["source"]["page"] >= 1  # the hits as search_reports gives them

    filtered = _cli("search", "金刚线", "--index", str(index), "--form", "研报", "--year", "2022", "--broker", "德邦",
                    cache=cache_dir)  # fmt: skip
    assert filtered.returncode == 0 and "hit(s) in 1 of 1 documents" in filtered.stdout.splitlines()[0]
    assert _cli("search", "金刚线", "--index", str(index), "--form", "10-K", cache=cache_dir).returncode == 2
    regex = _cli("search", r"目标价\s*[\d.]+", "--regex", "--index", str(index), "--json", cache=cache_dir)
    assert regex.returncode == 0 and all("目标价" in h["content"] for h in json.loads(regex.stdout))
    bad = _cli("search", "x", "--index", str(index), "--top-k", "50", cache=cache_dir)
    assert bad.returncode == 2 and "--top-k: Input should be less than or equal to 20" in bad.stderr

    missing = _cli("search", "x", "--index", str(tmp_path / "nowhere"), cache=cache_dir)
    assert missing.returncode == 2 and "filings-index build" in missing.stderr

    nothing = tmp_path / "empty"
    nothing.mkdir()
    empty = _cli("build", str(nothing), "--index", str(index), cache=cache_dir)
    assert empty.returncode == 2 and "no .pdf or .htm files" in empty.stderr


def test_bm25_only_index_is_served_without_dense_search(tmp_path: Path, cache_dir: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(BROKER, docs / BROKER.name)
    assert (
        _cli("build", str(docs), "--index", str(tmp_path / "idx"), "--embedder", "none", cache=cache_dir).returncode
        == 0
    )
    kb = KnowledgeBase.open(tmp_path / "idx", cache_dir)
    assert not kb.dense_search and not kb.list_documents().dense_search
    hits = hits_for(kb, "金刚线 产能", top_k=3)
    assert hits and all(h.dense_rank is None for h in hits)
