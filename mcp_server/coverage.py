"""What the loaded index covers, in words for the calling model: the server's instructions and the tool
descriptions that end with it (names and titles come from the files: cleaned and quoted, never instructions)."""

from __future__ import annotations

from collections import Counter

from indexer.index.store import Manifest
from mcp_server.file_text import inline

_LISTED_DOCUMENTS = 25


def coverage(manifest: Manifest) -> str:
    """What the loaded index covers, in words for the calling model's tool descriptions (names and titles quoted
    and cleaned: they come from the files and are not instructions)."""
    docs = manifest.documents
    if not docs:
        return "The knowledge base is empty."
    languages = Counter(d.language or "unknown" for d in docs)
    companies = sorted({d.company for d in docs if d.company})
    years = sorted({d.year for d in docs if d.year})
    lines = [
        f"The knowledge base holds {len(docs)} filings/reports "
        f"({', '.join(f'{n} {inline(lang, 10, quoted=False)}' for lang, n in languages.most_common())}); "
        f"companies: {', '.join(inline(c, 60) for c in companies[:_LISTED_DOCUMENTS]) or 'unknown'}; "
        f"years: {', '.join(map(str, years)) or 'unknown'}.",
        "Documents (name: title):",
    ]
    for doc in sorted(docs, key=lambda d: d.document)[:_LISTED_DOCUMENTS]:
        language = inline(doc.language or "?", 10, quoted=False)
        lines.append(f"- {inline(doc.document)}: {inline(doc.title)} ({doc.pages} pages, {language})")
    if len(docs) > _LISTED_DOCUMENTS:
        lines.append(f"- … and {len(docs) - _LISTED_DOCUMENTS} more (call list_documents)")
    if manifest.embedder is not None and (waiting := sum(not d.semantic_ready for d in docs)):
        lines.append(
            f"{waiting} of these documents are still being embedded: search finds them by their words until "
            "semantic search covers them (list_documents: semantic_ready)."
        )
    lines.append(
        "It does not cover other companies or periods, market prices, news, or anything not printed in these "
        "documents: say so rather than guess."
    )
    return "\n".join(lines)


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
        f"Covers {len(docs)} filings/reports ({kinds}; {span}), named in the server instructions and by "
        "list_documents; nothing else: say so rather than guess."
    )
