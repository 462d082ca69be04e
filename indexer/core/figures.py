"""A table cell's figure as printed: what counts as one, and the number it prints (sign and nil dashes applied)."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from indexer.core.tokenize import normalize_text

_NUMERIC = re.compile(r"^[(\-−–]?\s*+(?:[$¥€£]\s*+)?(?:\d{1,3}(?:,\d{3})++|\d++)(?:\.\d++)?\s*+%?\s*+\)?\s*+%?$")
DASH = re.compile(r"^[-–—−]+$")


_SPACED_THOUSANDS = re.compile(r"(?<=\d) (?=\d{3}(?!\d))")


def _plain(text: str) -> str:
    """Half-width, trimmed, a space used as thousands separator ('4 559') removed."""
    return _SPACED_THOUSANDS.sub("", normalize_text(text).strip())


def is_value(text: str) -> bool:
    """A figure or a nil dash as printed in a table cell: 1,234 · (1,234) · -4.49 · 12.5% · $ 9,583 · 4 559 · —."""
    plain = _plain(text)
    return bool(_NUMERIC.match(plain) or DASH.match(plain))


def decimal_places(text: str) -> int:
    """How many digits a figure prints after its decimal point: "(1,234.50)" → 2, "4.49" → 2, "1,234" → 0."""
    return sum(ch.isdigit() for ch in text.rsplit(".", 1)[1]) if "." in text else 0


def parse_value(text: str) -> Decimal | None:
    """The number a cell prints ((1,234) → -1234, a dash → 0); None for percentages and non-numbers."""
    plain = _plain(text).replace("$", "").replace("¥", "").replace("€", "").replace("£", "").replace(" ", "")
    if DASH.match(plain):
        return Decimal(0)
    if "%" in plain or not _NUMERIC.match(plain):
        return None
    negative = plain.startswith(("(", "-", "−", "–"))
    digits = plain.strip("()-−–").replace(",", "")
    try:
        value = Decimal(digits)
    except InvalidOperation:
        return None
    return -value if negative else value
