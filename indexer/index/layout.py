"""The index folder's layout: every file and folder an index holds, named here and nowhere else.

``docs/index-format.md`` is generated from :data:`FORMAT` (``python -m indexer.index.layout > docs/index-format.md``),
and a test fails when the two disagree, so the description cannot drift from the code.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

SCHEMA_VERSION = 3
MANIFEST = "manifest.json"
# Every folder the indexer creates beside an index (staging, then version) holds this file from its first moment:
# it is how cleanup tells our folders from anything else that happens to sit there.
OWNER_MARK = ".filings-index-folder"
CHUNKS = "chunk_table"
LEGACY_CHUNKS = "chunks.jsonl"  # schema 2: one chunk per JSON line (read only to reuse its vectors)
BM25 = "bm25"
TABLE_ROWS_BM25 = "bm25_table_rows"
BIGRAMS_BM25 = "bm25_bigrams"
DENSE = "dense.faiss"
DENSE_ROWS = "dense_rows.npy"
VOCABULARY = "vocabulary.json"  # the Milvus backend: the passages' words and in how many passages each is printed
PAGES = "pages"
PDFS = "pdfs"
SOURCES = "sources"
STORED_BY_DOCUMENT = (PAGES, PDFS, SOURCES)  # named by the document's sha256: the same for the same bytes
_NAME_CHARS = 12  # a document's files are named by the first 12 hex digits of its sha256
# Beside the index NAME: its versions (.NAME.v-<time>) and builds' staging folders (.NAME.building-<pid>-<random>),
# as indexer/index/publish.py names them.
_BESIDE = re.compile(r"^\.(?P<name>.+)\.(?:v-(?:0-)?\d+|building-\d+-[A-Za-z0-9_]+)")
_MAX_LINKS = 8


@dataclass(frozen=True)
class Layout:
    """The paths of one index folder (a version folder, or the link to the current one)."""

    folder: Path

    @property
    def manifest(self) -> Path:
        return self.folder / MANIFEST

    @property
    def owner_mark(self) -> Path:
        return self.folder / OWNER_MARK

    @property
    def chunks(self) -> Path:
        return self.folder / CHUNKS

    @property
    def legacy_chunks(self) -> Path:
        return self.folder / LEGACY_CHUNKS

    @property
    def bm25(self) -> Path:
        return self.folder / BM25

    @property
    def table_rows_bm25(self) -> Path:
        return self.folder / TABLE_ROWS_BM25

    @property
    def bigrams_bm25(self) -> Path:
        return self.folder / BIGRAMS_BM25

    @property
    def dense(self) -> Path:
        return self.folder / DENSE

    @property
    def dense_rows(self) -> Path:
        return self.folder / DENSE_ROWS

    @property
    def vocabulary(self) -> Path:
        return self.folder / VOCABULARY

    def pages(self, sha256: str) -> Path:
        """One page per line (JSON); :meth:`page_offsets` holds each line's byte offset for random access."""
        return self.folder / PAGES / f"{sha256[:_NAME_CHARS]}.jsonl"

    def page_offsets(self, sha256: str) -> Path:
        return self.pages(sha256).with_suffix(".offsets.npy")

    def outlines(self, sha256: str) -> Path:
        """The document's outlines (evidence/notes.py ``Outlines``), computed at build time."""
        return self.pages(sha256).with_suffix(".outline.json")

    def pdf(self, sha256: str) -> Path:
        return self.folder / PDFS / f"{sha256[:_NAME_CHARS]}.pdf"

    def source(self, sha256: str) -> Path:
        """The original of a converted document (an HTML filing)."""
        return self.folder / SOURCES / f"{sha256[:_NAME_CHARS]}.htm"


def index_of(folder: Path) -> Path:
    """The index path ``folder`` belongs to: NAME beside a version or staging folder of it, else ``folder`` itself
    (the index's link, or an index folder from before versions), as an absolute path spelled as ``folder`` is."""
    folder = folder.absolute()
    named = _BESIDE.fullmatch(folder.name)
    return folder.parent / named.group("name") if named else folder


def version_folder(index: Path) -> Path:
    """The folder the index path ``index`` leads to now, its links followed one by one but the folders above them
    not resolved: spelled as the index was (its path is what its Milvus collections' prefix is made from)."""
    path = index.absolute()
    for _ in range(_MAX_LINKS):
        if not path.is_symlink():
            return path
        path = path.parent / os.readlink(path)  # a relative target is relative to the link's folder
    return path.resolve()


