"""Settings objects, built once by a CLI ``main()`` and passed down."""

from __future__ import annotations

import os
import stat
import tempfile
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from indexer.core.errors import FilingsError
from indexer.index.embed import DEFAULT_EMBEDDER, EMBED_BATCH
from indexer.index.lexical import Bm25Settings
from indexer.index.safe_paths import PRIVATE_FOLDER, not_yours
from indexer.index.storage import LOCAL
from indexer.ingest.chunk import DEFAULT_PASSAGE_TEXT, ChunkSettings
from indexer.ingest.parse import MAX_PAGES, MAX_PARSE_MEMORY_MB, PARSE_TIMEOUT_S


def default_cache_dir() -> Path:
    """Where the model graph, cached vectors and jieba's dictionary cache live: $FILINGS_CACHE_DIR, else the user's
    cache folder, else a folder of this user's in the temporary folder; whichever it is, checked by
    :func:`trusted_cache_dir` (what is loaded from it runs as this user: a graph, a ``marshal`` cache)."""
    if env := os.environ.get("FILINGS_CACHE_DIR"):
        return trusted_cache_dir(Path(env))
    if xdg := os.environ.get("XDG_CACHE_HOME"):
        return trusted_cache_dir(Path(xdg) / "filings-mcp")
    try:
        home = Path.home()
    except (KeyError, RuntimeError):  # no HOME and no entry in the user database
        home = None
    if home is not None and str(home) not in ("", "/") and home.is_dir():
        return trusted_cache_dir(home / ".cache" / "filings-mcp")
    return private_temp_dir()


def private_temp_dir() -> Path:
    """``$TMPDIR/filings-mcp-<uid>``, checked like any cache folder (:func:`trusted_cache_dir`)."""
    uid = os.getuid() if hasattr(os, "getuid") else None
    return trusted_cache_dir(Path(tempfile.gettempdir()) / f"filings-mcp-{uid if uid is not None else 'user'}")


def trusted_cache_dir(folder: Path) -> Path:
    """``folder`` as a cache folder whose contents can be trusted: made (mode 0700) when absent, else kept only if
    it is a real folder, not a link, of this user's that no one else can write to, in a folder others cannot
    rename it out of (theirs to write only when sticky, as /tmp is); one of ours that others can read is made
    0700. Raises :class:`FilingsError` naming the folder and what to do otherwise."""
    folder = folder.expanduser()
    advice = (
        "models, vectors and dictionaries are loaded from it, so only a folder of yours that no one else can write "
        "to is used; set FILINGS_CACHE_DIR (or --cache-dir) to one"
    )
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        with suppress(FileExistsError):
            os.mkdir(folder, PRIVATE_FOLDER)
        info, above = os.lstat(folder), os.stat(folder.parent)
    except OSError as exc:
        raise FilingsError(f"cannot create the cache folder {folder} ({exc.strerror}); {advice}") from exc
    if stat.S_ISLNK(info.st_mode):
        problem: str | None = "is a symbolic link"
    elif not stat.S_ISDIR(info.st_mode):
        problem = "is not a folder"
    elif above.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not above.st_mode & stat.S_ISVTX:
        problem = f"is in {folder.parent}, which other users can write to (they could put another folder in its place)"
    else:
        problem = not_yours(info)
    if problem:
        raise FilingsError(f"the cache folder {folder} {problem}: {advice}")
    if stat.S_IMODE(info.st_mode) != PRIVATE_FOLDER:
        os.chmod(folder, PRIVATE_FOLDER)  # ours, and not a link (checked above)
    return folder


@dataclass(frozen=True)
class BuildSettings:
    index_dir: Path
    docs_dir: Path | None = None  # the folder `build` indexes; None for `add`/`remove` (they start from the index)
    embedder: str = DEFAULT_EMBEDDER
    ocr: bool = False
    tessdata: Path | None = None
    password: str | None = None
    passwords: dict[str, str] = field(default_factory=dict)  # per file: document name → password
    parse_timeout: float = PARSE_TIMEOUT_S  # seconds one file may take to parse
    max_pages: int = MAX_PAGES
    max_parse_memory_mb: float = MAX_PARSE_MEMORY_MB  # resident memory one parse may hold
    batch_size: int = EMBED_BATCH
    passage_text: str = DEFAULT_PASSAGE_TEXT  # what is embedded for a passage (ingest/chunk.py)
    follow_links: bool = False  # index files reached through links that leave the folder being indexed
    progress: bool = True
    wait_for_lock: bool = True  # queue behind another build of the same index (False: fail at once, saying who)
    publish_every_s: float = 300.0  # a long embedding publishes the vectors it has this often
    cache_dir: Path = field(default_factory=default_cache_dir)
    backend: str = LOCAL  # LOCAL (BM25 and FAISS files in the index folder) or MILVUS (indexer.index.storage)
    milvus_uri: str | None = None  # None: a milvus-lite folder beside the index
    ray: str | None = None  # parse and embed on Ray: "local" (a Ray instance here) or a cluster's address; None: here
    chunking: ChunkSettings = field(default_factory=ChunkSettings)
    bm25: Bm25Settings = field(default_factory=Bm25Settings)

    def parser_options(self) -> dict[str, Any]:
        """The PDF parser's options (indexer.ingest.parse.PdfParser), the same here and on Ray."""
        return {
            "ocr": self.ocr,
            "password": self.password,
            "tessdata": self.tessdata,
            "timeout": self.parse_timeout,
            "max_pages": self.max_pages,
            "max_memory_mb": self.max_parse_memory_mb,
        }
