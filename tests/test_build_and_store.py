"""Index builds: round trip through the folder, bad files, atomic publication, the vector cache."""

import glob
import json
import os
import shutil
from pathlib import Path

import pytest

from indexer.core.errors import FilingsError, IndexLoadError
from indexer.core.models import StoredChunk
from indexer.index.embed import HASHING
from indexer.index.layout import OWNER_MARK, SCHEMA_VERSION
from indexer.index.reader import get_page, load_index
from indexer.index.store import PageTables, read_chunks, read_manifest, read_page
from indexer.ingest.build import build_index
from indexer.ingest.settings import BuildSettings
from indexer.knowledge_base import KnowledgeBase
from tests.conftest import BESTBUY_10Q, BROKER, SIFANG, hits_for


def _settings(docs: Path, index: Path, cache: Path, embedder: str = "none") -> BuildSettings:
    return BuildSettings(docs_dir=docs, index_dir=index, embedder=embedder, progress=False, cache_dir=cache)


def _docs(tmp_path: Path, *pdfs: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir(exist_ok=True)
    for pdf in pdfs:
        shutil.copy(pdf, folder / pdf.name)
    return folder


def test_manifest_records_settings_and_documents(tmp_path: Path, cache_dir: Path) -> None:
    report = build_index(_settings(_docs(tmp_path, BESTBUY_10Q, SIFANG), tmp_path / "idx", cache_dir))
    manifest = read_manifest(tmp_path / "idx")
    assert manifest.schema_version == SCHEMA_VERSION
    assert manifest.embedder is None
    assert manifest.tokenizer["id"] == "filings-tok-3"
    assert manifest.tokenizer["cjk_bigrams"].startswith("bg_")
    assert manifest.chunking["max_tokens"] == 300
    assert manifest.bm25["engine"] == "bm25s"
    docs = {d.document: d for d in manifest.documents}
    assert docs["BESTBUY_2024Q2_10Q.pdf"].pages == 30
    assert docs[SIFANG.name].pages == 12
    assert docs[SIFANG.name].company == "四方科技"
    assert len(docs["BESTBUY_2024Q2_10Q.pdf"].sha256) == 64
    assert report.documents == 2 and report.pages == 42 and report.chunks == manifest.chunk_count


def test_round_trip_keeps_chunks_and_pages(tmp_path: Path, cache_dir: Path) -> None:
    build_index(_settings(_docs(tmp_path, SIFANG), tmp_path / "idx", cache_dir))
    chunks = read_chunks(tmp_path / "idx")
    assert {c.page for c in chunks} <= set(range(1, 13))
    revenue = next(c for c in chunks if "1,175,301,034.32" in c.text)
    assert revenue.page == 5
    index = load_index(tmp_path / "idx", cache_dir)
    page = get_page(index, SIFANG.name, 5)
    assert "营业收入 1,175,301,034.32 1,230,537,181.80 -4.49 1,008,714,515.86" in page.text
    line_texts = [line.text for line in page.lines]
    for text, box in zip(revenue.text.splitlines(), revenue.boxes, strict=True):
        assert text in line_texts and box.page == 5


def test_bad_files_are_named_and_the_rest_indexed(tmp_path: Path, cache_dir: Path) -> None:
    docs = _docs(tmp_path, BROKER)
    (docs / "empty.pdf").write_bytes(b"")
    (docs / "readme.pdf").write_text("not a pdf")
    (docs / "cut.pdf").write_bytes(BESTBUY_10Q.read_bytes()[:30000])
    report = build_index(_settings(docs, tmp_path / "idx", cache_dir))
    reasons = {f.document: f.reason for f in report.failures}
    assert set(reasons) == {"empty.pdf", "readme.pdf", "cut.pdf"}
    assert "empty" in reasons["empty.pdf"] and "not a PDF" in reasons["readme.pdf"]
    assert "damaged" in reasons["cut.pdf"]
    manifest = read_manifest(tmp_path / "idx")
    assert [d.document for d in manifest.documents] == [BROKER.name]
    assert {f.document for f in manifest.failures} == set(reasons)


def test_failed_build_leaves_the_previous_index_intact(tmp_path: Path, cache_dir: Path) -> None:
    index_dir = tmp_path / "idx"
    build_index(_settings(_docs(tmp_path, BROKER), index_dir, cache_dir))
    before = (index_dir / "manifest.json").read_bytes()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bad.pdf").write_text("nope")
    with pytest.raises(FilingsError, match="none of the files could be indexed"):
        build_index(_settings(broken, index_dir, cache_dir))
    assert (index_dir / "manifest.json").read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".idx.building")]  # no staging folder left


