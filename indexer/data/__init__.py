"""The indexer's data files (word lists, the glossary, question routes, concepts …), read by name."""

from __future__ import annotations

import hashlib
from importlib import resources

# The files a build reads, and what each holds: the index is made with them. The others are read when a question is
# answered (the glossary, routes, concepts, XBRL tags, judgements, generic words): a change to them changes answers
# but not the index.
INDEX_TIME = {
    "finance_words.txt": "the words jieba keeps whole",
    "stopwords_en.txt": "the English stopwords",
    "stopwords_zh.txt": "the Chinese stopwords",
    "brokers.txt": "the brokers a research note is told by",
}


def data_lines(name: str) -> list[str]:
    """The lines of data file ``name`` that hold something, each stripped: blank lines and ``#`` comments left out."""
    text = resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def vocabulary() -> dict[str, str]:
    """Each data file's name and the first 16 hex digits of its sha256: what a manifest records of the words a build
    and a server read, so that an index built with other words is told apart."""
    files = resources.files(__name__)
    return {
        entry.name: hashlib.sha256(entry.read_bytes()).hexdigest()[:16]
        for entry in sorted(files.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".txt")
    }
