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

    def summary(self) -> dict[str, object]:
        """The build summary as `--json` prints it."""
        return {
            "index": str(self.index_dir),
            "documents": self.documents,
            "pages": self.pages,
            "pages_without_text": self.pages_without_text,
            "pages_unreadable": self.pages_unreadable,
            "pages_ocr": self.pages_ocr,
            "html_converted": self.converted,
            "chunks": self.chunks,
            "table_rows": self.table_rows,
            "embedded_chunks": self.embedded,
            "reused_vectors": self.reused_vectors,
            "cached_vectors": self.cached_vectors,
            "computed_vectors": self.computed_vectors,
            "pending_vectors": self.pending_vectors,
            "embedding_left_to": self.embedding_left_to,
            "versions_published": self.versions,
            "reused_documents": self.reused_documents,
            "failed": [f.model_dump() for f in self.failures],
            "links_out_skipped": self.links_out,
            "seconds": {k: round(v, 2) for k, v in self.seconds.items()},
        }

    def lines(self) -> list[str]:
        """The build summary as the CLI prints it, a line each."""
        lines: list[str] = []
        lines.append(
            f"Indexed {self.documents} documents, {self.pages} pages, {self.chunks} chunks into {self.index_dir}"
        )
        lines.append(f"  table rows indexed as chunks: {self.table_rows}")
        lines.append(
            f"  embedded chunks: {self.embedded} ({self.reused_vectors} reused from the previous index, "
            f"{self.cached_vectors} from the vector cache, {self.computed_vectors} computed)"
        )
        if self.embedding_left_to:
            lines.append(
                f"  embedding of the new passages left to {self.embedding_left_to}, which was embedding already"
            )
        if "searchable" in self.seconds:
            lines.append(
                f"  searchable by its words after {self.seconds['searchable']:.1f}s; {self.versions} version(s)"
            )
        lines.append(f"  unchanged files not parsed again: {self.reused_documents}")
        unsearchable = self.pages_without_text + self.pages_unreadable
        lines.append(
            f"  pages not searchable: {unsearchable} ({self.pages_without_text} without text, "
            f"{self.pages_unreadable} with an unreadable text layer)" + ("; --ocr reads them" if unsearchable else "")
        )
        if self.pages_ocr:
            lines.append(f"  pages read by OCR: {self.pages_ocr}")
        if self.converted:
            lines.append(f"  HTML filings converted to PDF: {self.converted}")
        lines.append("  time: " + ", ".join(f"{k} {v:.1f}s" for k, v in self.seconds.items()))
        if self.links_out:
            lines.append(
                f"  {len(self.links_out)} link(s) leading out of the folder skipped (--follow-links indexes them):"
            )
            for link in self.links_out:
                lines.append(f"    {link}")
        if self.failures:
            lines.append(f"  {len(self.failures)} file(s) failed:")
            for failure in self.failures:
                lines.append(f"    {failure.document}: {failure.reason}")
        return lines


def progress_bar(total: int, unit: str, desc: str, enabled: bool):  # type: ignore[no-untyped-def]
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, desc=desc, file=sys.stderr, disable=not enabled, dynamic_ncols=True)
