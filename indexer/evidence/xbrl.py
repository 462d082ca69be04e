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
import tempfile
import threading
import warnings
from datetime import date
from decimal import Decimal
from functools import cache
from pathlib import Path

from pydantic import BaseModel, Field

from indexer.core.workers import PYTHON_ISOLATED
from indexer.data.vocabulary import vocabulary
from indexer.evidence.financials import FinancialRow

logger = logging.getLogger(__name__)

FACTS_TIMEOUT_S = 30.0  # one filing's facts are read within this (a 10-K: ~3 s)
FACTS_MEMORY_BYTES = 2 << 30  # and within this much address space
FACTS_VERSION = 2  # bump when the facts read from a filing change, so cached ones are read again
_MONTH_DAYS = 30.44
# A fact no filing prints is dropped when read (the rest of the filing's facts are kept):
MAX_FACT_CHARS = 40  # characters of the tagged text, e.g. "1,234,567,890,123.4567"
MAX_DIGITS = 28  # significant digits (Decimal's default precision)
MAX_SCALE = 30  # |scale| of the tag (filings use -6 … 9)
MAX_MAGNITUDE = 20  # 10^20: past the largest figure in any currency (a Vietnamese group's revenue in dong ~10^16)
MIN_MAGNITUDE = -12  # 10^-12: past the smallest rate or per-share figure
MAX_FACTS = 50_000  # facts one filing gives (a large bank's 10-K: ~10,000)
MAX_OUTPUT_BYTES = 32 << 20  # the worker's output (50,000 facts at ~250 bytes: ~12 MB)
WORKERS = 2  # facts workers running at once in one process
FILINGS_KEPT = 16  # filings whose facts a reader keeps in memory


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
    """The fact's value, or None for one no filing prints (too many digits, an exponent past any company's figures,
    a scale past any unit): dropped, never expanded (``1E+999999`` would be a million digits)."""
    plain = text.strip().replace(",", "").replace(" ", "")
    if plain in ("", "-", "—", "–"):
        return Decimal(0)
    if len(plain) > MAX_FACT_CHARS or abs(scale) > MAX_SCALE:
        return None
    try:
        value = Decimal(plain)
        if not value.is_finite() or len(value.as_tuple().digits) > MAX_DIGITS:
            return None
        if value and not MIN_MAGNITUDE <= value.adjusted() + scale <= MAX_MAGNITUDE:
            return None
        value = value.scaleb(scale)
    except ArithmeticError:  # decimal's InvalidOperation, Overflow …: not a number we can hold
        return None
    return -value if sign == "-" else value


def read_facts(html: Path) -> list[XbrlFact]:
    """The numeric facts of an inline XBRL document (none when it is not one)."""
    from ixbrlparse import IXBRL  # imported here: only the worker needs it

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # formats of text facts ixbrlparse does not implement: not ours to read
        with html.open("rb") as handle:
            document = IXBRL(handle, raise_on_error=False)
    facts: list[XbrlFact] = []
    for fact in document.numeric:
        if len(facts) >= MAX_FACTS:
            logger.warning("%s tags more than %d numeric facts; the rest are not read", html.name, MAX_FACTS)
            break
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


def _cached_facts(cached: Path) -> list[XbrlFact] | None:
    """The facts a cache file holds; None when there is none or it cannot be read (a miss: logged)."""
    if not _regular(cached):
        return None
    try:
        if cached.stat().st_size > MAX_OUTPUT_BYTES:
            raise ValueError(f"larger than {MAX_OUTPUT_BYTES} bytes")
        return [XbrlFact.model_validate(item) for item in json.loads(cached.read_text(encoding="utf-8"))]
    except (OSError, ValueError, TypeError) as exc:  # truncated or damaged: a miss, read again
        logger.warning("XBRL cache %s unreadable (%s); reading the filing again", cached.name, exc)
        return None


