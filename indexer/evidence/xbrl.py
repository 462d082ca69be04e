"""Inline XBRL facts of an EDGAR HTML filing, matched to the statement rows printed from it.

An SEC filing that came as HTML carries its financial data tagged inline (``ix:nonFraction``: concept, context
period, unit, scale, sign). The index keeps the original HTML; its facts are read with ``ixbrlparse`` in a worker
process under a deadline (a huge or hostile file costs that call, not the server) and kept in the cache by the
file's SHA-256. A printed row takes the concept of the tagged fact of the same period and value; where the filer
tagged the row's concept for that period with another value, the row says so — the printed figure stays what is
returned, the tagged one is reported beside it.
"""

from __future__ import annotations

import json
import logging
import resource
import stat
import subprocess
import sys
import warnings
from datetime import date
from decimal import Decimal, InvalidOperation
from functools import cache
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, Field

from indexer.core.workers import PYTHON_ISOLATED
from indexer.evidence.financials import FinancialRow

logger = logging.getLogger(__name__)

FACTS_TIMEOUT_S = 30.0  # one filing's facts are read within this (a 10-K: ~3 s)
FACTS_MEMORY_BYTES = 2 << 30  # and within this much address space
FACTS_VERSION = 1  # bump when the facts read from a filing change, so cached ones are read again
_MONTH_DAYS = 30.44


class XbrlFact(BaseModel):
    """One numeric fact tagged in the filing."""

    concept: str = Field(description="prefixed XBRL concept, e.g. us-gaap:Revenues")
    value: str = Field(description="decimal value in units, scale and sign applied")
    start: str | None = Field(default=None, description="ISO start of a duration; None for an instant")
    end: str = Field(description="ISO end of the duration, or the instant")
    unit: str | None = None
    dimensional: bool = Field(default=False, description="the context has dimensions (a segment, a member)")

    @property
    def months(self) -> int | None:
        if self.start is None:
            return None
        return round((date.fromisoformat(self.end) - date.fromisoformat(self.start)).days / _MONTH_DAYS)


def _decimal(text: str, scale: int, sign: str | None) -> Decimal | None:
    plain = text.strip().replace(",", "").replace(" ", "")
    if plain in ("", "-", "—", "–"):
        return Decimal(0)
    try:
        value = Decimal(plain).scaleb(scale)
    except InvalidOperation:
        return None
    return -value if sign == "-" else value


def read_facts(html: Path) -> list[XbrlFact]:
    """The numeric facts of an inline XBRL document (none when it is not one)."""
    from ixbrlparse import IXBRL  # imported here: only the worker needs it

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # formats of text facts ixbrlparse does not implement: not ours to read
        with html.open("rb") as handle:
            document = IXBRL(handle, raise_on_error=False)
    facts = []
    for fact in document.numeric:
        context, form = fact.context, fact.format
        if context is None or isinstance(context, str) or form is None:
            continue
        value = _decimal(str(fact.text), form.scale, form.sign)
        end = context.enddate or context.instant
        if value is None or end is None:
            continue
        facts.append(
            XbrlFact(
                concept=f"{fact.schema}:{fact.name}", value=format(value.normalize(), "f"),
                start=context.startdate.isoformat() if context.startdate else None, end=end.isoformat(),
                unit=fact.unit, dimensional=bool(context.segments),
            )
        )  # fmt: skip
    return facts


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def facts_of(html: Path, sha256: str, cache_dir: Path | None, timeout: float = FACTS_TIMEOUT_S) -> list[XbrlFact]:
    """The filing's facts, from the cache or read in a worker process (none when that fails: logged)."""
    cached = (cache_dir or Path()) / "xbrl" / f"{sha256}.v{FACTS_VERSION}.json"
    if cache_dir is not None and _regular(cached):
        try:
            return [XbrlFact.model_validate(item) for item in json.loads(cached.read_text(encoding="utf-8"))]
        except (OSError, ValueError, TypeError) as exc:  # truncated or damaged: a miss, read again
            logger.warning("XBRL cache %s unreadable (%s); reading the filing again", cached.name, exc)
    command = [*PYTHON_ISOLATED, "-m", "indexer.evidence.xbrl", str(html)]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, check=True, preexec_fn=_limit_memory
        )
        facts = [XbrlFact.model_validate(item) for item in json.loads(done.stdout)]
    except (subprocess.SubprocessError, ValueError) as exc:
        logger.warning("no XBRL facts read from %s: %s", html.name, str(exc).splitlines()[0][:200])
        return []
    if cache_dir is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(".partial")
        partial.write_text(json.dumps([fact.model_dump() for fact in facts]), encoding="utf-8")
        partial.replace(cached)
    return facts


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (FACTS_MEMORY_BYTES, FACTS_MEMORY_BYTES))


def _same_period(row: FinancialRow, fact: XbrlFact) -> bool:
    """The fact's context is the row's column: the same end date, an instant for a balance, the same length."""
    if fact.end != row.period_end:
        return False
    if row.months is None:
        return fact.start is None
    return fact.months == row.months


def _checked(row: FinancialRow, fact: XbrlFact, agrees: bool) -> FinancialRow:
    return row.model_copy(update={"xbrl_concept": fact.concept, "xbrl_value": fact.value, "xbrl_agrees": agrees})


def attach(rows: list[FinancialRow], facts: list[XbrlFact]) -> list[FinancialRow]:
    """Each row checked against the facts of its period: against the fact tagged with the XBRL concept of the row's
    concept (without dimensions) when there is one — agrees or differs; else against any fact of the same value
    (its concept; agrees); unchecked when neither exists."""
    by_end: dict[str, list[XbrlFact]] = {}
    for fact in facts:
        by_end.setdefault(fact.end, []).append(fact)
    tagged_as = xbrl_concepts()
    out = []
    for row in rows:
        if row.value is None:
            out.append(row)
            continue
        value = abs(Decimal(row.value))
        same = sorted(
            (f for f in by_end.get(row.period_end or "", []) if _same_period(row, f)),
            key=lambda f: (f.dimensional, len(f.concept)),  # the plain fact before a segment's
        )
        expected = tagged_as.get(row.concept or "", frozenset())
        primary = [f for f in same if f.concept in expected and not f.dimensional]
        equal = [f for f in primary or same if abs(Decimal(f.value)) == value]
        if equal:
            out.append(_checked(row, equal[0], agrees=True))
        elif primary:
            out.append(_checked(row, primary[0], agrees=False))
        else:
            out.append(row)
    return out


@cache
def xbrl_concepts() -> dict[str, frozenset[str]]:
    """Our concept → the XBRL concepts filers tag it with (``indexer/data/xbrl_concepts.txt``)."""
    text = resources.files("indexer.data").joinpath("xbrl_concepts.txt").read_text(encoding="utf-8")
    mapping = {}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            name, tagged = (part.strip() for part in line.split(" | ", 1))
            mapping[name] = frozenset(tagged.split())
    return mapping


def _main(argv: list[str]) -> int:
    """The worker: the facts of one HTML filing as JSON on stdout."""
    print(json.dumps([fact.model_dump() for fact in read_facts(Path(argv[0]))]))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
