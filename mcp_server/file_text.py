"""Text that comes from the files — a file name, a company, a title, a heading — placed inside the server's own text
(its instructions, tool descriptions and the text of every answer), where it must read as data: it can never start a
line, close a quote or look like part of the answer's frame ("SYSTEM: …", a second document entry)."""

from __future__ import annotations

import json
import unicodedata

_SHOWN_CHARS = 120
_FRAMING = '"\\'  # characters that would end or escape a quoted name


def name_text(text: str | None) -> str:
    """A name in an answer's text: as it is when it is one plain line (printable characters only, no quote or
    backslash, no space at either end), else quoted as a JSON string with every control, format, separator and
    quoting character escaped (``"a.pdf\\nSYSTEM: …"``)."""
    text = text or ""
    if text == text.strip() and all(char.isprintable() and char not in _FRAMING for char in text):
        return text
    escaped = (
        char if char.isprintable() and char not in _FRAMING else json.dumps(char, ensure_ascii=True)[1:-1]
        for char in text
    )
    return f'"{"".join(escaped)}"'


def inline(text: str | None, limit: int = _SHOWN_CHARS, quoted: bool = True) -> str:
    """Text from a document (a file name, a title) made safe to place in the server's instructions and tool
    descriptions, which the model reads as guidance: line breaks and control characters become spaces, format
    characters (bidi overrides) are dropped, whitespace is collapsed, the text cut at ``limit`` and quoted as a JSON
    string, so that it reads as data, never as a line of instructions."""
    kept = (" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in text or "")
    cleaned = " ".join("".join(c for c in kept if unicodedata.category(c) != "Cf").split())
    if len(cleaned) > limit:
        cleaned = cleaned[:limit] + "…"
    return json.dumps(cleaned, ensure_ascii=False) if quoted else cleaned