def facts_of(html: Path, sha256: str, cache_dir: Path | None, timeout: float = FACTS_TIMEOUT_S) -> list[XbrlFact]:
    """The filing's facts, from the cache or read in a worker process (none when that fails: logged). The worker
    runs under a deadline, an address-space limit and a cap on what it writes (its output goes to a file, so the
    cap is the kernel's file-size limit: a worker past it is stopped); it sets both limits itself at start."""
    cached = (cache_dir or Path()) / "xbrl" / f"{sha256}.v{FACTS_VERSION}.json"
    if cache_dir is not None and (facts := _cached_facts(cached)) is not None:
        return facts
    command = [*PYTHON_ISOLATED, "-m", "indexer.evidence.xbrl", str(html)]
    try:
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            done = subprocess.run(command, stdout=out, stderr=err, timeout=timeout, check=False)
            if done.returncode != 0:
                err.seek(0)
                lines = err.read(4096).decode("utf-8", errors="replace").strip().splitlines() or ["no message"]
                raise subprocess.SubprocessError(f"the worker exited with {done.returncode}: {lines[-1]}")
            out.seek(0)
            facts = [XbrlFact.model_validate(item) for item in json.loads(out.read(MAX_OUTPUT_BYTES))]
    except (subprocess.SubprocessError, ValueError) as exc:
        logger.warning("no XBRL facts read from %s: %s", html.name, str(exc).splitlines()[0][:200])
        return []
    if cache_dir is not None:
        _write_cache(cached, facts)
    return facts


def _write_cache(cached: Path, facts: list[XbrlFact]) -> None:
    """Written whole or not at all, under a name of its own (two processes may read one filing at once); a cache
    that cannot be written costs the next call a worker, not this answer."""
    partial: Path | None = None
    try:
        cached.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", dir=cached.parent, prefix=f"{cached.name}.", suffix=".partial", delete=False
        ) as handle:
            partial = Path(handle.name)
            json.dump([fact.model_dump() for fact in facts], handle)
        partial.replace(cached)
    except OSError as exc:
        logger.warning("XBRL cache %s not written (%s)", cached.name, exc)
        if partial is not None:
            partial.unlink(missing_ok=True)  # ours: made just now


def _limit_worker() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (FACTS_MEMORY_BYTES, FACTS_MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_OUTPUT_BYTES, MAX_OUTPUT_BYTES))


class FactReader:
    """Filings' facts for one knowledge base: one worker per filing at a time (a call that comes while the filing is
    being read waits for that result instead of starting another worker), at most ``workers`` at once, and a filing
    whose worker failed is not read again by this reader (its rows stay unchecked)."""

    def __init__(self, cache_dir: Path | None, workers: int = WORKERS, timeout: float = FACTS_TIMEOUT_S) -> None:
        self.cache_dir = cache_dir
        self.timeout = timeout
        self._slots = threading.BoundedSemaphore(workers)
        self._guard = threading.Lock()
        self._per_filing: dict[str, threading.Lock] = {}
        self._read: dict[str, list[XbrlFact]] = {}  # the last filings read (without a cache folder: the only copy)

    def facts(self, html: Path, sha256: str) -> list[XbrlFact]:
        with self._guard:
            lock = self._per_filing.setdefault(sha256, threading.Lock())
        with lock:
            if sha256 in self._read:
                return self._read[sha256]
            with self._slots:
                facts = facts_of(html, sha256, self.cache_dir, self.timeout)
            with self._guard:
                if len(self._read) >= FILINGS_KEPT:
                    self._read.pop(next(iter(self._read)))
                self._read[sha256] = facts
            return facts


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
    """Our concept → the XBRL concepts filers tag it with (each concept's ``xbrl`` in the vocabulary)."""
    return {name: frozenset(c.xbrl) for name, c in vocabulary().statement_concepts.items() if c.xbrl}


def _main(argv: list[str]) -> int:
    """The worker: the facts of one HTML filing as JSON on stdout, within its memory and output limits (set here,
    not by the parent between fork and exec: a server with gRPC threads, the Milvus backend's, must not fork)."""
    _limit_worker()
    print(json.dumps([fact.model_dump() for fact in read_facts(Path(argv[0]))]))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