# (path, what it holds) for every entry of an index folder, in the order a reader meets them.
FORMAT: tuple[tuple[str, str], ...] = (
    (
        MANIFEST,
        "written last: schema version, created-at, tool version, embedder (spec, id, dimension), tokenizer, "
        "the data files' digests (`vocabulary`), chunking, BM25 and parser settings, one entry per document (name, "
        "sha256, pages, pages without text / unreadable / OCR'd, title, company, form, period, year, language, stock "
        "code, tickers, research-note and EDGAR fields), failures, counts, and the sha256 of every other file "
        "(`filings-index verify`)",
    ),
    (
        f"{CHUNKS}/",
        "the chunks as columns, row i of each is chunk i (its row in BM25 and FAISS): `chunk_id`, `text`, "
        "`content_hash`, `parent` (a table row's passage) as UTF-8 bytes with `.offsets.npy`; `document`, `kind`, "
        "`section`, `heading` as codes (-1: none) into the lists of `strings.json`; `page.npy`, `size.npy` (page "
        "width, height), `table_ref.npy` (a table row's table and row, else -1); `boxes.npy` (page, x0, top, x1, "
        "bottom of every line) with `boxes.offsets.npy`; `parent_row.npy` (a table row's passage row, else its own). "
        "A server loads them in a fraction of a second (indexer/index/chunk_table.py)",
    ),
    (
        f"{PAGES}/<sha12>.jsonl",
        "each document's pages, one per line: size, lines with boxes and spans, text-layer flags (no text, "
        "unreadable, OCR) and tables (served by get_page)",
    ),
    (f"{PAGES}/<sha12>.offsets.npy", "each page's byte offset in that file, so that one page is read alone"),
    (
        f"{PAGES}/<sha12>.outline.json",
        "the document's outline computed once at build time: the sections its statements are read from, and the "
        "same with each note an entry (get_outline, read_section); an index without it computes it on first use",
    ),
    (f"{PDFS}/<sha12>.pdf", "the PDF as indexed (a hard link or a copy; for an HTML filing, its conversion)"),
    (f"{SOURCES}/<sha12>.htm", "the original of a converted HTML filing (so `add`/`remove` need no source folder)"),
    (
        f"{BM25}/",
        "bm25s index over the passages (memory-mapped above 100,000 chunks); `rows.npy` maps it to chunk rows",
    ),
    (f"{TABLE_ROWS_BM25}/", "the same over table rows, searched apart (its own IDF)"),
    (
        f"{BIGRAMS_BM25}/",
        "the same over the passages' CJK character bigrams (an exact Chinese phrase matches whatever the segmenter "
        "made of it), searched apart",
    ),
    (
        DENSE,
        "FAISS IndexFlatIP over L2-normalised vectors (cosine), IndexHNSWFlat above 50,000 vectors; absent when the "
        "index was built with `--embedder none`",
    ),
    (DENSE_ROWS, "the chunk row of each vector (with the Milvus backend too: which chunks have one)"),
    (
        VOCABULARY,
        "with the Milvus backend (`build --backend milvus`) instead of the BM25 and FAISS files: the passages' tokens "
        'with the number of passages each is printed in, `{"passages": N, "frequencies": {token: count}}` (term '
        "proximity weighs words by it; an older index's bare list of tokens still loads, every word weighing the "
        "same); the manifest's `milvus` names the collections that hold BM25 and the vectors",
    ),
    (OWNER_MARK, "marks the folder as made by filings-index (only such folders are ever moved or removed)"),
)


def describe() -> str:
    """The index format as Markdown (docs/index-format.md)."""
    lines = [
        "# Index format",
        "",
        f"Schema version {SCHEMA_VERSION}. Generated from `indexer/index/layout.py` "
        "(`python -m indexer.index.layout`); a test checks that this page and the code agree.",
        "",
        "The index path is a symbolic link to the current version folder `.NAME.v-<time>` beside it; a build "
        "writes into `.NAME.building-<pid>-<random>` and publishes by renaming it to a version and swapping the link "
        "with one rename (`indexer/index/publish.py`). A version folder holds:",
        "",
        "| path | holds |",
        "|---|---|",
    ]
    lines += [f"| `{path}` | {what} |" for path, what in FORMAT]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(describe())
