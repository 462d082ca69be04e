"""The indexer's data files: the domain's vocabulary (``vocabulary.toml``, read by :mod:`indexer.data.vocabulary`)
and plain word lists (stopwords, brokers, generic query words), read by name."""

from __future__ import annotations

import hashlib
import json
from importlib import resources

# The parts of the data a build reads, and what each holds: the index is made with them. The rest is read when a
# question is answered (concepts, terms, routes, judgements, generic words): a change there changes answers, not
# the index. The words jieba keeps whole (each concept's `keep_whole`) are index-time too: the tokenizer's
# `user_words_sha256` stands for them.
STATEMENTS = "vocabulary.toml:statements"  # the statements' and the sections' tables (the key predates sections)
INDEX_TIME = {
    STATEMENTS: "the statements' and sections' titles and rows, which label the pages",
    "stopwords_en.txt": "the English stopwords",
    "stopwords_zh.txt": "the Chinese stopwords",
    "brokers.txt": "the brokers a research note is told by",
}


def data_lines(name: str) -> list[str]:
    """The lines of data file ``name`` that hold something, each stripped: blank lines and ``#`` comments left out."""
    text = resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def digests() -> dict[str, str]:
    """Each data file's name and the first 16 hex digits of its sha256: what a manifest records of the words a build
    and a server read, so that an index built with other words is told apart."""
    from indexer.data.vocabulary import vocabulary

    files = resources.files(__name__)
    found = {
        entry.name: hashlib.sha256(entry.read_bytes()).hexdigest()[:16]
        for entry in sorted(files.iterdir(), key=lambda e: e.name)
        if entry.name.endswith((".txt", ".toml"))
    }
    # what labels pages at index time (the parent company's titles are read at query time, from a page's heading)
    words = vocabulary().model_dump(
        include={"statement_titles": {"before", "before_zh"}, "statements": True, "sections": True}
    )
    found[STATEMENTS] = hashlib.sha256(json.dumps(words, sort_keys=True).encode()).hexdigest()[:16]
    return found
