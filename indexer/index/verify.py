"""`filings-index verify`: is an index folder complete and unchanged since it was built?"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from indexer.core.errors import FilingsError
from indexer.index.engines import engine_of
from indexer.index.layout import MANIFEST, version_folder
from indexer.index.reader import load_index
from indexer.index.store import index_files, read_manifest, read_pages, sha256_file


class Finding(BaseModel):
    path: str = Field(description="the file, relative to the index folder ('' for the index as a whole)")
    problem: str


class Verification(BaseModel):
    index: str
    files_checked: int = 0
    problems: list[Finding] = Field(default_factory=list)
    notes: list[Finding] = Field(default_factory=list, description="not errors: e.g. files that are not the index's")

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_index(folder: Path, cache_dir: Path) -> Verification:
    """Check every file against the hash in the manifest, then load the index and read every page."""
    report = Verification(index=str(folder))
    spelled = version_folder(folder)  # as the index was spelled: its Milvus prefix is made from its path
    folder = spelled.resolve()  # one version, even if a build publishes another meanwhile
    try:
        manifest = read_manifest(folder)
    except FilingsError as exc:
        report.problems.append(Finding(path=MANIFEST, problem=str(exc)))
        return report
    if not manifest.files:
        report.problems.append(
            Finding(path=MANIFEST, problem="no file hashes (built by an older version); rebuild to verify it")
        )
    for name, expected in sorted(manifest.files.items()):
        path = folder / name
        if not path.is_file():
            report.problems.append(Finding(path=name, problem="missing; rebuild the index"))
            continue
        report.files_checked += 1
        if sha256_file(path) != expected:
            report.problems.append(Finding(path=name, problem="changed since the build (damaged?); rebuild the index"))
    for name in index_files(folder):
        if manifest.files and name not in manifest.files:
            report.notes.append(Finding(path=name, problem="not part of the index (ignored)"))
    if report.problems:
        return report
    try:
        index = load_index(spelled, cache_dir, with_embedder=False)
        for meta in index.documents.values():
            if len(read_pages(folder, meta)) != meta.pages:
                report.problems.append(Finding(path=meta.document, problem="page count differs from the manifest"))
        engine = engine_of(manifest.storage)
        for what, problem in engine.verify(index.storage, index.chunks, manifest.embedded_chunks):
            report.problems.append(Finding(path=what, problem=problem))
    except FilingsError as exc:
        report.problems.append(Finding(path="", problem=str(exc)))
    return report
