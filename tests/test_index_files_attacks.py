"""The files beside an index and its storage record under attack (issue 40, items 3, 6 and 14).

- Item 3: in a folder other local users can write to, what the build keeps beside the index (``.NAME.lock``, the
  milvus-lite folder ``.NAME.milvus.db``) may have been planted: a link to a file of ours is refused, never written
  through; a lock file of another user's (held, it would block every build) is an error naming it, not a wait; a
  lock file others can write to is refused, and ours are 0600; a planted milvus-lite folder — a link, or a folder of
  another user's — is refused and nothing is written into it.
- Item 6: an edited manifest's storage record is checked against the index before anything connects: a URI naming
  a server the operator did not name is refused (it gets no connection, so no FILINGS_MILVUS_TOKEN), a path
  elsewhere is refused before a folder is made, a prefix or collection of another index is refused; a Milvus the
  operator names (FILINGS_MILVUS_URI) is used.
- Item 14: the milvus-lite folder is 0700 (another user cannot list it), and the server's private socket folder
  is removed when SIGTERM stops it.

Another user is ``nobody`` (uid 65534) when the tests run as root (files are given to it, and it runs commands
through ``setpriv``); the checks that need it are skipped otherwise.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

pytest.importorskip("pymilvus", reason="the Milvus backend is an extra: pip install 'filings-mcp[milvus]'")

from indexer.core.errors import FilingsError
from indexer.index.milvus_client import TOKEN_ENV, URI_ENV, release
from indexer.index.milvus_storage import collection_prefix, default_lite_path
from indexer.index.reader import load_index
from indexer.index.safe_paths import UnsafePathError
from indexer.index.store import read_manifest
from indexer.index.verify import verify_index
from indexer.ingest.build import add_documents, build_index
from indexer.ingest.settings import BuildSettings
from tests.conftest import MGM, ROOT, SIFANG, docs_folder

NOBODY = 65534
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", sys.executable, "-I", "-S", "-c"]
AS_ROOT = os.geteuid() == 0
CAN_SWITCH = AS_ROOT and shutil.which("setpriv") is not None
WAIT_S = 60


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder every local user may write to, as a shared one is (under /tmp, which ``nobody`` can reach)."""
    folder = Path(tempfile.mkdtemp(prefix="filings-shared-", dir="/tmp"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _settings(
    index: Path, docs: Path, cache_dir: Path, backend: str = "local", uri: str | None = None
) -> BuildSettings:
    return BuildSettings(
        docs_dir=docs,
        index_dir=index,
        progress=False,
        cache_dir=cache_dir,
        embedder="none",
        backend=backend,
        milvus_uri=uri,
    )


def _lite_index(index: Path, docs: Path, cache_dir: Path, uri: str | None = None) -> Path:
    """An index on milvus-lite, its folder given back by this process (as a build that ended would)."""
    report = build_index(_settings(index, docs_folder(docs, MGM), cache_dir, "milvus", uri))
    assert report.published and not report.failures
    release(Path(uri) if uri else default_lite_path(index.absolute()))
    return index


def _as_nobody(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*AS_NOBODY, code, *args], capture_output=True, text=True, check=False, timeout=WAIT_S)


# --- item 3: what is planted beside an index ------------------------------------------------------------------------


def test_a_lock_planted_as_a_link_is_refused_and_its_target_is_left_whole(
    shared: Path, tmp_path: Path, cache_dir: Path
) -> None:
    victim = tmp_path / "own-file"  # a file only its owner (the builder) may read and write
    victim.write_text("the builder's own data\n")
    victim.chmod(0o600)
    lock = shared / ".idx.lock"
    lock.symlink_to(victim)
    if AS_ROOT:
        os.lchown(lock, NOBODY, NOBODY)  # planted by another user
    with pytest.raises(UnsafePathError) as caught:
        build_index(_settings(shared / "idx", docs_folder(tmp_path / "docs", MGM), cache_dir))
    assert str(lock) in str(caught.value) and "symbolic link" in str(caught.value)
    assert "Remove it" in str(caught.value) and "folder only you can write to" in str(caught.value)
    assert victim.read_text() == "the builder's own data\n"  # not emptied, not written
    assert not (shared / "idx").exists()


@pytest.mark.skipif(not CAN_SWITCH, reason="another user (nobody) holds the lock: run as root, with setpriv")
def test_a_lock_another_user_holds_is_an_error_naming_it_not_a_wait(
    shared: Path, tmp_path: Path, cache_dir: Path
) -> None:
    lock = shared / ".idx.lock"
    holding = (  # nobody makes the lock file (0644, as builds did) and holds it, as a build of theirs would
        "import fcntl,os,sys,time; fd=os.open(sys.argv[1], os.O_RDWR|os.O_CREAT, 0o644); "
        "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(600)"
    )
    holder = subprocess.Popen([*AS_NOBODY, holding, str(lock)], stdout=subprocess.PIPE, text=True)
    outcome: dict[str, object] = {}

    def build() -> None:
        try:
            outcome["report"] = build_index(_settings(shared / "idx", docs_folder(tmp_path / "docs", MGM), cache_dir))
        except FilingsError as exc:
            outcome["error"] = exc

    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert lock.stat().st_uid == NOBODY
        builder = threading.Thread(target=build, daemon=True)
        builder.start()
        builder.join(WAIT_S)
        assert not builder.is_alive(), "the build waits for a lock file another user made and holds"
    finally:
        holder.kill()
        holder.wait()
    error = outcome.get("error")
    assert isinstance(error, UnsafePathError), outcome
    assert str(lock) in str(error) and "nobody" in str(error) and "Remove it" in str(error)


def test_a_lock_file_others_can_write_is_refused_and_ours_are_private(
    shared: Path, tmp_path: Path, cache_dir: Path
) -> None:
    settings = _settings(shared / "idx", docs_folder(tmp_path / "docs", MGM), cache_dir)
    assert build_index(settings).published
    lock = shared / ".idx.lock"
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600  # no one else may open it (nor flock it)
    lock.chmod(0o666)
    with pytest.raises(UnsafePathError, match="can be written by other users") as caught:
        build_index(settings)
    assert str(lock) in str(caught.value)


@pytest.mark.parametrize("planted", ["link", "another user's folder"])
def test_a_planted_milvus_lite_folder_is_refused_and_nothing_is_written_into_it(
    planted: str, shared: Path, tmp_path: Path, cache_dir: Path
) -> None:
    lite = shared / ".idx.milvus.db"
    if planted == "link":
        inside = tmp_path / "elsewhere"
        inside.mkdir()
        lite.symlink_to(inside)
        if AS_ROOT:
            os.lchown(lite, NOBODY, NOBODY)
    else:
        if not AS_ROOT:
            pytest.skip("makes a folder of another user's (nobody): run as root")
        inside = lite
        lite.mkdir(mode=0o755)
        os.chown(lite, NOBODY, NOBODY)
    with pytest.raises(UnsafePathError) as caught:
        build_index(_settings(shared / "idx", docs_folder(tmp_path / "docs", MGM), cache_dir, "milvus"))
    assert str(lite) in str(caught.value)
    assert ("symbolic link" if planted == "link" else "belongs to nobody") in str(caught.value)
    assert list(inside.iterdir()) == []  # no LOCK, no collections: the index's data never went there


# --- item 14: the milvus-lite folder and the socket folder -----------------------------------------------------------


def test_the_milvus_lite_folder_is_private_to_its_user(shared: Path, tmp_path: Path, cache_dir: Path) -> None:
    index = _lite_index(shared / "idx", tmp_path / "docs", cache_dir)
    lite = default_lite_path(index)
    assert stat.S_IMODE(lite.stat().st_mode) == 0o700
    if CAN_SWITCH:  # the folder beside it is open to all, the data folder is not
        listing = _as_nobody("import os,sys; print(os.listdir(sys.argv[1]))", str(lite))
        assert listing.returncode != 0 and "PermissionError" in listing.stderr, listing.stdout
    lite.chmod(0o755)  # as an earlier version left it
    load_index(index, cache_dir)
    release(lite)
    assert stat.S_IMODE(lite.stat().st_mode) == 0o700


def test_sigterm_removes_the_servers_socket_folder(tmp_path: Path, cache_dir: Path) -> None:
    index = _lite_index(tmp_path / "idx", tmp_path / "docs", cache_dir)
    temporary = Path(tempfile.mkdtemp(prefix="fs-", dir="/tmp"))  # the server's TMPDIR: short, for a socket's path
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "mcp_server", "--index", str(index), "--cache-dir", str(cache_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=log,
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(temporary)},
    )
    try:
        deadline = time.monotonic() + WAIT_S
        while not (sockets := list(temporary.glob("filings-milvus-*/milvus.sock"))) and time.monotonic() < deadline:
            assert server.poll() is None, (tmp_path / "server.log").read_text()
            time.sleep(0.1)
        assert sockets, "the server never served its milvus-lite folder"
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=WAIT_S)
        assert server.returncode == -signal.SIGTERM  # SIGTERM still ends it as before …
        assert not sockets[0].parent.exists()  # … and its socket folder is gone
        assert list(temporary.iterdir()) == []
    finally:
        server.kill()
        server.wait()
        log.close()
        shutil.rmtree(temporary, ignore_errors=True)


