"""The files a build indexes: a folder's filings (links that lead out of it skipped and named), the files given to
`add`, and the documents an existing index holds (from the files it stores)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from indexer.core.errors import FilingsError
from indexer.core.models import document_name
from indexer.index.store import pdf_file, read_manifest, source_file
from indexer.ingest.convert import HTML_SUFFIXES

DOCUMENT_SUFFIXES = frozenset({".pdf"}) | HTML_SUFFIXES


@dataclass(frozen=True)
class Source:
    """A file to index under a document name (unique within the index)."""

    name: str
    path: Path


@dataclass
class Found:
    """The filings found under a folder, and the links there that lead out of it (not followed, not indexed)."""

    sources: list[Source] = field(default_factory=list)
    links_out: list[str] = field(default_factory=list)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def folder_sources(docs_dir: Path, follow_links: bool = False) -> Found:
    """PDF and HTML filings under ``docs_dir``, recursively, named by their path relative to it.

    A file or folder reached through a symbolic link that leads outside ``docs_dir`` is skipped and named (a link
    in a downloaded corpus could otherwise put /etc/passwd into the index) unless ``follow_links``; links that stay
    inside are not followed either (what they point at is found where it is)."""
    if not docs_dir.is_dir():
        raise FilingsError(f"{docs_dir} is not a folder; pass the folder that holds your filings (PDF or HTML)")
    root = docs_dir.resolve()
    found = Found()
    seen: set[Path] = set()
    for folder, folders, names in os.walk(docs_dir, followlinks=follow_links):
        here = Path(folder)
        real = here.resolve()
        if real in seen:  # a link loop, with --follow-links
            folders[:] = []
            continue
        seen.add(real)
        for name in sorted(folders):
            link = here / name
            if not follow_links and link.is_symlink() and not _inside(link.resolve(), root):
                found.links_out.append(link.relative_to(docs_dir).as_posix() + "/")
        for name in sorted(names):
            path = here / name
            if path.suffix.lower() not in DOCUMENT_SUFFIXES or not path.is_file():
                continue
            relative = path.relative_to(docs_dir).as_posix()
            if not follow_links and path.is_symlink() and not _inside(path.resolve(), root):
                found.links_out.append(relative)
                continue
            found.sources.append(Source(document_name(relative), path))
    found.sources.sort(key=lambda source: source.name)
    found.links_out.sort()
    return found


def index_sources(index_dir: Path) -> list[Source]:
    """The documents of an existing index, from the files it stores (so `add`/`remove` need no source folder)."""
    manifest = read_manifest(index_dir)
    return [
        Source(
            meta.document, source_file(index_dir, meta) if meta.source_format == "html" else pdf_file(index_dir, meta)
        )
        for meta in manifest.documents
    ]


def sources_to_add(paths: list[Path], follow_links: bool = False) -> Found:
    """Files and folders given to `add`: a file is named by its file name, a folder's PDFs by their path in it
    (links out of a folder are skipped and named; a file named on the command line is taken as given)."""
    found = Found()
    for path in paths:
        if path.is_dir():
            inside = folder_sources(path, follow_links)
            found.sources.extend(inside.sources)
            found.links_out.extend(f"{path.name}/{link}" for link in inside.links_out)
        elif path.is_file():
            if path.suffix.lower() not in DOCUMENT_SUFFIXES:
                raise FilingsError(f"{path} is not a PDF or HTML filing; pass .pdf, .htm or .html files")
            found.sources.append(Source(document_name(path.name), path))
        else:
            raise FilingsError(f"{path} does not exist; pass PDF files or folders that hold them")
    return found


def links_note(found: Found) -> str:
    if not found.links_out:
        return ""
    return f" (links leading out of it were skipped: {', '.join(found.links_out[:5])}; --follow-links indexes them)"
