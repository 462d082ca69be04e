"""HTML filings (EDGAR's usual format) → PDF, so that they go through the same pipeline as any PDF: pages, boxes,
get_page, locate_quote and render_page all refer to the converted PDF, which the index keeps.

The converter is WeasyPrint (chosen by measurement on the recorded EDGAR filings; see the README). It runs
offline: only files beside the HTML may be loaded (images of the filing); anything on the network is refused.
In a build it runs in a worker process (``python -m indexer.ingest.convert``) under the same per-file deadline and
memory watchdog as a parse: a huge or hostile HTML file costs that file, not the build.
"""

from __future__ import annotations

import contextlib
import json
import logging
import subprocess
import sys
import urllib.parse
import urllib.request
import warnings
from collections.abc import Iterator
from pathlib import Path

from indexer.core.errors import DocumentError
from indexer.core.workers import PYTHON_ISOLATED
from indexer.ingest.memory_guard import MemoryGuard

logger = logging.getLogger(__name__)

HTML_SUFFIXES = frozenset({".htm", ".html"})
# SEC filings are laid out for US Letter; small margins keep wide statement tables on the page.
PAGE_CSS = "@page { size: letter; margin: 0.5in; }"


def is_html(path: Path) -> bool:
    return path.suffix.lower() in HTML_SUFFIXES


@contextlib.contextmanager
def _quiet_import() -> Iterator[None]:
    """WeasyPrint warns "HarfBuzz-Subset will be required…" on import: about the system, not the filing."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*HarfBuzz-Subset", category=DeprecationWarning)
        yield


def _local_fetcher(root: Path):  # type: ignore[no-untyped-def]
    """A WeasyPrint URL fetcher for files under ``root`` and data: URLs only (nothing from the network)."""
    with _quiet_import():
        from weasyprint.urls import URLFetcher

    allowed = root.resolve()

    class LocalFetcher(URLFetcher):  # type: ignore[misc]
        def fetch(self, url: str, headers: object = None) -> object:
            if url.lower().startswith("file:"):
                path = Path(urllib.request.url2pathname(urllib.parse.urlparse(url).path)).resolve()
                if path != allowed and allowed not in path.parents:
                    raise ValueError(f"not loaded (outside the filing's folder): {url}")
            return super().fetch(url, headers)

    return LocalFetcher(allowed_protocols=("file", "data"))


def html_to_pdf(html: Path, pdf: Path) -> int:
    """Write ``html`` as a PDF at ``pdf``; return its page count. Raises :class:`DocumentError` with a reason."""
    try:
        with _quiet_import():
            import weasyprint
    except (ImportError, OSError) as exc:  # missing package, or Pango missing on this system
        raise DocumentError(
            html.name,
            f"is HTML and cannot be converted here ({exc}); run `make install` (it installs WeasyPrint and, "
            "on Debian, Pango)",
        ) from exc
    try:
        if html.stat().st_size == 0:
            raise DocumentError(html.name, "is empty (0 bytes); download it again")
        # WeasyPrint logs every image it may not load (we refuse the network) as an error: keep that quiet
        quiet = logging.getLogger("weasyprint")
        level = quiet.level
        quiet.setLevel(logging.CRITICAL)
        try:
            source = weasyprint.HTML(filename=str(html), url_fetcher=_local_fetcher(html.parent))
            document = source.render(stylesheets=[weasyprint.CSS(string=PAGE_CSS)])
        finally:
            quiet.setLevel(level)
        if not document.pages:
            raise DocumentError(html.name, "is HTML without any content to print")
        document.write_pdf(str(pdf))
    except DocumentError:
        raise
    except Exception as exc:  # WeasyPrint raises many kinds; each is a bad document, not a crash
        raise DocumentError(html.name, f"could not be converted from HTML to PDF ({exc})") from exc
    return len(document.pages)


def convert_in_worker(html: Path, pdf: Path, timeout: float, guard: MemoryGuard) -> int:
    """:func:`html_to_pdf` in a worker process, stopped at ``timeout`` seconds or by ``guard`` (memory)."""
    command = [*PYTHON_ISOLATED, "-m", "indexer.ingest.convert", str(html), str(pdf)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as worker:
        try:
            out, _ = worker.communicate(timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            worker.kill()
            worker.communicate()
            raise DocumentError(
                html.name,
                f"took longer than {timeout:g}s to convert from HTML and was stopped; split it or raise "
                "--parse-timeout",
            ) from exc
    if worker.pid in guard.killed:
        raise DocumentError(
            html.name,
            f"needed more than {guard.limit_mb:g} MB of memory to convert from HTML and was stopped; split it or "
            "raise --max-parse-memory",
        )
    try:
        answer = json.loads(out.strip().splitlines()[-1])
    except (IndexError, ValueError) as exc:
        raise DocumentError(
            html.name, f"could not be converted from HTML (the converter exited with {worker.returncode})"
        ) from exc
    if "reason" in answer:
        raise DocumentError(html.name, str(answer["reason"]))
    return int(answer["pages"])


def _worker(argv: list[str]) -> int:
    """The conversion worker: converts one file and answers one line of JSON (pages, or the reason it failed)."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    html, pdf = Path(argv[0]), Path(argv[1])
    try:
        answer: dict[str, object] = {"pages": html_to_pdf(html, pdf)}
    except DocumentError as exc:
        answer = {"reason": exc.reason}
    print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(_worker(sys.argv[1:]))
