"""What a build did, for the CLI and the benchmarks; and the progress bars it shows on stderr."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from indexer.index.store import Failure


@dataclass
class BuildReport:
    index_dir: Path
    documents: int = 0
    pages: int = 0
    pages_without_text: int = 0
    pages_unreadable: int = 0  # a text layer that is not the page's text; not searchable (OCR them with --ocr)
    pages_ocr: int = 0
    chunks: int = 0
    table_rows: int = 0
    embedded: int = 0  # chunks with a vector in the last version published
    reused_vectors: int = 0  # vectors taken from the index being replaced
    cached_vectors: int = 0  # vectors taken from this machine's vector cache (index/vector_cache.py)
    computed_vectors: int = 0  # vectors this build computed (its second phase)
    pending_vectors: int = 0  # chunks without a vector when the words were published
    embedding_left_to: str | None = None  # the process embedding for this index instead (it was at it already)
    versions: int = 0  # versions published: the words, then vectors as they are embedded
    reused_documents: int = 0  # unchanged files whose pages came from the previous index instead of a parse
    converted: int = 0  # HTML filings converted to PDF
    links_out: list[str] = field(default_factory=list)  # links out of the folder, skipped (see folder_sources)
    failures: list[Failure] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    published: bool = False


def progress_bar(total: int, unit: str, desc: str, enabled: bool):  # type: ignore[no-untyped-def]
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, desc=desc, file=sys.stderr, disable=not enabled, dynamic_ncols=True)
