"""Shared geometry: how close two printed things must be to count as on one line, in PDF points.

Three stages ask "same printed line?" and, for now, keep the tolerances they were measured with: table extraction
groups spans whose tops differ by less than TABLE_LINE_PT (wrapped cells and centred figures drift most), chunking
links a table row to the passage holding its line within ROW_IN_PASSAGE_PT (both read the same stored line box),
and highlights keep a match on a hit's line within HIT_LINE_PT. Making them one value changes what is indexed: do
it with an eval on a rebuilt dev index.
"""

from __future__ import annotations

TABLE_LINE_PT = 2.0
ROW_IN_PASSAGE_PT = 1.0
HIT_LINE_PT = 1.5
