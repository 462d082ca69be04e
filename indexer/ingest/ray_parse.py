"""Parsing on Ray (``build --ray``): each PDF is parsed by a Ray task — LiteParse in that task's worker, under the
same time and memory budget as here — while this process describes and chunks the files in order.

An unchanged file's pages still come from the previous index, and an HTML filing is still converted here (its PDF
is kept in the index), so only the parse itself travels. On a cluster every node must see the files at the same
path (a shared folder) and have filings-mcp installed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from indexer.core.models import Page
from indexer.ingest.chunk import ChunkSettings
from indexer.ingest.documents import read_pdf
from indexer.ingest.parse import PdfParser
from indexer.ingest.settings import BuildSettings


def parse_file(path: str, password: str | None, options: dict[str, Any], chunking: ChunkSettings) -> list[Page]:
    """One PDF's pages with their furniture marked and their tables: what a build reads from a file."""
    with PdfParser(**options) as parser:
        return read_pdf(parser, Path(path), password, chunking)


class _Remote:
    """A Ray task's result with a future's ``result()`` (a task's error is raised as the error it was)."""

    def __init__(self, ray: Any, ref: Any) -> None:
        self._ray, self._ref = ray, ref

    def result(self) -> list[Page]:
        return self._ray.get(self._ref)  # type: ignore[no-any-return]


class RayParsing:
    """Submits PDF parses to Ray; ``slots`` is how many files to keep in flight (the cluster's CPUs)."""

    def __init__(self, settings: BuildSettings) -> None:
        from indexer.index.ray_embedder import start_ray

        assert settings.ray is not None
        self._ray = start_ray(settings.ray)
        self._task = self._ray.remote(num_cpus=1, max_retries=0)(parse_file)
        self._options = settings.parser_options()
        self._chunking = settings.chunking
        self.slots = max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    def submit(self, pdf: Path, password: str | None) -> _Remote:
        """Parse ``pdf`` on Ray; the pages come with ``result()``."""
        return _Remote(self._ray, self._task.remote(str(pdf.resolve()), password, self._options, self._chunking))
