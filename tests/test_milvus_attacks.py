"""The Milvus engine under attack (issue 28): a milvus-lite folder is served to the process holding it on a Unix
socket in a private folder, never a TCP port another local process could reach; a collection dropped or changed
under the server gives the error that names `filings-index verify`; any document name, control characters and
quotes included, is a valid value in the engine's filter expressions."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from indexer.knowledge_base import KnowledgeBase

pytest.importorskip("pymilvus", reason="the Milvus backend is an extra: pip install 'filings-mcp[milvus]'")

from indexer.core.errors import FilingsError
from indexer.index.milvus_client import connect
from indexer.index.milvus_storage import MilvusStorage, expression_string, expression_strings
from indexer.index.reader import load_index
from indexer.index.store import read_manifest
from indexer.ingest.build import build_index
from indexer.ingest.settings import BuildSettings
from tests.conftest import MGM, SIFANG, call_tools, docs_folder, hits_for

LISTEN = "0A"  # /proc/net/tcp's state for a listening socket
NOBODY = 65534
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


def _listening_inodes() -> set[str]:
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == LISTEN:
                inodes.add(fields[9])
    return inodes


def _our_tcp_listeners() -> set[str]:
    """The TCP sockets this process listens on (by inode)."""
    ours = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            ours.add(target[len("socket:[") : -1])
    return ours & _listening_inodes()


def _lite_index(tmp_path: Path, cache_dir: Path, *pdfs: Path) -> Path:
    index = tmp_path / "idx"
    settings = BuildSettings(
        docs_dir=docs_folder(tmp_path / "docs", *pdfs),
        index_dir=index,
        progress=False,
        cache_dir=cache_dir,
        backend="milvus",
        embedder="none",
    )
    report = build_index(settings)
    assert report.published and not report.failures
    return index


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc to list this process's sockets")
def test_a_lite_folder_opens_no_tcp_port_only_a_private_socket(tmp_path: Path, cache_dir: Path) -> None:
    before = _our_tcp_listeners()
    index = load_index(_lite_index(tmp_path, cache_dir, MGM), cache_dir)
    assert isinstance(index.storage, MilvusStorage)
    assert index.storage.passages(["betmgm"], 5, None).size  # the engine answers …
    assert _our_tcp_listeners() <= before  # … and nothing of ours listens on TCP
    uri = index.storage.client._get_connection().server_address  # the address pymilvus talks to
    assert uri.startswith("unix:")
    socket_path = Path(uri.removeprefix("unix:"))
    assert stat.S_IMODE(socket_path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(socket_path.stat().st_mode) == 0o600
    if os.geteuid() == 0 and shutil.which("setpriv"):  # another user (as root: nobody) cannot open it
        probe = "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])"
        other = subprocess.run(
            [*AS_NOBODY, sys.executable, "-I", "-S", "-c", probe, str(socket_path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert other.returncode != 0 and "PermissionError" in other.stderr, other.stderr


def test_a_dropped_collection_names_verify_and_the_rebuild(tmp_path: Path, cache_dir: Path) -> None:
    folder = _lite_index(tmp_path, cache_dir, MGM)
    info = read_manifest(folder).milvus
    assert info is not None
    index = load_index(folder, cache_dir)
    assert hits_for(KnowledgeBase(index), "BetMGM", top_k=3)
    connect(info.uri).drop_collection(info.passages)  # gone under the server
    with pytest.raises(FilingsError, match="filings-index verify") as caught:
        hits_for(KnowledgeBase(index), "BetMGM", top_k=3)
    assert info.passages in str(caught.value) and "rebuild" in str(caught.value)
    out = call_tools(folder, cache_dir, [("search_reports", {"query": "BetMGM", "top_k": 3})])
    assert out[0].is_error  # a fresh server: the clear message, not a stack trace
    text = out[0].content[0].text
    assert "filings-index verify" in text and "Traceback" not in text


def test_every_string_is_a_valid_filter_value() -> None:
    assert expression_string('a"b\\c\nd\te\x01f') == '"a\\"b\\\\c\\nd\\te\x01f"'
    assert expression_strings(["x", "y'z"]) == '["x", "y\'z"]'


def test_documents_with_control_characters_quotes_and_backslashes_are_searchable_alone(
    tmp_path: Path, cache_dir: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    odd = {"ctrl\x01name.pdf": MGM, 'quote"and\\slash.pdf': SIFANG}
    for name, pdf in odd.items():
        shutil.copy(pdf, docs / name)
    index_dir = tmp_path / "idx"
    report = build_index(
        BuildSettings(
            docs_dir=docs, index_dir=index_dir, progress=False, cache_dir=cache_dir, backend="milvus", embedder="none"
        )
    )
    assert report.published and not report.failures
    index = load_index(index_dir, cache_dir)
    query_of = {"ctrl": "BetMGM", "quot": "营业收入"}
    assert len(index.documents) == 2
    for name in index.documents:
        assert "\x01" in name or '"' in name  # stored as printed (a backslash is %5C)
        hits = hits_for(KnowledgeBase(index), query_of[name[:4]], top_k=3, documents=name)
        assert hits and {hit.source.document for hit in hits} == {name}