def test_rebuild_replaces_the_index_and_reuses_vectors(tmp_path: Path, cache_dir: Path) -> None:
    docs = _docs(tmp_path, BROKER)
    index_dir = tmp_path / "idx"
    first = build_index(_settings(docs, index_dir, cache_dir, embedder=HASHING))
    assert first.reused_vectors == 0 and first.embedded > 0
    shutil.copy(SIFANG, docs / SIFANG.name)
    second = build_index(_settings(docs, index_dir, cache_dir, embedder=HASHING))
    assert second.reused_vectors == first.embedded
    assert second.embedded > first.embedded
    assert {d.document for d in read_manifest(index_dir).documents} == {BROKER.name, SIFANG.name}


def test_an_index_of_the_previous_format_gives_its_vectors_to_the_rebuild(tmp_path: Path, cache_dir: Path) -> None:
    """Schema 2 kept the chunks as JSON lines: the rebuild to the chunk table reads them to reuse the vectors (no
    vector cache here to fall back on), and the new index loads."""
    docs = _docs(tmp_path, BROKER)
    index_dir = tmp_path / "idx"
    first = build_index(_settings(docs, index_dir, cache_dir, embedder=HASHING))
    assert first.embedded > 0
    with (index_dir / "chunks.jsonl").open("w", encoding="utf-8") as handle:
        handle.writelines(chunk.model_dump_json() + "\n" for chunk in read_chunks(index_dir))
    shutil.rmtree(index_dir / "chunk_table")
    manifest = json.loads((index_dir / "manifest.json").read_text())
    (index_dir / "manifest.json").write_text(json.dumps(manifest | {"schema_version": 2}))
    with pytest.raises(IndexLoadError, match="rebuild"):
        load_index(index_dir, cache_dir)
    second = build_index(_settings(docs, index_dir, tmp_path / "empty-cache", embedder=HASHING))
    assert second.reused_vectors == first.embedded and second.computed_vectors == 0
    assert len(load_index(index_dir, cache_dir).chunks) == first.chunks


