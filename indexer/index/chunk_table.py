"""The chunks of an index as columns: what a server loads in a fraction of a second instead of parsing every chunk.

A folder of NumPy arrays (``chunk_table/``): the texts and ids as one UTF-8 byte array each with offsets (read
whole, not memory-mapped: a file damaged under a running server must not crash it), the fields that repeat
(document, kind, section, heading) as codes into the lists of ``strings.json``, pages, sizes, table references and
each table row's passage row as numbers, and every chunk's line boxes as one (n, 5) array. :class:`ChunkTable`
reads it as a sequence of :class:`StoredChunk`, each built when read (the last few thousand kept); whole columns
(documents, sections, parents) are arrays for the loops that visit every chunk.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import overload

import numpy as np

from indexer.core.errors import IndexLoadError
from indexer.core.models import Box, Chunk, StoredChunk

_STRINGS = "strings.json"
_TEXTS = ("chunk_id", "text", "content_hash", "parent")  # one per chunk: bytes and offsets
_CODED = ("document", "kind", "section", "heading")  # few distinct values: codes into strings.json (-1: None)
_OPTIONAL = frozenset({"section", "heading"})  # the coded columns a chunk may lack
_BOX_FIELDS = ("page", "x0", "top", "x1", "bottom")
CACHED_CHUNKS = 8192  # chunks kept built (a search touches a few hundred)


def _bytes_column(values: list[str | None]) -> tuple[np.ndarray, np.ndarray]:
    encoded = [(v or "").encode("utf-8") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets


def write_chunk_table(folder: Path, chunks: Sequence[Chunk]) -> None:
    """``chunks`` as the columns of ``folder`` (created)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in _TEXTS:
        data, offsets = _bytes_column([getattr(c, name) for c in chunks])
        np.save(folder / f"{name}.npy", data)
        np.save(folder / f"{name}.offsets.npy", offsets)
    strings: dict[str, list[str]] = {}
    for name in _CODED:
        values = [getattr(c, name) for c in chunks]
        distinct = sorted({v for v in values if v is not None})
        code = {v: i for i, v in enumerate(distinct)}
        strings[name] = distinct
        np.save(folder / f"{name}.npy", np.array([code[v] if v is not None else -1 for v in values], np.int32))
    (folder / _STRINGS).write_text(json.dumps(strings, ensure_ascii=False), encoding="utf-8")
    np.save(folder / "page.npy", np.array([c.page for c in chunks], dtype=np.int32))
    np.save(folder / "size.npy", np.array([(c.page_width, c.page_height) for c in chunks], dtype=np.float64))
    refs = [c.table_ref if c.table_ref is not None else (-1, -1) for c in chunks]
    np.save(folder / "table_ref.npy", np.array(refs, dtype=np.int64).reshape(-1, 2))
    row_of = {c.chunk_id: row for row, c in enumerate(chunks)}
    parents = [row_of.get(c.parent, row) if c.parent else row for row, c in enumerate(chunks)]
    np.save(folder / "parent_row.npy", np.array(parents, dtype=np.int64))
    counts = [len(c.boxes) for c in chunks]
    offsets = np.zeros(len(chunks) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    boxes = [[getattr(b, f) for f in _BOX_FIELDS] for c in chunks for b in c.boxes]
    np.save(folder / "boxes.offsets.npy", offsets)
    np.save(folder / "boxes.npy", np.array(boxes, dtype=np.float64).reshape(-1, len(_BOX_FIELDS)))


class ChunkTable(Sequence[StoredChunk]):
    """The chunks of a stored chunk table, by row."""

    def __init__(self, folder: Path) -> None:
        try:
            # the bulk (texts, boxes) stays on disk, paged in as rows are read: opening a large index costs its
            # offsets, not its text
            self._texts = {
                name: (np.load(folder / f"{name}.npy", mmap_mode="r"), np.load(folder / f"{name}.offsets.npy"))
                for name in _TEXTS
            }
            self._strings: dict[str, list[str]] = json.loads((folder / _STRINGS).read_text(encoding="utf-8"))
            self._codes = {name: np.load(folder / f"{name}.npy") for name in _CODED}
            self._page = np.load(folder / "page.npy")
            self._size = np.load(folder / "size.npy")
            self._table_ref = np.load(folder / "table_ref.npy")
            self._parent_row = np.load(folder / "parent_row.npy")
            self._box_offsets = np.load(folder / "boxes.offsets.npy")
            self._boxes = np.load(folder / "boxes.npy", mmap_mode="r")
        except (OSError, ValueError, KeyError) as exc:
            raise IndexLoadError(f"cannot read the chunk table at {folder} ({exc}); rebuild the index") from exc
        self._length = len(self._page)
        if self._damaged():
            raise IndexLoadError(f"the chunk table at {folder} is damaged (its columns disagree); rebuild the index")
        self._built = lru_cache(maxsize=CACHED_CHUNKS)(self._build)
        self._document, self._kind, self._section = (self._codes[n].tolist() for n in ("document", "kind", "section"))

    def _damaged(self) -> bool:
        """Whether the columns disagree: a length, an offset past its data, a code outside its list of values."""
        columns = (*self._codes.values(), self._size, self._table_ref, self._parent_row)
        if any(len(column) != self._length for column in columns):
            return True
        ends = [(offsets, len(data)) for data, offsets in self._texts.values()] + [
            (self._box_offsets, len(self._boxes))
        ]
        if any(len(offsets) != self._length + 1 or offsets[-1] != size for offsets, size in ends):
            return True
        for name, codes in self._codes.items():
            lowest = -1 if name in _OPTIONAL else 0
            if codes.size and not lowest <= int(codes.min()) <= int(codes.max()) < len(self._strings.get(name, [])):
                return True
        return False

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, row: int) -> StoredChunk: ...
    @overload
    def __getitem__(self, row: slice) -> list[StoredChunk]: ...
    def __getitem__(self, row: int | slice) -> StoredChunk | list[StoredChunk]:
        if isinstance(row, slice):
            return [self._built(r) for r in range(*row.indices(self._length))]
        if row < 0:
            row += self._length
        if not 0 <= row < self._length:
            raise IndexError(row)
        return self._built(int(row))

    def __iter__(self) -> Iterator[StoredChunk]:
        for row in range(self._length):
            yield self._build(row)  # a whole pass: not through the cache, which it would only flush

    def string(self, name: str, row: int) -> str:
        """Column ``name`` (chunk_id, text, content_hash, parent) of ``row``, without building the chunk."""
        data, offsets = self._texts[name]
        return bytes(data[offsets[row] : offsets[row + 1]]).decode("utf-8")

    def text(self, row: int) -> str:
        return self.string("text", row)

    # a chunk's fields the ranking reads for hundreds of rows per search, without building the chunk
    def document(self, row: int) -> str:
        return self._strings["document"][self._document[row]]

    def page(self, row: int) -> int:
        return int(self._page[row])

    def kind(self, row: int) -> str:
        return self._strings["kind"][self._kind[row]]

    def section(self, row: int) -> str | None:
        code = self._section[row]
        return self._strings["section"][code] if code >= 0 else None

    def heading(self, row: int) -> str | None:
        return self._coded("heading", row)

    def codes(self, name: str) -> tuple[np.ndarray, list[str]]:
        """Column ``name`` (document, kind, section, heading) as codes (-1: none) and the values they stand for."""
        return self._codes[name], self._strings[name]

    def parent_rows(self) -> np.ndarray:
        """For a table row, the row of the passage holding its line; for any other chunk, its own row."""
        return self._parent_row

    def of_kind(self, kind: str) -> np.ndarray:
        """Whether each chunk is of ``kind`` (a boolean per row)."""
        names = self._strings["kind"]
        return self._codes["kind"] == names.index(kind) if kind in names else np.zeros(self._length, dtype=bool)

    def boxes(self, row: int) -> list[Box]:
        return [
            Box(page=int(page), x0=x0, top=top, x1=x1, bottom=bottom)
            for page, x0, top, x1, bottom in self._boxes[self._box_offsets[row] : self._box_offsets[row + 1]].tolist()
        ]

    def _coded(self, name: str, row: int) -> str | None:
        code = int(self._codes[name][row])
        return self._strings[name][code] if code >= 0 else None

    def _build(self, row: int) -> StoredChunk:
        table, reference = self._table_ref[row].tolist()
        width, height = self._size[row].tolist()
        return StoredChunk.model_construct(
            chunk_id=self.string("chunk_id", row),
            document=self.document(row),
            page=int(self._page[row]),
            page_width=width,
            page_height=height,
            text=self.text(row),
            kind=self.kind(row),
            section=self.section(row),
            heading=self._coded("heading", row),
            content_hash=self.string("content_hash", row),
            parent=self.string("parent", row) or None,
            table_ref=(table, reference) if table >= 0 else None,
        )

    def full(self, row: int) -> Chunk:
        """Chunk ``row`` with its boxes, validated (what a build reads back)."""
        return Chunk.model_validate(self._build(row).model_dump() | {"boxes": self.boxes(row)})
