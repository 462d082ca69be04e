"""Settings objects, built once by a CLI ``main()`` and passed down."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from indexer.chunk import ChunkSettings
from indexer.embed import DEFAULT_EMBEDDER
from indexer.lexical import Bm25Settings
from indexer.parse import MAX_PAGES, MAX_PARSE_MEMORY_MB, PARSE_TIMEOUT_S


def default_cache_dir() -> Path:
    """Where jieba keeps its dictionary cache: $FILINGS_CACHE_DIR, else the user cache folder."""
    if env := os.environ.get("FILINGS_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or (Path.home() / ".cache" if Path.home().exists() else None)
    return Path(base or tempfile.gettempdir()) / "filings-mcp"


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
    batch_size: int = 32
    follow_links: bool = False  # index files reached through links that leave the folder being indexed
    progress: bool = True
    cache_dir: Path = field(default_factory=default_cache_dir)
    chunking: ChunkSettings = field(default_factory=ChunkSettings)
    bm25: Bm25Settings = field(default_factory=Bm25Settings)
