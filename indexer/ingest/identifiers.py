"""The identifiers a filing prints besides its name: trading symbols and a Chinese report's English name."""

from __future__ import annotations

import re

_TICKER_LISTED = re.compile(r"\b([A-Z]{1,5}(?:\.[A-Z])?)\s+(?:The\s+)?(?:Nasdaq|New York Stock Exchange|NYSE)\b")
_TICKER_QUOTED = re.compile(r"\((?:NYSE|NASDAQ|Nasdaq|NYSE American)\s*:\s*([A-Z]{1,5}(?:\.[A-Z])?)\)")
_FOREIGN_NAME = re.compile(r"(?:公司的外文名称|外文名称|英文名称)\s*[:：]?\s*([A-Za-z][A-Za-z .,&()'-]{3,80})")


def detect_tickers(text: str) -> list[str]:
    """Trading symbols printed on an SEC cover page or in a release's '(NYSE: MGM)'."""
    found = _TICKER_LISTED.findall(text) + _TICKER_QUOTED.findall(text)
    return list(dict.fromkeys(t for t in found if len(t) >= 2 and t not in {"PR", "LLC", "THE"}))


def detect_foreign_name(text: str) -> str | None:
    """The English name a Chinese report gives for the company (公司的外文名称)."""
    found = _FOREIGN_NAME.search(text)
    return found.group(1).strip() if found else None
