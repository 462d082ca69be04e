"""`filings-index verify` and a damaged index: what is wrong is named; a server keeps the version it has."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.cli import main as cli_main
from indexer.core.errors import IndexLoadError
from indexer.index.reader import load_index
from indexer.index.verify import verify_index
from indexer.ingest.build import build_index
from indexer.ingest.settings import BuildSettings
from mcp_server.loader import IndexLoader
from tests.conftest import BROKER, SIFANG, docs_folder


@pytest.fixture
def index_dir(tmp_path: Path, cache_dir: Path) -> Path:
    docs = docs_folder(tmp_path / "docs", SIFANG, BROKER)
    index = tmp_path / "index"
    build_index(BuildSettings(index_dir=index, docs_dir=docs, embedder="none", progress=False, cache_dir=cache_dir))
    return index


def test_a_fresh_index_verifies(index_dir: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = verify_index(index_dir, cache_dir)
    assert report.ok and report.files_checked >= 8  # chunks, pages + offsets, pdfs, both BM25 folders
    assert cli_main(["--cache-dir", str(cache_dir), "verify", "--index", str(index_dir)]) == 0
    assert "0 problem(s)" in capsys.readouterr().out


def test_a_changed_byte_and_a_missing_file_are_named(index_dir: Path, cache_dir: Path) -> None:
    pdf = next((index_dir / "pdfs").iterdir())
    data = bytearray(pdf.read_bytes())
    data[len(data) // 2] ^= 0xFF
    pdf.unlink()  # a hard link to the source: replace it rather than change the user's file
    pdf.write_bytes(bytes(data))
    pages = next((index_dir / "pages").glob("*.jsonl"))
    pages.unlink()
    report = verify_index(index_dir, cache_dir)
    problems = {f.path: f.problem for f in report.problems}
    assert problems[f"pdfs/{pdf.name}"].startswith("changed since the build")
    assert problems[f"pages/{pages.name}"].startswith("missing")
    assert not report.ok


def test_a_truncated_chunk_file_is_refused_and_a_server_keeps_its_version(index_dir: Path, cache_dir: Path) -> None:
    loader = IndexLoader(index_dir, cache_dir, timeout=60)
    serving = loader.get()
    chunks = index_dir / "chunk_table" / "text.npy"
    data = chunks.read_bytes()
    (index_dir / "manifest.json").touch()  # looks like a new version to the server
    chunks.write_bytes(data[: len(data) // 2])
    with pytest.raises(IndexLoadError, match="rebuild"):
        load_index(index_dir, cache_dir)
    assert loader.get() is serving  # the damaged version is not loaded; the previous one keeps serving
    assert any(f.path == "chunk_table/text.npy" for f in verify_index(index_dir, cache_dir).problems)


def test_a_full_disk_during_a_build_leaves_the_previous_index(index_dir: Path, cache_dir: Path) -> None:
    """The build runs with a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored): its first large write fails the way
    a full disk does. The error says so, no staging folder is left, the previous index is intact."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    # the limit is set by the child itself: a preexec_fn runs between fork and exec, and a fork while this process
    # has gRPC threads running (the Milvus tests leave some) aborts the child before the build starts
    limited = (
        "import resource, runpy, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
        "resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024)); "
        "sys.argv = ['indexer', *sys.argv[1:]]; runpy.run_module('indexer', run_name='__main__', alter_sys=True)"
    )
    docs = index_dir.parent / "docs"
    command = [sys.executable, "-c", limited, "--cache-dir", str(cache_dir), "build", str(docs)]
    run = subprocess.run(
        [*command, "--index", str(index_dir), "--embedder", "none", "--no-progress"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 2, run.stderr
    assert "writing the index failed" in run.stderr and "previous index" in run.stderr
    assert not list(index_dir.parent.glob(f".{index_dir.name}.building-*"))
    assert verify_index(index_dir, cache_dir).ok
