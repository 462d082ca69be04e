"""A printed line of a table cut into its label and its figures, with the spans' boxes (pure geometry)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

from indexer.core.figures import DASH, is_value
from indexer.core.models import Box, Line, Span

_CURRENCY = re.compile(r"^[$¥€£]$")
_YEAR = re.compile(r"^(?:19|20)\d\d[AEFP]?$")  # 2021, or a year marked actual or forecast (2022E, 2023F)
INNER_LABEL_LETTERS = 3  # a second table's label has words ('EBIT', '所得税'); 'N/A' or '5.15 years' is a cell
_MARKED_YEAR = re.compile(r"^(?:19|20)\d\d[AEFP]$")


@dataclass
class LineSplit:
    """A line cut into its label (spans left of the first figure) and its figures (a currency sign kept)."""

    line: Line
    label: list[Span]
    values: list[tuple[str, list[Span]]]
    after: list[Span] = field(default_factory=list)  # text spans between figures (not part of the row's label)

    @property
    def header_like(self) -> bool:
        """A header row of years: only years and no label ('2019  2018  2017'), or a title then consecutive years
        ('主要财务指标  2021  2022E  2023E', 'Years ended  2023  2022')."""
        if not all(_YEAR.match(text) for text, _ in self.values):
            return False
        if not self.label:
            return True
        years = [int(text[:4]) for text, _ in self.values]
        steps = {b - a for a, b in pairwise(years)}
        return len(years) >= 2 and steps in ({1}, {-1})

    @property
    def inner_label(self) -> Span | None:
        """The first text printed after this line's figures and before more of them: where a second table printed
        beside the first begins ('每股收益 1.07 2.91 | 营业成本 1,038 2,394')."""
        first = self.after[0].text.strip() if self.after else ""
        words = sum(char.isalpha() for char in first)  # a label's words, not a figure with its unit ('5.15 years')
        return self.after[0] if first[:1].isalpha() and words >= INNER_LABEL_LETTERS else None


# A figure a parser may have merged into one text run with its label ('Net Revenue $ 86,392 $ 79,474 $'): thousands
# separators, decimals or brackets — never a bare number such as a year in 'Notes due 2025'.
_BARE = re.compile(r"^\(?\d+\)?$")
_MERGED_FIGURE = re.compile(r"^\(?[$¥€£]?\(?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+)\)?$")


def _pieces(span: Span) -> list[Span]:
    """A text run whose trailing words are figures ('Net Revenue $ 86,392 $ 79,474 $', '86,392 $') split into its
    label and each figure, each piece boxed by its share of the characters. Figures inside a label ('… 217.9 million
    shares, respectively') stay where they are."""
    tokens = list(re.finditer(r"\S+", span.text))

    def figure(k: int) -> bool:  # a figure as printed, or a plain number beside a currency sign ('$ (660)', '(660) $')
        beside = [tokens[j].group() for j in (k - 1, k + 1) if 0 <= j < len(tokens)]
        text = tokens[k].group()
        if DASH.match(text):  # a nil figure printed as a dash beside a currency sign ('- $' over two columns)
            return any(_CURRENCY.match(b) for b in beside) or (k > 0 and figure(k - 1))
        return bool(_MERGED_FIGURE.match(text) or (_BARE.match(text) and any(_CURRENCY.match(b) for b in beside)))

    start = len(tokens)
    while start > 0 and (figure(start - 1) or _CURRENCY.match(tokens[start - 1].group())):
        start -= 1
    if len(tokens) < 2 or not any(figure(k) for k in range(start, len(tokens))):
        return [span]
    groups = ([tokens[:start]] if start else []) + [[token] for token in tokens[start:]]
    width, length = span.box.x1 - span.box.x0, max(len(span.text), 1)
    return [
        Span(
            text=span.text[g[0].start() : g[-1].end()],
            box=Box(
                page=span.box.page,
                top=span.box.top,
                bottom=span.box.bottom,
                x0=span.box.x0 + width * g[0].start() / length,
                x1=span.box.x0 + width * g[-1].end() / length,
            ),
        )
        for g in groups
    ]


def split_line(line: Line) -> LineSplit:
    label: list[Span] = []
    values: list[tuple[str, list[Span]]] = []
    after: list[Span] = []
    pending: list[Span] = []  # a currency sign waiting for its figure
    for span in [piece for printed in line.spans for piece in _pieces(printed)]:
        if _CURRENCY.match(span.text.strip()):
            pending.append(span)
        elif is_value(span.text) or _MARKED_YEAR.match(span.text.strip()):
            prefix = "".join(s.text.strip() for s in pending)
            values.append((prefix + span.text.strip(), [*pending, span]))
            pending = []
        elif not values:
            label.extend(pending)
            label.append(span)
            pending = []
        elif span.text.strip():
            after.append(span)
    if after:  # only text printed between figures, not a note after the last one
        after = [span for span in after if span.box.x0 < values[-1][1][-1].box.x0]
    return LineSplit(line, label, values, after)
