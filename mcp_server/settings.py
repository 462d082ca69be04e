"""Server settings: every setting is a command-line option (clients start servers with a bare environment)."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

from indexer.settings import default_cache_dir


@dataclass(frozen=True)
class ServerSettings:
    index_dir: Path
    cache_dir: Path
    load_timeout: float = 120.0
    log_level: str = "WARNING"


def parse_settings(argv: list[str] | None = None) -> ServerSettings:
    parser = argparse.ArgumentParser(
        prog="filings-mcp", description="MCP server (stdio) over an index built by `filings-index build`."
    )
    parser.add_argument(
        "--index",
        type=Path,
        default=os.environ.get("FILINGS_INDEX"),
        help="index folder (default: $FILINGS_INDEX)",
    )
    parser.add_argument("--cache-dir", type=Path, default=None, help="jieba dictionary cache folder")
    parser.add_argument(
        "--load-timeout", type=float, default=120.0, help="seconds a call waits for the index to finish loading"
    )
    parser.add_argument("--log-level", default=os.environ.get("FILINGS_LOG_LEVEL", "WARNING"))
    args = parser.parse_args(argv)
    if args.index is None:
        parser.error("no index given: pass --index INDEX_DIR or set FILINGS_INDEX")
    return ServerSettings(
        index_dir=Path(args.index).expanduser().resolve(),
        cache_dir=args.cache_dir or default_cache_dir(),
        load_timeout=args.load_timeout,
        log_level=args.log_level.upper(),
    )
