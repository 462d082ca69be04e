"""The indexer's data files (word lists, the glossary, question routes, concepts …), read by name."""

from __future__ import annotations

from importlib import resources


def data_lines(name: str) -> list[str]:
    """The lines of data file ``name`` that hold something, each stripped: blank lines and ``#`` comments left out."""
    text = resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
