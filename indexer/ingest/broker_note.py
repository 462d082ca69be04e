"""A broker research note's cover (研报): broker, analysts, rating and its action, target and current price.
Simple rules; unknown stays unknown."""

from __future__ import annotations

import re

from indexer.core.models import Page
from indexer.core.text import CJK_RANGE
from indexer.data import data_lines

_RATING = re.compile(
    r"(强烈推荐|谨慎推荐|审慎推荐|推荐|买入|增持|中性|持有|减持|卖出|优于大市|同步大市|弱于大市|跑赢行业|跑输行业)"
    r"\s*[（(]\s*(首次|维持|上调|下调)?\s*(?:评级)?\s*[)）]"
)
_RATING_LABELLED = re.compile(
    r"(?:投资)?评级\s*[:：]\s*(强烈推荐|谨慎推荐|审慎推荐|推荐|买入|增持|中性|持有|减持|卖出|优于大市|同步大市|弱于大市)"
)
_PRICE = r"(?:\s*[（(]\s*(?:元|人民币|港元|HKD|RMB)\s*[)）])?\s*[:：]?\s*(\d[\d,]*(?:\.\d+)?)"
_TARGET_PRICE = re.compile(r"目标价(?:格)?" + _PRICE)
_CURRENT_PRICE = re.compile(r"(?:当前|最新|收盘)(?:股)?价(?:格)?" + _PRICE)
_LICENCE = re.compile(r"(?:资格编号|执业证书编号|登记编号|证书编号|SAC\s*(?:No\.?|编号)?)\s*[:：]?\s*S\d{13}", re.I)
_PERSON = re.compile(rf"^[{CJK_RANGE}]{{2,4}}$")
_ANALYST_LABEL = re.compile(rf"(?:证券)?分析师\s*[:：]\s*([{CJK_RANGE}]{{2,4}})")


def _brokers() -> list[tuple[str, tuple[str, ...]]]:
    out = []
    for line in data_lines("brokers.txt"):
        names = tuple(n.strip() for n in line.split("|") if n.strip())
        out.append((names[0], names))
    return out


def detect_broker(file_name: str, text: str) -> str | None:
    """The broker a note is from: named in the file name, else the one its pages name most often."""
    best: tuple[int, str] | None = None
    for canonical, names in _brokers():
        if any(name in file_name for name in names):
            return canonical
        count = sum(text.count(name) for name in names)
        if count and (best is None or count > best[0]):
            best = (count, canonical)
    return best[1] if best else None


def detect_analysts(lines: list[str]) -> list[str]:
    """Analysts on a note's cover: a name just above its SAC licence number, or after '分析师：'."""
    found: list[str] = []
    for i, line in enumerate(lines):
        if _LICENCE.search(line):
            for previous in reversed(lines[max(0, i - 2) : i]):
                name = previous.strip().split()[0] if previous.strip() else ""
                if _PERSON.match(name):
                    found.append(name)
                    break
        labelled = _ANALYST_LABEL.search(line)
        if labelled:
            found.append(labelled.group(1))
    return list(dict.fromkeys(found))


def _number(match: re.Match[str] | None) -> float | None:
    return float(match.group(1).replace(",", "")) if match else None


def describe_broker_note(file_name: str, pages: list[Page]) -> dict[str, object]:
    """Broker, analysts, rating (and its action: 首次/维持/上调/下调), target and current price of a 研报, from its
    cover (first two pages; the broker from the whole note). Unknown fields stay None."""
    cover = [line.text for page in pages[:2] for line in page.lines if not line.furniture]
    cover_text = "\n".join(cover)
    rating = _RATING.search(cover_text)
    labelled = _RATING_LABELLED.search(cover_text)
    return {
        "broker": detect_broker(file_name, "\n".join(page.text for page in pages)),
        "analysts": detect_analysts(cover),
        "rating": rating.group(1) if rating else (labelled.group(1) if labelled else None),
        "rating_action": rating.group(2) if rating and rating.group(2) else None,
        "target_price": _number(_TARGET_PRICE.search(cover_text)),
        "price": _number(_CURRENT_PRICE.search(cover_text)),
    }
