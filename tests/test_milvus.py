"""The Milvus backend against real engines: the same index built on local files, on a milvus-lite folder and on a
milvus-lite server (started here on a free loopback port, stopped after) gives the same BM25 lists, the same
vectors and the same answers; updates, aliases and a failed build; a real Milvus when FILINGS_MILVUS_URI is set.
The milvus-lite server is the Milvus the operator names: FILINGS_MILVUS_URI is set to it while this module runs (a
storage record naming any other server is refused: tests/test_index_files_attacks.py)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from indexer.knowledge_base import KnowledgeBase

pytest.importorskip("pymilvus", reason="the Milvus backend is an extra: pip install 'filings-mcp[milvus]'")

from indexer.core.errors import FilingsError
from indexer.index.engines import named_collections
from indexer.index.milvus_client import connect
from indexer.index.milvus_storage import MilvusStorage, field_text, milvus_token
from indexer.index.reader import LoadedIndex, allowed_rows, load_index, section_rows
from indexer.index.store import read_manifest
from indexer.index.verify import verify_index
from indexer.ingest import build as build_module
from indexer.ingest.build import add_documents, build_index, remove_documents
from indexer.ingest.settings import BuildSettings
from tests.conftest import BESTBUY_10Q, MGM, ROOT, SAMPLES, SIFANG, call_tools, docs_folder, hits_for, kill_when

pytestmark = pytest.mark.serial  # run alone, after the parallel run (Makefile: test)

# Not the eval questions: words that occur in the committed samples, in both languages, scoped and not.
QUERIES = [
    "comparable sales",
    "net revenues by segment",
    "cash and cash equivalents",
    "BetMGM",
    "total assets",
    "gross profit margin",
    "营业收入",
    "归属于上市公司股东的净利润",
    "盈利预测 投资评级",
]
SERVER_START_S = 60
URI_ENV = "FILINGS_MILVUS_URI"
REAL_MILVUS = os.environ.get(URI_ENV)  # read before the module names its own milvus-lite server there


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def lite_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A milvus-lite server on a free loopback port, for this module's tests."""
    port = _free_port()
    data = tmp_path_factory.mktemp("milvus-server")
    command = [
        str(Path(sys.executable).parent / "milvus-lite"),
        "server",
        "--data-dir",
        str(data / "db"),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    log = (data / "server.log").open("w")
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline and server.poll() is None:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        assert server.poll() is None, (data / "server.log").read_text()
        with pytest.MonkeyPatch.context() as env:
            env.setenv(URI_ENV, f"http://127.0.0.1:{port}")  # the operator names it (and CLI children see it)
            yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def _build(index: Path, cache_dir: Path, backend: str, uri: str | None = None, docs: Path = SAMPLES) -> Path:
    settings = BuildSettings(
        docs_dir=docs, index_dir=index, progress=False, cache_dir=cache_dir, backend=backend, milvus_uri=uri
    )
    report = build_index(settings)
    assert report.published and not report.failures
    return index


@pytest.fixture(scope="module")
def indexes(
    tmp_path_factory: pytest.TempPathFactory, e5_samples_index_dir: Path, cache_dir: Path, lite_server: str
) -> dict[str, LoadedIndex]:
    """The samples on local files (the session's index embedded by the default model, as the builds here are), on
    a milvus-lite folder beside the index (the default URI) and on the milvus-lite server; the vectors come from the
    vector cache the local build filled."""
    folder = tmp_path_factory.mktemp("milvus")
    return {
        "local": load_index(e5_samples_index_dir, cache_dir),
        "lite": load_index(_build(folder / "lite", cache_dir, "milvus"), cache_dir),
        "server": load_index(_build(folder / "server", cache_dir, "milvus", lite_server), cache_dir),
    }


def _pages(index: LoadedIndex, query: str, documents: str | None = None) -> list[tuple[str, int]]:
    return [(hit.document, hit.page) for hit in hits_for(KnowledgeBase(index), query, top_k=5, documents=documents)]


@pytest.mark.parametrize("backend", ["lite", "server"])
def test_the_same_answers_as_local_files(indexes: dict[str, LoadedIndex], backend: str) -> None:
    local, milvus = indexes["local"], indexes[backend]
    assert isinstance(milvus.storage, MilvusStorage)
    for query in QUERIES:
        assert _pages(milvus, query) == _pages(local, query), query
    for document in (BESTBUY_10Q.name, SIFANG.name):
        assert _pages(milvus, "营业收入 total assets", document) == _pages(local, "营业收入 total assets", document)


@pytest.mark.parametrize("backend", ["lite", "server"])
def test_bm25_and_dense_lists_match_local_files(indexes: dict[str, LoadedIndex], backend: str) -> None:
    """Our tokens on both sides: the BM25 lists are bm25s's (top-10 overlap 1.0 here, the bench's target is
    0.95), scoped to a document or a section too; the vectors are the same vectors."""
    local, milvus = indexes["local"], indexes[backend]
    overlaps = []
    scopes = [None, allowed_rows(local, [BESTBUY_10Q.name]), section_rows(local, "balance_sheet", None)]
    for query in QUERIES:
        tokens = local.tokenizer.tokenize(query)
        for allowed in scopes:
            ours, theirs = local.storage.passages(tokens, 10, allowed), milvus.storage.passages(tokens, 10, allowed)
            if len(ours):
                overlaps.append(len(set(ours.tolist()) & set(theirs.tolist())) / len(ours))
            rows = local.storage.table_rows(tokens, 10, allowed), milvus.storage.table_rows(tokens, 10, allowed)
            assert rows[0] is not None and rows[1] is not None and set(rows[0]) == set(rows[1]), query
        assert local.embedder is not None
        vector = local.embedder.embed_queries([query])[0]
        assert milvus.storage.nearest(vector, 10, None).tolist() == local.storage.nearest(vector, 10, None).tolist()
    assert len(overlaps) > 10 and np.mean(overlaps) >= 0.99
    assert all(milvus.storage.embedded(row) == local.storage.embedded(row) for row in range(len(local.chunks)))
    assert milvus.storage.knows("revenu") and not milvus.storage.knows("zzzyx")
    words = local.tokenizer.tokenize("comparable sales declined 营业收入 zzzyx")
    assert milvus.storage.rarity(words) == pytest.approx(local.storage.rarity(words))  # proximity weighs alike
    assert "zzzyx" not in milvus.storage.rarity(words) and len(milvus.storage.rarity(words)) == len(words) - 1


def test_filters_are_milvus_expressions(indexes: dict[str, LoadedIndex]) -> None:
    storage = indexes["lite"].storage
    assert isinstance(storage, MilvusStorage)
    index = indexes["lite"]
    assert storage.expression(None) == ""
    assert storage.expression(allowed_rows(index, [MGM.name])) == f'document in ["{MGM.name}"]'
    assert storage.expression(section_rows(index, "balance_sheet", allowed_rows(index, [BESTBUY_10Q.name]))) == (
        f'section == "balance_sheet" and document in ["{BESTBUY_10Q.name}"]'
    )
    assert storage.expression(np.array([3, 7])) == "row in [3, 7]"
    # the filter fields are in the collection for other clients' expressions
    found = storage.client.query(
        storage.info.passages, filter='language == "zh" and form == "年报"', output_fields=["document"], limit=5
    )
    assert found and {record["document"] for record in found} == {SIFANG.name}


def test_our_tokens_survive_the_engine_analyzer() -> None:
    assert milvus_token("10-K") == "10_k" and milvus_token("营业收入") == "营业收入"
    assert field_text(["net", "revenu", "1234.5", "10-k"]) == "net revenu 1234_5 10_k"
    assert len(field_text(["a" * 100] * 2000).encode()) <= 65_535


def test_the_manifest_names_the_collections_and_the_aliases_follow(indexes: dict[str, LoadedIndex]) -> None:
    index = indexes["server"]
    info = index.manifest.milvus
    assert info is not None and info.uri.startswith("http://127.0.0.1:") and info.vectors
    client = connect(info.uri)
    for kind in ("passages", "table_rows", "vectors"):
        assert client.describe_alias(f"{info.prefix}_{kind}")["collection_name"] == getattr(info, kind)
    lite = indexes["lite"].manifest.milvus
    assert lite is not None and lite.uri.endswith("/.lite.milvus.db")


def test_a_running_server_answers_over_milvus(indexes: dict[str, LoadedIndex], cache_dir: Path) -> None:
    out = call_tools(
        indexes["server"].folder.parent / "server",
        cache_dir,
        [("search_reports", {"query": "营业收入", "top_k": 3}), ("list_documents", {})],
    )
    hits = out[0].structured_content["hits"]
    assert any(h["document"] == SIFANG.name and h["page"] == 5 for h in hits)
    assert hits[0]["bbox"]
    assert all(d["semantic_ready"] for d in out[1].structured_content["documents"])


def test_add_remove_and_a_failed_build_keep_one_version_whole(
    tmp_path: Path, cache_dir: Path, lite_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = _build(tmp_path / "idx", cache_dir, "milvus", lite_server, docs_folder(tmp_path / "docs", SIFANG))
    settings = BuildSettings(index_dir=index, progress=False, cache_dir=cache_dir)  # add/remove follow the manifest
    add_documents(settings, [MGM])
    added = read_manifest(index)
    assert added.milvus is not None and added.milvus.uri == lite_server
    assert {m.document for m in added.documents} == {SIFANG.name, MGM.name}
    assert _pages(load_index(index, cache_dir), "BetMGM")[0][0] == MGM.name

    client = connect(lite_server)
    prefix = added.milvus.prefix
    ours = {name for name in client.list_collections() if name.startswith(prefix)}
    assert ours == named_collections(index)  # nothing left that no version names

    def full_disk(staging: Path, target: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(build_module, "publish", full_disk)
    with pytest.raises(FilingsError, match="is unchanged"):
        remove_documents(settings, [MGM.name])
    monkeypatch.undo()
    assert read_manifest(index).milvus == added.milvus  # the version served is the one before the failure
    assert client.describe_alias(f"{prefix}_passages")["collection_name"] == added.milvus.passages
    orphans = {name for name in client.list_collections() if name.startswith(prefix)} - named_collections(index)
    assert orphans  # the failed build's collections, named by no version …

    remove_documents(settings, [MGM.name])
    after = {name for name in client.list_collections() if name.startswith(prefix)}
    assert not orphans & after and after == named_collections(index)  # … dropped by the next publication
    assert MGM.name not in {h[0] for h in _pages(load_index(index, cache_dir), "BetMGM")}


def test_the_cli_builds_on_milvus_and_a_held_lite_folder_gets_a_clear_message(tmp_path: Path, cache_dir: Path) -> None:
    docs = docs_folder(tmp_path / "docs", MGM)
    index = tmp_path / "cli"
    command = [sys.executable, "-m", "indexer", "build", str(docs), "--index", str(index)]
    env = {**os.environ, "FILINGS_CACHE_DIR": str(cache_dir)}
    done = subprocess.run(
        [*command, "--backend", "milvus", "--embedder", "none", "--no-progress", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["documents"] == 1
    assert "Traceback" not in done.stderr
    load_index(index, cache_dir)  # this process now holds the milvus-lite folder …
    again = subprocess.run(
        [sys.executable, "-m", "indexer", "add", str(SIFANG), "--index", str(index), "--no-progress"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert again.returncode != 0  # … so another process is told why and what to do instead
    assert "milvus-lite server --data-dir" in again.stderr and "Traceback" not in again.stderr
    assert "--host 127.0.0.1" in again.stderr  # the server it suggests listens on loopback only


@pytest.mark.skipif(not REAL_MILVUS, reason="set FILINGS_MILVUS_URI to test a real Milvus")
def test_a_real_milvus(
    tmp_path: Path, cache_dir: Path, indexes: dict[str, LoadedIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert REAL_MILVUS is not None
    monkeypatch.setenv(URI_ENV, REAL_MILVUS)
    index = load_index(_build(tmp_path / "real", cache_dir, "milvus", REAL_MILVUS), cache_dir)
    for query in QUERIES:
        assert _pages(index, query) == _pages(indexes["local"], query), query


def test_a_build_killed_while_writing_collections_leaves_the_served_version(
    tmp_path: Path, cache_dir: Path, lite_server: str
) -> None:
    index = _build(tmp_path / "idx", cache_dir, "milvus", lite_server, docs_folder(tmp_path / "docs", MGM))
    before = read_manifest(index).milvus
    assert before is not None
    client = connect(lite_server)
    ours = lambda: {name for name in client.list_collections() if name.startswith(before.prefix)}  # noqa: E731
    known = ours()
    adding = subprocess.Popen(
        [sys.executable, "-m", "indexer", "add", str(SIFANG), "--index", str(index), "--no-progress"],
        cwd=ROOT,
        env={**os.environ, "FILINGS_CACHE_DIR": str(cache_dir)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    kill_when(adding, lambda: bool(ours() - known), "writing its collections")
    assert read_manifest(index).milvus == before  # the served version, whole
    assert client.describe_alias(f"{before.prefix}_passages")["collection_name"] == before.passages
    assert _pages(load_index(index, cache_dir), "BetMGM")[0][0] == MGM.name
    left = ours() - known
    assert left  # what the killed build wrote, named by no version …
    add_documents(BuildSettings(index_dir=index, progress=False, cache_dir=cache_dir), [SIFANG])
    assert not left & ours() and ours() == named_collections(index)  # … dropped by the next publication


def test_verify_counts_the_rows_milvus_holds(tmp_path: Path, cache_dir: Path, lite_server: str) -> None:
    index = _build(tmp_path / "idx", cache_dir, "milvus", lite_server, docs_folder(tmp_path / "docs", MGM))
    assert verify_index(index, cache_dir).ok
    info = read_manifest(index).milvus
    assert info is not None
    connect(lite_server).delete(info.table_rows, filter="row >= 0")  # rows lost on the engine's side
    problems = verify_index(index, cache_dir).problems
    assert [p.path for p in problems] == ["table_rows"] and "Milvus holds 0 rows" in problems[0].problem


def test_an_add_in_a_new_process_reuses_the_embedded_folders_vectors(tmp_path: Path) -> None:
    """milvus-lite releases a folder's collections when the process that loaded them ends: `add` in the next process
    read the previous version's vectors from a released collection and failed with a MilvusException."""
    from tests.test_cli import _cli

    cache = tmp_path / "cache"  # its own: the vectors can only come from the index
    index = tmp_path / "index"
    docs = docs_folder(tmp_path / "docs", SIFANG)
    built = _cli("build", str(docs), "--index", str(index), "--backend", "milvus", "--no-progress", cache=cache)
    assert built.returncode == 0, built.stderr
    embedded = read_manifest(index).embedded_chunks
    assert embedded > 0
    shutil.rmtree(cache / "vectors", ignore_errors=True)  # the build cached them too
    added = _cli("add", str(MGM), "--index", str(index), "--no-progress", cache=cache)
    assert added.returncode == 0, added.stderr[-2000:]
    assert f"{embedded} reused from the previous index" in added.stdout + added.stderr
    assert {m.document for m in read_manifest(index).documents} == {SIFANG.name, MGM.name}
