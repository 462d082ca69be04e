"""Latency statistics shared by the benchmarks, and how they print their results."""

from __future__ import annotations

import json
from pathlib import Path


def percentile(values: list[float], share: float) -> float:
    """The value at ``share`` (0-1) of the sorted values, nearest rank; 0 for no values."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0


def emit(results: object, path: Path | None) -> None:
    """Print ``results`` as JSON, and write them to ``path`` when given."""
    text = json.dumps(results, ensure_ascii=False, indent=1)
    print(text)
    if path is not None:
        path.write_text(text, encoding="utf-8")