def test_two_builds_of_the_same_files_write_the_same_files(tmp_path: Path, cache_dir: Path) -> None:
    """A build is reproducible: every file of the index (BM25 vocabularies included) hashes the same, whatever the
    process's string-hash seed (two processes, two seeds)."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    docs = _docs(tmp_path, BROKER, SIFANG)
    for name, seed in (("one", "1"), ("two", "2")):
        command = [sys.executable, "-m", "indexer", "--cache-dir", str(cache_dir), "build", str(docs)]
        command += ["--index", str(tmp_path / name), "--embedder", "none", "--no-progress"]
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run(command, check=True, capture_output=True, cwd=ROOT, env=env, timeout=600)
    first, second = read_manifest(tmp_path / "one").files, read_manifest(tmp_path / "two").files
    assert first == second and any(name.startswith("bm25_bigrams/") for name in first)


def test_a_chunk_table_whose_columns_disagree_is_refused(tmp_path: Path, cache_dir: Path) -> None:
    index_dir = tmp_path / "idx"
    build_index(_settings(_docs(tmp_path, BROKER), index_dir, cache_dir))
    strings = index_dir / "chunk_table" / "strings.json"
    values = json.loads(strings.read_text(encoding="utf-8"))
    strings.write_text(json.dumps(values | {"document": []}), encoding="utf-8")  # every chunk's code now points nowhere
    with pytest.raises(IndexLoadError, match=r"damaged .* rebuild"):
        load_index(index_dir, cache_dir)


def test_unknown_schema_version_is_refused_with_advice(tmp_path: Path, cache_dir: Path) -> None:
    index_dir = tmp_path / "idx"
    build_index(_settings(_docs(tmp_path, BROKER), index_dir, cache_dir))
    manifest = json.loads((index_dir / "manifest.json").read_text())
    manifest["schema_version"] = 99
    (index_dir / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexLoadError, match="rebuild"):
        load_index(index_dir, cache_dir)


def test_missing_index_says_how_to_build_one(tmp_path: Path, cache_dir: Path) -> None:
    with pytest.raises(IndexLoadError, match="filings-index build"):
        load_index(tmp_path / "nothing", cache_dir)


def test_a_killed_builds_staging_folder_is_cleaned_up(tmp_path: Path, cache_dir: Path) -> None:
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    abandoned = tmp_path / f".idx.building-{int(dead.stdout)}-abc123"
    abandoned.mkdir()
    (abandoned / OWNER_MARK).write_text("")  # as staging_folder() leaves it
    (abandoned / "chunks.jsonl").write_text("partial")
    running = tmp_path / f".idx.building-{os.getpid()}-def456"
    running.mkdir()
    (running / OWNER_MARK).write_text("")
    not_ours = tmp_path / f".idx.building-{int(dead.stdout)}-xyz789"  # the same name, but no mark: not touched
    not_ours.mkdir()
    build_index(_settings(_docs(tmp_path, BROKER), tmp_path / "idx", cache_dir))
    assert not abandoned.exists() and running.exists() and not_ours.exists()


def _kept(chunk: StoredChunk) -> tuple[str, int, str, str | None]:
    return chunk.chunk_id, chunk.page, chunk.text, chunk.section


def test_rebuild_after_adding_a_file_parses_and_embeds_only_that_file(tmp_path: Path, cache_dir: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(SIFANG, docs / SIFANG.name)
    index_dir = tmp_path / "index"
    settings = BuildSettings(docs_dir=docs, index_dir=index_dir, progress=False, cache_dir=cache_dir)
    first = build_index(settings)
    assert first.reused_documents == 0 and first.reused_vectors == 0
    before = load_index(index_dir, cache_dir)
    question = "四方科技 2019年 总资产"
    hits_before = [(h.chunk_id, h.page, h.content) for h in hits_for(KnowledgeBase(before), question, top_k=5)]

    shutil.copy(BROKER, docs / BROKER.name)
    second = build_index(settings)
    assert second.reused_documents == 1  # the unchanged file's pages come from the index, not a parse
    assert second.reused_vectors == first.embedded  # its chunks are not embedded again
    after = load_index(index_dir, cache_dir)
    broker_embedded = sum(1 for row in after.storage.dense.rows if after.chunks[row].document == BROKER.name)
    assert broker_embedded > 0 and second.embedded - second.reused_vectors == broker_embedded
    sifang_only = glob.escape(SIFANG.name)
    hits_after = [
        (h.chunk_id, h.page, h.content)
        for h in hits_for(KnowledgeBase(after), question, top_k=5, documents=sifang_only)
    ]
    # the unchanged file's chunks are the same; its ranking moves only as far as the new file's words move BM25's
    # IDF (near ties may swap places), so the best page and the set of pages are compared
    assert [_kept(c) for c in after.chunks if c.document == SIFANG.name] == [_kept(c) for c in before.chunks]
    assert hits_after[0][1] == hits_before[0][1]
    assert sorted(page for _, page, _ in hits_after) == sorted(page for _, page, _ in hits_before)

    (docs / SIFANG.name).write_bytes(SIFANG.read_bytes() + b"\n% appended\n")  # changed bytes: parsed again
    third = build_index(settings)
    assert third.reused_documents == 1  # only the broker note is unchanged now


def test_a_loaded_index_holds_every_chunk_s_boxes_apart_and_unchanged(samples_index_dir: Path, cache_dir: Path) -> None:
    stored = read_chunks(samples_index_dir)
    index = load_index(samples_index_dir, cache_dir)
    assert len(index.chunks) == len(stored) > 100
    for row, chunk in enumerate(stored):
        assert index.chunks.boxes(row) == chunk.boxes and chunk.boxes
        assert index.chunks[row].model_dump(exclude={"boxes"}) == chunk.model_dump(exclude={"boxes"})


def test_a_page_s_tables_read_alone_equal_those_of_the_whole_page(samples_index_dir: Path) -> None:
    folder = samples_index_dir.resolve()
    with_tables = 0
    for meta in read_manifest(folder).documents:
        for number in range(1, meta.pages + 1):
            whole = read_page(folder, meta, number)
            alone = read_page(folder, meta, number, model=PageTables)
            assert alone.number == number and alone.tables == whole.tables
            with_tables += bool(whole.tables)
    assert with_tables >= 10  # the samples' statements, key-data tables and the broker note's forecasts


def test_a_backslash_in_a_file_name_is_escaped_not_fatal(tmp_path: Path, cache_dir: Path) -> None:
    """A backslash is legal in a Linux file name; one once failed the whole build with a validation traceback. The
    file is indexed under its name with the backslash as %5C."""
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(SIFANG, docs / "report\\2019.pdf")
    shutil.copy(BESTBUY_10Q, docs / "plain.pdf")
    report = build_index(_settings(docs, tmp_path / "idx", cache_dir))
    assert report.published and not report.failures
    index = load_index(tmp_path / "idx", cache_dir)
    assert sorted(index.documents) == ["plain.pdf", "report%5C2019.pdf"]
    assert "营业收入" in get_page(index, "report%5C2019.pdf", 5).text
