"""Log lines on stderr, one format for the CLI and the server. Libraries that log below WARNING by themselves
(bm25s sets its own logger to DEBUG when imported) are held at WARNING unless a lower level is asked for."""

from __future__ import annotations

import logging
import sys

NOISY = frozenset({"bm25s", "jieba", "faiss", "weasyprint", "fontTools", "httpx", "mcp", "fastmcp"})
FORMAT = "%(levelname)s %(name)s: %(message)s"


class _LibraryFloor(logging.Filter):
    def __init__(self, floor: int) -> None:
        super().__init__()
        self.floor = floor

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= self.floor or record.name.split(".")[0] not in NOISY


def setup_logging(level: str) -> None:
    logging.basicConfig(stream=sys.stderr, level=level.upper(), format=FORMAT)
    root = logging.getLogger()
    floor = _LibraryFloor(max(logging.WARNING, root.level))
    for handler in root.handlers:
        handler.addFilter(floor)
