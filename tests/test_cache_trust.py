"""The cache folder (model graph, vectors, jieba's dictionary cache) is trusted only when it is this user's alone,
whatever names it: $FILINGS_CACHE_DIR, $XDG_CACHE_HOME, --cache-dir or the temporary fallback. What is written into
it is private (folders 0700, files 0600)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from indexer.cli import main as index_main
from indexer.core.errors import FilingsError
from indexer.index.embed import HASHING
from indexer.ingest.build import build_index
from indexer.ingest.settings import BuildSettings, default_cache_dir, trusted_cache_dir
from mcp_server.settings import parse_settings
from tests.conftest import BROKER, docs_folder

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
OTHER_USER = 65534  # nobody


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@ROOT_ONLY
@pytest.mark.parametrize("variable", ["FILINGS_CACHE_DIR", "XDG_CACHE_HOME"])
def test_a_cache_folder_another_user_made_is_refused_whatever_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    planted = tmp_path / "planted"
    folder = planted if variable == "FILINGS_CACHE_DIR" else planted / "filings-mcp"
    folder.mkdir(parents=True)
    (folder / "models").mkdir()
    (folder / "models" / "graph.onnx").write_bytes(b"the other user's graph")
    os.chown(folder, OTHER_USER, OTHER_USER)
    monkeypatch.delenv("FILINGS_CACHE_DIR", raising=False)
    monkeypatch.setenv(variable, str(planted))
    with pytest.raises(FilingsError, match=rf"^the cache folder {folder} belongs to .*not to you.*FILINGS_CACHE_DIR"):
        default_cache_dir()


def test_a_link_a_folder_others_can_write_and_a_folder_in_a_shared_one_are_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(FilingsError, match="is a symbolic link"):
        trusted_cache_dir(tmp_path / "link")
    open_to_all = tmp_path / "open"
    open_to_all.mkdir()
    open_to_all.chmod(0o777)
    with pytest.raises(FilingsError, match=r"can be written by other users \(mode 0777\)"):
        trusted_cache_dir(open_to_all)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # not sticky: anyone may rename what is in it
    with pytest.raises(FilingsError, match="which other users can write to"):
        trusted_cache_dir(shared / "cache")
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)  # as /tmp: only the owner may rename an entry
    assert _mode(trusted_cache_dir(sticky / "cache")) == 0o700


def test_a_folder_of_ours_readable_by_others_is_made_private(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    assert trusted_cache_dir(folder) == folder and _mode(folder) == 0o700
    made = trusted_cache_dir(tmp_path / "a" / "b" / "new")
    assert made.is_dir() and _mode(made) == 0o700


def test_the_cli_and_the_server_refuse_an_unsafe_cache_dir_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unsafe = tmp_path / "unsafe"
    unsafe.mkdir()
    unsafe.chmod(0o777)
    index = tmp_path / "index"
    code = index_main(["--cache-dir", str(unsafe), "build", str(docs_folder(tmp_path / "docs", BROKER)),
                       "--index", str(index), "--embedder", "none"])  # fmt: skip
    assert code != 0 and not index.exists()
    assert "can be written by other users" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse_settings(["--index", str(index), "--cache-dir", str(unsafe)])
    assert "the cache folder" in capsys.readouterr().err


def test_what_a_build_writes_into_the_cache_is_private(tmp_path: Path) -> None:
    cache = trusted_cache_dir(tmp_path / "cache")
    docs = docs_folder(tmp_path / "docs", BROKER)
    build_index(BuildSettings(docs_dir=docs, index_dir=tmp_path / "index", embedder=HASHING, progress=False,
                              cache_dir=cache))  # fmt: skip
    written = list(cache.rglob("*"))
    shards = [p for p in written if p.suffix == ".npz"]
    assert shards, "the vectors were kept in the cache"
    assert all(_mode(p) == 0o600 for p in written if p.is_file())
    assert all(_mode(p) == 0o700 for p in written if p.is_dir())
