"""Files derived once from the bundled model (the ONNX graph, the tokenizer's model), kept in the cache folder.

Each is written to a temporary file and renamed into place, then sealed by a sidecar holding its sha256, written the
same way. A file without its seal, or whose bytes no longer match it (truncated, damaged), is built again from the
bundled weights; nothing half-written is ever read.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

logger = logging.getLogger(__name__)

FOLDER = "models"


def cached_file(cache_dir: Path, name: str, build: Callable[[], bytes]) -> Path:
    """``cache_dir/models/name``, built by ``build`` when it is absent, unsealed or damaged."""
    path = cache_dir / FOLDER / name
    seal = path.with_name(path.name + ".sha256")
    if path.is_file() and seal.is_file():
        if seal.read_text(encoding="ascii").strip() == file_digest(path):
            return path
        logger.warning("the cached model file %s is damaged; building it again from the bundled weights", path)
    path.parent.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    data = build()
    _write_atomically(path, data)
    _write_atomically(seal, hashlib.sha256(data).hexdigest().encode("ascii"))
    logger.info("wrote %s (%.1f MB) from the bundled model", path, len(data) / 1e6)
    return path


def file_digest(path: Path) -> str:
    """sha256 of a file, read in blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _write_atomically(path: Path, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
