"""Latency statistics shared by the benchmarks."""

from __future__ import annotations


def percentile(values: list[float], share: float) -> float:
    """The value at ``share`` (0-1) of the sorted values, nearest rank; 0 for no values."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0
