"""A printed line of a table cut into its label and its figures, with the spans' boxes (pure geometry)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexer.core.figures import DASH, is_value
from indexer.core.models import Box, Line, Span

_CURRENCY = re.compile(r"^[$¥€£]$")
_YEAR = re.compile(r"^(?:19|20)\d\d$")


@dataclass
class LineSplit:
    """A line cut into its label (spans left of the first figure) and its figures (a currency sign kept)."""

    line: Line
    label: list[Span]
    values: list[tuple[str, list[Span]]]

    @property
    def header_like(self) -> bool:
        """Only years and no label: a header row such as '2019  2018  2017'."""
        return not self.label and all(_YEAR.match(text) for text, _ in self.values)


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
    pending: list[Span] = []  # a currency sign waiting for its figure
    for span in [piece for printed in line.spans for piece in _pieces(printed)]:
        if _CURRENCY.match(span.text.strip()):
            pending.append(span)
        elif is_value(span.text):
            prefix = "".join(s.text.strip() for s in pending)
            values.append((prefix + span.text.strip(), [*pending, span]))
            pending = []
        elif not values:
            label.extend(pending)
            label.append(span)
            pending = []
    return LineSplit(line, label, values)
