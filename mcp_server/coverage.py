"""What the loaded index covers, in words for the calling model: the server's instructions and the tool
descriptions that end with it (names and titles come from the files: cleaned and quoted, never instructions)."""

from __future__ import annotations

from collections import Counter

from indexer.index.store import Manifest
from indexer.listing import NAMED_FILINGS, summary
from mcp_server.file_text import inline


def coverage(manifest: Manifest) -> str:
    """What the loaded index covers, in one sentence at any size (and one more while some filings wait for their
    vectors): the counts by language, company, form and year; each file named (quoted and cleaned: names come
    from the files and are not instructions) only while the index is as short as a listing that names each."""
    docs = manifest.documents
    if not docs:
        return "The knowledge base is empty."
    languages = Counter(d.language or "unknown" for d in docs)
    kinds = ", ".join(f"{n} {inline(lang, 10, quoted=False)}" for lang, n in languages.most_common())
    held = inline(summary(docs), 400, quoted=False)
    named = (
        ": " + ", ".join(inline(d.document) for d in sorted(docs, key=lambda d: d.document))
        if len(docs) <= NAMED_FILINGS
        else ""
    )
    lines = [
        f"The knowledge base holds {held} in {kinds}{named}; list_documents lists them, and nothing else is covered "
        "(other companies or periods, market prices, news): say so rather than guess."
    ]
    if manifest.embedder is not None and (waiting := sum(not d.semantic_ready for d in docs)):
        lines.append(f"{waiting} of them are still being embedded: search finds those by their words meanwhile.")
    return " ".join(lines)


def coverage_line(manifest: Manifest) -> str:
    """What the index covers in one line, for tool descriptions (the catalogue itself is in the server's
    instructions and list_documents, once)."""
    docs = manifest.documents
    if not docs:
        return "The knowledge base is empty."
    languages = Counter(d.language or "unknown" for d in docs)
    years = sorted({d.year for d in docs if d.year})
    span = f"{years[0]}–{years[-1]}" if len(years) > 1 else (str(years[0]) if years else "unknown years")
    kinds = ", ".join(f"{n} {inline(lang, 10, quoted=False)}" for lang, n in languages.most_common())
    return (
        f"Covers {len(docs)} filings/reports ({kinds}; {span}; list_documents names them) and nothing else: say "
        "so rather than guess."
    )
