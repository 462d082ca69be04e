"""How we reach Milvus: a client for a URI (``connect``); a milvus-lite data folder is served to this process only,
on a Unix socket in a private folder, never a TCP port.

pymilvus opens a ``.db`` path by starting milvus-lite's gRPC server on a free loopback TCP port with no
authentication, so any local process could list, read and drop the index's collections while the server or a build
holds the folder. Here the same engine is served on ``unix:<private folder>/milvus.sock`` instead: the folder is
made by ``tempfile.mkdtemp`` (mode 0700, owned by this user), the socket is 0600, and the client connects with a
``unix:`` URI — nothing listens on the network. One server per data folder per process (milvus-lite holds the
folder's LOCK while it is open, so a second process is refused, as before); stopped, and the private folder removed,
when the process exits — on SIGTERM too (:mod:`indexer.core.exits`). The data folder itself is made 0700 and used
only when it is this user's (:func:`indexer.index.safe_paths.private_folder`): another local user can neither read
the passages' tokens in it nor plant a folder of theirs in its place.

A Milvus server or cluster gets ``FILINGS_MILVUS_TOKEN`` only when its URI is one the operator named
(:func:`named`): ``FILINGS_MILVUS_URI``, or the URI a build was given (``--milvus-uri``). A URI read from a manifest
is checked against those before anything connects (:mod:`indexer.index.milvus_record`).
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import tempfile
import threading
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.core import exits
from indexer.core.errors import FilingsError
from indexer.index.safe_paths import private_folder

logger = logging.getLogger(__name__)

TOKEN_ENV = "FILINGS_MILVUS_TOKEN"  # a Milvus cluster's token (user:password or an API key); never stored
URI_ENV = "FILINGS_MILVUS_URI"  # the Milvus the operator names for the server and updates (the token goes there)

SOCKET_NAME = "milvus.sock"
MAX_SOCKET_PATH = 100  # a Unix socket's path is limited to ~107 bytes
WORKERS = 10  # milvus-lite's own default thread pool
MAX_MESSAGE_BYTES = 256 * 1024 * 1024  # as milvus-lite's own server (Milvus standalone's limit)


class MilvusStorageError(FilingsError):
    """Milvus cannot be reached, or is not installed, or refused an operation."""


@dataclass
class _Served:
    server: Any  # grpc.Server
    db: Any  # milvus_lite.db.MilvusLite
    folder: Path  # the private folder holding the socket (ours: removed on stop)

    @property
    def uri(self) -> str:
        return f"unix:{self.folder / SOCKET_NAME}"

    def stop(self) -> None:
        try:
            self.server.stop(grace=2).wait(5)
        finally:
            try:
                self.db.close()
            finally:
                _remove(self.folder)


class _Registry:
    """The data folders this process serves (pymilvus may connect to one many times: one server each)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._served: dict[str, _Served] = {}
        self._hooked = False

    def uri(self, data_dir: Path) -> str:
        key = str(data_dir.absolute())
        with self._lock:
            if key not in self._served:
                self._served[key] = _serve(Path(key))
                if not self._hooked:
                    atexit.register(self.stop_all)
                    self._hooked = True
            return self._served[key].uri

    def stop(self, data_dir: Path) -> None:
        with self._lock:
            served = self._served.pop(str(data_dir.absolute()), None)
        if served is not None:
            served.stop()

    def stop_all(self) -> None:
        with self._lock:
            served, self._served = list(self._served.values()), {}
        for one in served:
            try:
                one.stop()
            except Exception:  # at exit: stop the others whatever one of them raises
                logger.debug("stopping a milvus-lite server failed", exc_info=True)


_registry = _Registry()


def _private_folder() -> Path:
    """A new folder for the socket (0700, this user's), removed however the process ends (:mod:`exits`)."""
    folder = Path(tempfile.mkdtemp(prefix="filings-milvus-"))
    if len(str(folder / SOCKET_NAME)) > MAX_SOCKET_PATH:
        folder.rmdir()  # TMPDIR too deep for a socket path: the system's own temporary folder
        folder = Path(tempfile.mkdtemp(prefix="filings-milvus-", dir="/tmp"))
    exits.remove_on_exit(folder)
    return folder


