"""The table row shown with a hit: of the rows the table-row BM25 ranked on the hit's page, the best whose own
label answers the question — not a row that matched only through its table's title, its column headers, a period
or the company's name."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from indexer.core.docmatch import without_legal_form
from indexer.core.models import Box, Cell, StoredChunk
from indexer.index.reader import LoadedIndex, get_page_tables


class RowEvidence(BaseModel):
    """The table row on a hit's page that best matches the query, its figures under their column headers."""

    text: str = Field(description="title | label | header: figure | … — the row with its headers, quotable")
    label: str
    cells: list[Cell]
    boxes: list[Box] = Field(serialization_alias="bboxes", description="the row's label and cells")


def remember_rows(index: LoadedIndex, rows: list[int], best: dict[tuple[str, int], dict[int, int]], keep: int) -> None:
    """Remember each page's best-ranked table rows ({row: rank}), to show one with a hit on that page."""
    for rank, row in enumerate(rows, start=1):
        ranks = best.setdefault((index.chunks.document(row), index.chunks.page(row)), {})
        if rank < ranks.get(row, rank + 1):
            ranks[row] = rank
            if len(ranks) > keep:
                del ranks[max(ranks, key=ranks.__getitem__)]


MAX_NAMED_DOCUMENTS = 20  # a scope wider than this names no company in particular

# Tokens that name a period: a row that shares only these with a question ("2023 | …") answers nothing.
_PERIOD_TOKEN = re.compile(
    r"^(?:(?:19|20)\d{2}|fy\d{2,4}|q[1-4]|h[12]|[1-4]q\d{2}|\d{2,4}年|.*季度|年度|半年度|年末|期末|"
    r"quarter|year|month|week|fiscal|period|end|ytd)$"
)


def is_period_token(token: str) -> bool:
    return bool(_PERIOD_TOKEN.match(token))


def matching_row(index: LoadedIndex, candidates: dict[int, int] | None, wanted: set[str]) -> RowEvidence | None:
    """Of the candidate rows whose own label shares a term with the question (a period does not count), the one
    sharing the most, then the one whose label is most made of them, then the best-ranked: "Comparable sales" over
    "Pacific Sales" for a question about comparable sales; a row that matched only through its table's title or
    column headers ("Revenue Mix … | Other | 2 %"), or only by a year, or whose cells are prose, is not evidence."""
    terms = {t for t in wanted if not is_period_token(t)}
    best: tuple[tuple[int, float, int], RowEvidence] | None = None
    for row, rank in (candidates or {}).items():
        evidence = row_evidence(index, index.chunks[row])
        if evidence is None or not figures_row(evidence.cells):
            continue
        label = set(index.tokenizer.tokenize(evidence.label))
        shared = len(terms & label)
        # most terms shared, then the label most made of them ("Revenue" over "Net income attributable to …" for
        # "net sales", whose expansion says revenue), then the best-ranked
        key = (shared, shared / len(label) if label else 0.0, -rank)
        if shared and (best is None or key > best[0]):
            best = (key, evidence)
    return best[1] if best else None


MAX_CELL_CHARS = 40  # a figure as printed, with its sign, unit and footnote marks


def figures_row(cells: list[Cell]) -> bool:
    """Whether a row's cells are figures (each short, with a digit, or a dash for none): a line of prose the
    table reader took for a row ("Total | The decrease in revenue … was primarily driven by …") is no row."""
    return bool(cells) and all(
        len(cell.text) <= MAX_CELL_CHARS and (any(c.isdigit() for c in cell.text) or cell.text.strip() in "-–—")
        for cell in cells
    )


def name_tokens(index: LoadedIndex, scope: list[str] | None) -> set[str]:
    """Tokens of the names of the companies in scope: in a table row they match nothing useful (a 'Best Buy'
    row of a store count table is not evidence for a question about Best Buy's cost of sales)."""
    names = scope if scope is not None else list(index.documents)
    if len(names) > MAX_NAMED_DOCUMENTS:
        return set()
    text = " ".join(
        " ".join(filter(None, (m.company, m.english_name, *m.tickers))) for m in (index.documents[n] for n in names)
    )
    return set(index.tokenizer.tokenize(text))


def scoped_name_tokens(index: LoadedIndex, scope: list[str]) -> set[str]:
    """Tokens of the names of the companies a search is scoped to, without their legal forms ("international",
    "company", "group" still say something of a page): within those filings they tell no page from another."""
    if len(scope) > MAX_NAMED_DOCUMENTS:
        return set()
    metas = [index.documents[n] for n in scope]
    text = " ".join(without_legal_form(n) for m in metas for n in (m.company, m.english_name, *m.tickers) if n)
    return set(index.tokenizer.tokenize(text))


def row_evidence(index: LoadedIndex, row: StoredChunk) -> RowEvidence | None:
    """A table-row chunk's cells, from its page's tables (kept there, not in memory with every chunk)."""
    if row.table_ref is None:
        return None
    table, number = row.table_ref
    tables = get_page_tables(index, row.document, row.page)
    if table >= len(tables) or number >= len(tables[table].rows):
        return None
    cells = tables[table].rows[number]
    return RowEvidence(text=row.text, label=cells.label, cells=cells.cells, boxes=cells.boxes)