# --- item 6: a storage record that points elsewhere -----------------------------------------------------------------


def _edit_record(index: Path, **fields: str) -> None:
    """The served version's manifest with its ``milvus`` record changed (as someone able to write it could)."""
    path = index.resolve() / "manifest.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["milvus"].update(fields)
    path.write_text(json.dumps(raw), encoding="utf-8")


@contextmanager
def _recorder() -> Iterator[tuple[str, list[bytes]]]:
    """A loopback TCP listener that records what each connection sends (a stand-in for someone else's server)."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    received: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            with connection:
                connection.settimeout(1)
                try:
                    received.append(connection.recv(65536))
                except OSError:
                    received.append(b"")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", received
    finally:
        stop.set()
        thread.join()
        listener.close()


def test_a_record_naming_another_server_is_refused_and_that_server_gets_nothing(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = _lite_index(tmp_path / "idx", tmp_path / "docs", cache_dir)
    monkeypatch.setenv(TOKEN_ENV, "root:the-operators-secret")
    monkeypatch.delenv(URI_ENV, raising=False)
    with _recorder() as (uri, received):
        _edit_record(index, uri=uri)
        with pytest.raises(FilingsError) as caught:
            load_index(index, cache_dir)
        problems = verify_index(index, cache_dir).problems
    message = str(caught.value)
    assert "milvus.uri" in message and uri in message and "filings-index verify" in message and "rebuild" in message
    assert URI_ENV in message  # how to name it, if it is the operator's
    assert [p.path for p in problems] == [""] and "milvus.uri" in problems[0].problem
    assert received == []  # never connected to: no token, no query


def test_a_record_naming_a_path_elsewhere_is_refused_before_anything_is_made(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(URI_ENV, raising=False)
    index = _lite_index(tmp_path / "idx", tmp_path / "docs", cache_dir)
    elsewhere = tmp_path / "elsewhere"
    _edit_record(index, uri=str(elsewhere / "deep" / "planted.milvus.db"))
    with pytest.raises(FilingsError, match=r"milvus\.uri"):
        load_index(index, cache_dir)
    with pytest.raises(FilingsError, match=r"milvus\.uri"):  # an update follows the record: refused as well
        add_documents(BuildSettings(index_dir=index, progress=False, cache_dir=cache_dir), [SIFANG])
    assert not elsewhere.exists()


def test_a_record_naming_another_indexs_collections_is_refused(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(URI_ENV, raising=False)
    index = _lite_index(tmp_path / "idx", tmp_path / "docs", cache_dir)
    info = read_manifest(index).milvus
    assert info is not None
    other = collection_prefix(tmp_path / "elsewhere" / "idx")  # an index of the same name in another folder
    _edit_record(index, prefix=other, passages=info.passages.replace(info.prefix, other))
    with pytest.raises(FilingsError, match=r"milvus\.prefix") as caught:
        load_index(index, cache_dir)
    assert info.prefix in str(caught.value)  # the prefix this index's path makes
    _edit_record(index, prefix=info.prefix, passages=f"{other}_20240101000000_abcdef_passages")
    with pytest.raises(FilingsError, match=r"milvus\.passages"):
        load_index(index, cache_dir)


def test_a_milvus_the_operator_names_is_used(tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    own = tmp_path / "milvus" / "filings.db"  # not the folder beside the index: the operator names it
    monkeypatch.setenv(URI_ENV, str(own))
    index = _lite_index(tmp_path / "idx", tmp_path / "docs", cache_dir, str(own))
    assert load_index(index, cache_dir).manifest.milvus is not None
    release(own)
    monkeypatch.delenv(URI_ENV)
    with pytest.raises(FilingsError, match=r"milvus\.uri"):  # the same record, no longer named: refused
        load_index(index, cache_dir)