def _remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    exits.forget(folder)


def _serve(data_dir: Path) -> _Served:
    import grpc
    from milvus_lite.adapter.grpc.servicer import MilvusServicer
    from milvus_lite.db import MilvusLite
    from pymilvus.grpc_gen import milvus_pb2_grpc

    db = MilvusLite(str(data_dir))  # takes the folder's LOCK: raises when another process holds it
    folder = _private_folder()
    try:
        server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=WORKERS),
            options=[
                ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ],
        )
        milvus_pb2_grpc.add_MilvusServiceServicer_to_server(MilvusServicer(db), server)
        socket_path = folder / SOCKET_NAME
        server.add_insecure_port(f"unix:{socket_path}")
        server.start()
        os.chmod(socket_path, 0o600)
    except BaseException:
        try:
            db.close()
        finally:
            _remove(folder)
        raise
    logger.info("milvus-lite serves %s to this process on %s", data_dir, socket_path)
    return _Served(server, db, folder)


def private_uri(data_dir: Path) -> str:
    """The ``unix:`` URI this process reaches the milvus-lite folder ``data_dir`` on (started on first use). The
    folder is checked each time: 0700 and this user's, never a link or another user's folder (UnsafePathError)."""
    private_folder(data_dir)
    return _registry.uri(data_dir)


def release(data_dir: Path) -> None:
    """Stop serving ``data_dir`` (its LOCK is released; another process may open it)."""
    _registry.stop(data_dir)


_named_uris: set[str] = set()


def name_uri(uri: str) -> None:
    """``uri`` was named by the operator (a build's ``--milvus-uri``): this process may use it, and send it the
    token."""
    _named_uris.add(uri)


def _same(a: str, b: str) -> bool:
    if ("://" in a) != ("://" in b):
        return False
    if "://" in a:
        return a.rstrip("/") == b.rstrip("/")
    return Path(a).resolve() == Path(b).resolve()


def named(uri: str) -> bool:
    """Whether the operator named ``uri``: ``FILINGS_MILVUS_URI``, or a URI a build of this process was given."""
    return any(_same(uri, one) for one in [*_named_uris, os.environ.get(URI_ENV, "")] if one)


def connect(uri: str) -> Any:
    """A MilvusClient for ``uri``; a local ``.db`` path is served by milvus-lite in this process, on a Unix socket in
    a private folder (``milvus_lite_socket``): no TCP port, so no other local process reaches the collections. One
    process at a time may hold a milvus-lite folder: a server on loopback is the way to share one. The token goes
    only to a URI the operator named (:func:`named`); callers check a URI read from a manifest first
    (:mod:`indexer.index.milvus_record`)."""
    try:
        from pymilvus import MilvusClient
    except ImportError as exc:
        raise MilvusStorageError(
            "the Milvus backend is not installed; run `pip install 'filings-mcp[milvus]'` (pymilvus and milvus-lite)"
        ) from exc
    local = "://" not in uri
    try:
        if local:
            Path(uri).parent.mkdir(parents=True, exist_ok=True)
            return MilvusClient(uri=private_uri(Path(uri)))
        return MilvusClient(uri=uri, token=os.environ.get(TOKEN_ENV, "") if named(uri) else "")
    except FilingsError:
        raise  # ours already says what to do (a data folder that is not ours)
    except Exception as exc:  # milvus-lite and pymilvus raise many types for a held folder or an unreachable server
        advice = (
            "the milvus-lite folder may be open in another process (a server serving this index?): stop it, or "
            f"share it through one milvus-lite server bound to loopback: `milvus-lite server --data-dir {uri} "
            "--host 127.0.0.1 --port PORT`, pass --milvus-uri http://127.0.0.1:PORT to the build and set "
            f"{URI_ENV} to it for the server and updates (any local process can reach that port: see "
            "docs/operations.md)"
            if local
            else f"check that Milvus runs there, that {URI_ENV} names it and that {TOKEN_ENV} holds its token"
        )
        raise MilvusStorageError(f"cannot connect to Milvus at {uri} ({short(exc)}); {advice}") from exc


def short(exc: BaseException, limit: int = 300) -> str:
    """An engine's error, cut short (an error from a server we do not control can be any size)."""
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
