"""Two tables printed side by side read as two tables (pure geometry).

A broker note prints its ratios beside its income statement, each with its labels and its year columns: read as one
table, the right-hand labels are lost and each row holds the figures of two items. Where several lines of a table
print a label after figures and before more figures, at one left edge, the table is cut there: every line's spans
left of that edge make the left table's lines, the rest the right table's.
"""

from __future__ import annotations

from collections import Counter

from indexer.core.models import Box, Line, Span
from indexer.ingest.table_lines import LineSplit, split_line
from indexer.ingest.table_rows import Region

ALIGN_PT = 4.0  # the right-hand labels' left edges agree within this (they are printed in one column)
MIN_LINES = 3  # different labels printed between figures at that edge, at least
MIN_COLUMNS = 2  # figures on each side of such a label, at least


def _cut_at(region: Region, splits: dict[int, LineSplit]) -> float | None:
    """The left edge of different labels printed between figures on at least MIN_LINES lines (and a quarter of the
    value lines), or None: a label or two between figures is a note, not a second table."""
    inner = [
        found
        for line in region.lines
        if (found := splits[id(line)].inner_label) is not None and _figures_beside(splits[id(line)], found)
    ]
    valued = sum(bool(splits[id(line)].values) for line in region.lines)
    if len(inner) < MIN_LINES:
        return None
    edge, _ = Counter(round(span.box.x0 / ALIGN_PT) for span in inner).most_common(1)[0]
    near = [span for span in inner if abs(round(span.box.x0 / ALIGN_PT) - edge) <= 1]
    # labels of their own: as many different ones as lines (a unit repeated after each figure, '个百分点', is not)
    if len({" ".join(span.text.split()) for span in near}) < MIN_LINES or 4 * len(near) < valued:
        return None
    return min(span.box.x0 for span in near) - 1.0


def _figures_beside(split: LineSplit, label: Span) -> bool:
    """Whether a line prints at least two figures on each side of the label: two tables' columns, not a text
    column between a footnote mark and the figures."""
    left = sum(spans[-1].box.x1 <= label.box.x0 for _, spans in split.values)
    return left >= MIN_COLUMNS and len(split.values) - left >= MIN_COLUMNS


def _part(line: Line, spans: list[Span]) -> Line:
    box = Box(
        page=line.box.page,
        x0=min(s.box.x0 for s in spans),
        top=min(s.box.top for s in spans),
        x1=max(s.box.x1 for s in spans),
        bottom=max(s.box.bottom for s in spans),
    )
    return Line(text=" ".join(s.text for s in spans), box=box, spans=spans, furniture=line.furniture)


def side_by_side(region: Region, splits: dict[int, LineSplit]) -> list[Region]:
    """The region as printed: one table, or the two tables printed side by side (each line cut where the right
    one's labels begin; the new lines' splits are added to ``splits``)."""
    cut = _cut_at(region, splits)
    if cut is None:
        return [region]
    sides: tuple[list[Line], list[Line]] = ([], [])
    for line in region.lines:
        left = [s for s in line.spans if (s.box.x0 + s.box.x1) / 2 < cut]
        right = [s for s in line.spans if (s.box.x0 + s.box.x1) / 2 >= cut]
        for side, spans in zip(sides, (left, right), strict=True):
            if spans:
                part = _part(line, spans) if len(spans) < len(line.spans) else line
                splits.setdefault(id(part), split_line(part))
                side.append(part)
    return [Region(lines, list(region.bands)) for lines in sides if lines]
