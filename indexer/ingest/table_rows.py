"""Which printed lines of a page make a table, and which of them make one row (pure geometry).

A parser's layout blocks say where a table is and which lines make a row; they are extended to the rows they left
out (a first row above a group label, value lines below, a negative figure hanging past the block's edge), and a band
holding several rows is split by where its label-only lines stand (a wrapped label goes on with its row, a group
label between two rows is a row of its own). Runs of value lines no block marked are tables too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from indexer.core.models import Line, Page, TableRegion
from indexer.ingest.table_lines import LineSplit

# A run of at least this many value lines is a table even where the parser marked none.
MIN_RUN = 3
WRAPPED_LINES = 12  # label-only lines a run of value lines may hold between two (wrapped labels, empty items)
_CONTINUED = re.compile(r"(?:\b(?:and|of|or|in|to|for|from|by|the|net)|[,，、/])$", re.I)
_LOWER_START = re.compile(r"^\s*[a-z]")
_NET_AFTER_COMMA = re.compile(r",\s*net$", re.I)  # 'Property and equipment, net' is a whole label
# How far a line may reach past the right edge of the parser's table block: figures are aligned on their digits, so a
# negative "(14,259)" hangs its closing parenthesis outside the block that its column's positive figures bound.
HANGING_PT = 6.0
EVEN_GAP_PT = 1.0  # a label-only line this evenly spaced between two rows of a band is a row of its own


@dataclass
class Region:
    """The printed lines of one table, top to bottom, and the parser's row bands over them (none for a run of value
    lines no block marked, whose rows come from :func:`_wrapped_bands`)."""

    lines: list[Line]
    bands: list[tuple[float, float]] = field(default_factory=list)


def regions_of(page: Page, parsed: list[TableRegion], splits: dict[int, LineSplit]) -> list[Region]:
    """The page's tables as line regions, top to bottom: each parser block with the rows it left out above and
    below (and the next block when it goes on right below), then the runs of value lines no block holds."""
    body = [line for line in page.lines if not line.furniture]
    claimed: list[tuple[list[int], TableRegion]] = []
    taken: set[int] = set()
    for table in sorted(parsed, key=lambda t: t.box.top):
        block = table.box
        inside = [
            i
            for i, line in enumerate(body)
            if i not in taken
            and block.top - 1 <= (line.box.top + line.box.bottom) / 2 <= block.bottom + 1
            and line.box.x0 >= block.x0 - 2
            and line.box.x1 <= block.x1 + HANGING_PT
        ]
        if inside:
            taken.update(inside)
            claimed.append((inside, table))
    regions: list[Region] = []
    owner = {i: n for n, (inside, _) in enumerate(claimed) for i in inside}
    merged: set[int] = set()
    for n, (inside, table) in enumerate(claimed):
        if n in merged:
            continue
        bands = list(table.row_bands)
        while (found := _previous_value_line(body, inside[0], taken, splits)) is not None:
            inside[:0] = range(found, inside[0])
            taken.update(inside)
        while True:
            # the next parser block, when its first line is a value line printed right below: one table cut in two
            after = inside[-1] + 1
            if (
                after in owner
                and owner[after] > n
                and splits[id(body[after])].values
                and _close(body[after - 1], body[after])
            ):
                merged.add(owner[after])
                inside.extend(claimed[owner[after]][0])
                bands.extend(claimed[owner[after]][1].row_bands)
                continue
            # value lines below the block (a totals row it left out, items it skipped), across label-only lines
            found = _next_value_line(body, after, taken, splits)
            if found is None:
                break
            inside.extend(range(after, found + 1))
            taken.update(inside)
        regions.append(Region([body[i] for i in inside], bands))
    for run in _value_runs(body, taken, splits):
        lines = [body[j] for j in run]
        regions.append(Region(lines, _wrapped_bands(lines, splits)))
    regions.sort(key=lambda r: r.lines[0].box.top)
    return regions


def _close(above: Line, below: Line) -> bool:
    return below.box.top - above.box.bottom <= 2.5 * max(above.box.bottom - above.box.top, 1.0)


def _next_value_line(body: list[Line], start: int, taken: set[int], splits: dict[int, LineSplit]) -> int | None:
    """The value line at ``start``, or after up to WRAPPED_LINES label-only lines from there, all printed close
    together and none in another table; None when there is none."""
    for i in range(start, min(start + WRAPPED_LINES + 1, len(body))):
        if i in taken or (i > 0 and not _close(body[i - 1], body[i])):
            return None
        if splits[id(body[i])].values:
            return i
    return None


def _previous_value_line(body: list[Line], start: int, taken: set[int], splits: dict[int, LineSplit]) -> int | None:
    """The row with figures just above line ``start`` (across up to WRAPPED_LINES label-only lines, all printed close
    together and none in another table) that a parser's block left out: a statement's first row ('Net earnings
    $ 1,419') above a group label where the block begins. Never a header row of years."""
    below = next((splits[id(line)] for line in body[start:] if splits[id(line)].values), None)
    for i in range(start - 1, max(start - WRAPPED_LINES - 2, -1), -1):
        if i in taken or not _close(body[i], body[i + 1]):
            return None
        split = splits[id(body[i])]
        if split.values:
            return i if below is not None and not split.header_like and _aligned(split, below) else None
    return None


def _aligned(split: LineSplit, row: LineSplit) -> bool:
    """Whether a line's figures stand in the columns of a row's figures, one for one (a title such as 'November -
    2015' above a table does not)."""
    if len(split.values) != len(row.values):
        return False
    return all(
        min(a[-1].box.x1, b[-1].box.x1) > max(a[-1].box.x0, b[-1].box.x0)
        for (_, a), (_, b) in zip(split.values, row.values, strict=True)
    )


def _value_runs(body: list[Line], taken: set[int], splits: dict[int, LineSplit]) -> list[list[int]]:
    """Runs of at least MIN_RUN value lines the parser did not mark; label-only lines between two value lines
    (a label wrapped over lines, items without figures) do not end a run."""
    runs: list[list[int]] = []
    i = 0
    while i < len(body):
        if i in taken or not splits[id(body[i])].values:
            i += 1
            continue
        run = [i]
        while (found := _next_value_line(body, run[-1] + 1, taken, splits)) is not None:
            run.extend(range(run[-1] + 1, found + 1))
        if sum(bool(splits[id(body[j])].values) for j in run) >= MIN_RUN:
            runs.append(run)
        i = run[-1] + 1
    return runs


def _continues(above: LineSplit) -> bool:
    """Whether a label goes on on the next line: an open bracket not closed, or a trailing 'and'/'of'/comma."""
    text = " ".join(span.text for span in above.label).strip()
    opened = text.count("(") + text.count("（") > text.count(")") + text.count("）")
    return opened or (bool(_CONTINUED.search(text)) and not _NET_AFTER_COMMA.search(text))


def _label_rows(lines: list[Line], splits: dict[int, LineSplit]) -> list[list[Line]]:
    """Lines top to bottom grouped into rows. A label-only line finishes the label above it when that one is left
    open ('投资收益（损失以"－"号填' / '列）'), starts the label of the value line below when it is left open itself or
    that line goes on in lower case ('Net cash provided by' / 'operating activities  1,234'), and is a row of its
    own otherwise (an item printed without figures, a group label such as 'Current assets:')."""
    rows: list[list[Line]] = []
    pending: list[Line] = []
    for index, line in enumerate(lines):
        split = splits[id(line)]
        following = lines[index + 1] if index + 1 < len(lines) else None
        if split.values:
            rows.append([*pending, line])
            pending = []
        elif rows and not pending and splits[id(rows[-1][-1])].values and _continues(splits[id(rows[-1][-1])]):
            rows[-1].append(line)
        elif following is not None and (_continues(split) or _LOWER_START.match(following.text)):
            pending.append(line)
        else:
            rows.extend([pending, [line]] if pending else [[line]])
            pending = []
    if pending:
        rows.append(pending)
    return rows


def _wrapped_bands(lines: list[Line], splits: dict[int, LineSplit]) -> list[tuple[float, float]]:
    """One band per row of an unmarked run (rows as :func:`_label_rows` groups them)."""
    if all(splits[id(line)].values for line in lines):
        return []
    rows = _label_rows(lines, splits)
    return [(min(x.box.top for x in row), max(x.box.bottom for x in row)) for row in rows]


def rows_of(region: Region, splits: dict[int, LineSplit]) -> list[list[Line]]:
    """Printed lines grouped into table rows: by the parser's row bands, split where a band holds two rows."""
    groups: list[list[Line]] = []
    band_of: dict[int, list[Line]] = {}
    for line in region.lines:
        centre = (line.box.top + line.box.bottom) / 2
        band = next((b for b, (top, bottom) in enumerate(region.bands) if top - 1 <= centre <= bottom + 1), None)
        if band is None:
            groups.append([line])
        elif band in band_of:
            band_of[band].append(line)
        else:
            band_of[band] = [line]
            groups.append(band_of[band])
    rows: list[list[Line]] = []
    for group in groups:
        valued = [line for line in group if splits[id(line)].values]
        if len(valued) <= 1:
            rows.append(group)
            continue
        rows.extend(_band_rows(group, valued, splits))
    figures = [spans[0].box.x0 for line in region.lines for _, spans in splits[id(line)].values]
    return _wraps_joined(rows, splits, min(figures, default=0.0))


def _wraps_joined(rows: list[list[Line]], splits: dict[int, LineSplit], figures_x0: float) -> list[list[Line]]:
    """Rows whose label a band cut over lines, joined: a label-only row printed right below a row goes on with it
    when that row's label is left open or it goes on in lower case (a label wrapped after its figures: 'Net cash
    provided by operating 1,234' / 'activities'), and so does any row right below a label-only row left open or
    going on in lower case ('Consolidated profit attributable to' / 'shareholders of the parent' / 'and other
    equity holders 1,234'). A label-only line standing on its own ('Current assets:') stays a row, and so does one
    reaching over the figures' columns (a sentence, a header)."""
    out: list[list[Line]] = []
    for row in rows:
        if out and _goes_on(out[-1], row, splits, figures_x0):
            out[-1].extend(row)
        else:
            out.append(list(row))
    return out


def _goes_on(above: list[Line], row: list[Line], splits: dict[int, LineSplit], figures_x0: float) -> bool:
    """Whether ``row`` finishes the label of the row ``above`` it (see :func:`_wraps_joined`)."""
    labels = [line for line in (*above, *row) if not splits[id(line)].values]
    if any(line.box.x1 >= figures_x0 for line in labels) or not _close(above[-1], row[0]):
        return False
    left_open = _continues(splits[id(above[-1])]) or bool(_LOWER_START.match(row[0].text))
    both_valued = any(splits[id(line)].values for line in above) and any(splits[id(line)].values for line in row)
    return left_open and not both_valued


def _band_rows(group: list[Line], valued: list[Line], splits: dict[int, LineSplit]) -> list[list[Line]]:
    """A parser band holding several rows with figures, split into them. A label-only line goes with the row it is
    printed closest to (a label wrapped around a figure centred in a tall cell overlaps it), with the row above when
    that one's label is left open or it goes on in lower case, with the row below when it is left open itself — and
    is a row of its own where it stands evenly between two rows (a group label: 'Operating expenses')."""
    pieces: dict[int, list[Line]] = {id(v): [v] for v in valued}
    own: list[list[Line]] = []
    for line in group:
        if line in valued:
            continue
        above = max((v for v in valued if v.box.top <= line.box.top), key=lambda v: v.box.top, default=None)
        below = min((v for v in valued if v.box.top > line.box.top), key=lambda v: v.box.top, default=None)
        gap_above = line.box.top - above.box.bottom if above is not None else None
        gap_below = below.box.top - line.box.bottom if below is not None else None
        if below is not None and _continues(splits[id(line)]):
            target = below
        elif above is not None and (_continues(splits[id(above)]) or _LOWER_START.match(line.text)):
            target = above
        elif gap_above is not None and gap_below is not None and abs(gap_above - gap_below) < EVEN_GAP_PT:
            own.append([line])
            continue
        else:
            target = min((v for v in (above, below) if v is not None), key=lambda v: abs(v.box.top - line.box.top))
        pieces[id(target)].append(line)
    rows = [sorted(pieces[id(v)], key=lambda ln: ln.box.top) for v in valued] + own
    return sorted(rows, key=lambda row: row[0].box.top)
