"""A synthetic large index made from a real one, to measure the server at sizes the dev filings do not reach.

    python bench/synthetic.py --source INDEX --chunks 200000 --out DIR

The source index's documents are repeated until the index holds ``--chunks`` chunks (the last copy is cut short):
copy 0 as it is, copy k as NAME__synK.pdf, in which every digit of every chunk's text goes through a permutation
of 0-9 chosen by k (figures vary from copy to copy; words and layout do not). Copies share the source's pages and
PDFs (a copy keeps its source's sha256, so it reads the same stored page files).

Vectors, and this is the synthetic part: copy 0 keeps the source index's real vectors (the embedder's output);
every later copy gets its source chunk's real vector plus Gaussian noise, re-normalised — cheap vectors, not the
embedder's output for the varied text. The query side is real: the server embeds queries with the real model. BM25
is built from the varied texts with the project's own tokenizer, as a build would. Above 50,000 vectors the dense
index is HNSW, as in a real build. The folder gets a SYNTHETIC.txt saying all this.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import time
from pathlib import Path

import numpy as np
from dense_recall import noisy

from indexer.core.models import Chunk, DocumentMeta
from indexer.core.tokenize import Tokenizer
from indexer.index.dense import DenseIndex
from indexer.index.layout import STORED_BY_DOCUMENT
from indexer.index.lexical import Bm25Settings
from indexer.index.publish import publish, staging_folder
from indexer.index.store import (
    EmbedderInfo,
    read_chunks,
    read_manifest,
    write_chunks,
    write_manifest,
)
from indexer.ingest.backend import write_bm25
from indexer.ingest.settings import default_cache_dir

VECTOR_NOISE = 0.3  # as bench/dense_recall.py: copies stay near their source, distinct from it and each other
SHARED = STORED_BY_DOCUMENT  # the documents' pages, PDFs and sources: linked, not copied
_DIGITS = re.compile(r"\d")


def _digit_map(copy: int) -> dict[str, str]:
    order = np.random.default_rng(copy).permutation(10) if copy else np.arange(10)
    return {str(d): str(int(order[d])) for d in range(10)}


def _varied(text: str, digits: dict[str, str]) -> str:
    return _DIGITS.sub(lambda m: digits[m.group(0)], text)


def _copy_name(document: str, copy: int) -> str:
    if copy == 0:
        return document
    path = Path(document)
    return f"{path.stem}__syn{copy}{path.suffix}"


def synthetic_chunks(
    chunks: list[Chunk], documents: list[DocumentMeta], target: int
) -> tuple[list[Chunk], list[DocumentMeta], list[tuple[int, int]]]:
    """``target`` chunks from repeated copies, their documents, and for each chunk (source row, copy)."""
    out: list[Chunk] = []
    metas: list[DocumentMeta] = []
    origins: list[tuple[int, int]] = []
    by_document: dict[str, list[int]] = {}
    for row, chunk in enumerate(chunks):
        by_document.setdefault(chunk.document, []).append(row)
    copy = 0
    while len(out) < target:
        digits = _digit_map(copy)
        for meta in documents:
            if len(out) >= target:
                break
            name = _copy_name(meta.document, copy)
            metas.append(meta.model_copy(update={"document": name}))
            ids = {chunks[row].chunk_id: f"{chunks[row].chunk_id}~{copy}" for row in by_document.get(meta.document, [])}
            for row in by_document.get(meta.document, [])[: target - len(out)]:
                chunk = chunks[row]
                out.append(
                    chunk.model_copy(
                        update={
                            "chunk_id": ids[chunk.chunk_id],
                            "document": name,
                            "text": _varied(chunk.text, digits),
                            "parent": ids.get(chunk.parent) if chunk.parent else None,
                            "content_hash": f"{chunk.content_hash}~{copy}",
                        }
                    )
                )
                origins.append((row, copy))
        copy += 1
    return out, metas, origins


def synthetic_vectors(source: DenseIndex, origins: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray, int]:
    """Vectors for the chunks whose source chunk has one (real for copy 0, noisy copies of them for the others),
    their chunk rows, and how many are real."""
    real = source.vectors()
    position = {int(row): pos for pos, row in enumerate(source.rows)}
    rows = [row for row, (source_row, _) in enumerate(origins) if source_row in position]
    vectors = real[[position[origins[row][0]] for row in rows]]
    is_copy = np.array([origins[row][1] > 0 for row in rows], dtype=bool)
    vectors[is_copy] = noisy(vectors[is_copy], VECTOR_NOISE, np.random.default_rng(0))
    return vectors, np.array(rows, dtype=np.int64), int((~is_copy).sum())


def _share(source: Path, target: Path, folder: str) -> None:
    """The source's pages and PDFs, hard-linked where the file system allows (copied otherwise)."""
    for path in (source / folder).rglob("*"):
        if path.is_file():
            dest = target / folder / path.relative_to(source / folder)
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(path, dest)
            except OSError:
                shutil.copy2(path, dest)


def build_synthetic(source_index: Path, target: int, out: Path, cache_dir: Path) -> dict[str, object]:
    started = time.perf_counter()
    source = source_index.resolve()
    manifest = read_manifest(source)
    if manifest.embedder is None:
        raise SystemExit(f"{source_index} has no vectors; build it with an embedder")
    chunks, documents, origins = synthetic_chunks(read_chunks(source), manifest.documents, target)
    staging = staging_folder(out)
    tokenizer = Tokenizer(cache_dir / "jieba")
    bm25 = {k: v for k, v in manifest.bm25.items() if k in ("method", "k1", "b")}
    write_bm25(staging, chunks, tokenizer, Bm25Settings(**bm25))  # type: ignore[arg-type]
    vectors, rows, real = synthetic_vectors(DenseIndex.load(source), origins)
    dense = DenseIndex.build(vectors, rows, manifest.embedder.dim)
    dense.save(staging)
    for folder in SHARED:
        _share(source, staging, folder)
    write_chunks(staging, chunks)
    note = (
        f"Synthetic index for benchmarks (bench/synthetic.py): {len(chunks):,} chunks from {source_index}, "
        f"{len(documents)} document copies; {len(rows):,} vectors, of which {real:,} real ({manifest.embedder.id}) "
        f"and {len(rows) - real:,} noisy copies of real vectors (noise {VECTOR_NOISE}).\n"
    )
    (staging / "SYNTHETIC.txt").write_text(note, encoding="utf-8")
    write_manifest(
        staging,
        manifest.model_copy(
            update={
                "embedder": EmbedderInfo(**manifest.embedder.model_dump()),
                "documents": documents,
                "failures": [],
                "chunk_count": len(chunks),
                "embedded_chunks": len(rows),
            }
        ),
    )
    publish(staging, out)
    return {
        "chunks": len(chunks),
        "documents": len(documents),
        "vectors": len(rows),
        "real_vectors": real,
        "approximate_dense": dense.approximate,
        "build_s": round(time.perf_counter() - started, 1),
        # its own files (chunks, BM25, vectors); the pages and PDFs it shares with the source are not counted
        "index_mb": round(
            sum(f.stat().st_size for f in out.resolve().rglob("*") if f.is_file() and f.parts[-2] not in SHARED)
            / 2**20,
            1,
        ),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, required=True, help="a real index with vectors")
    parser.add_argument("--chunks", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    print(build_synthetic(args.source, args.chunks, args.out, default_cache_dir()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
