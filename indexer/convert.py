"""HTML filings (EDGAR's usual format) → PDF, so that they go through the same pipeline as any PDF: pages, boxes,
get_page, locate_quote and render_page all refer to the converted PDF, which the index keeps.

The converter is WeasyPrint (chosen by measurement on the recorded EDGAR filings; see the README). It runs
offline: only files beside the HTML may be loaded (images of the filing); anything on the network is refused.
"""

from __future__ import annotations

import logging
import urllib.parse
import urllib.request
from pathlib import Path

from indexer.errors import DocumentError

logger = logging.getLogger(__name__)

HTML_SUFFIXES = frozenset({".htm", ".html"})
# SEC filings are laid out for US Letter; small margins keep wide statement tables on the page.
PAGE_CSS = "@page { size: letter; margin: 0.5in; }"


def is_html(path: Path) -> bool:
    return path.suffix.lower() in HTML_SUFFIXES


def _local_fetcher(root: Path):  # type: ignore[no-untyped-def]
    """A WeasyPrint URL fetcher for files under ``root`` and data: URLs only (nothing from the network)."""
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
