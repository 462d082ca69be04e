"""SEC EDGAR: ticker → CIK → filings → primary documents on disk, within SEC's fair-access rules.

SEC asks every client to send a User-Agent naming who it is (name and e-mail), to stay under 10 requests a
second, and to back off when told to (429). Downloads are resumable: a file already on disk is not fetched
again, and a file is written under a temporary name and renamed when complete. Each document gets a sidecar
``<file>.edgar.json`` with what EDGAR says about it (company, CIK, form, filing date, period of report), which the
indexer stores as the document's metadata.
"""

from __future__ import annotations

import email.utils
import gzip
import json
import logging
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field, ValidationError

from indexer.core.errors import FilingsError, shown

logger = logging.getLogger(__name__)

SEC_WWW_URL = "https://www.sec.gov"
SEC_DATA_URL = "https://data.sec.gov"
USER_AGENT_ENV = "FILINGS_SEC_USER_AGENT"
SIDECAR_SUFFIX = ".edgar.json"
MAX_REQUESTS_PER_SECOND = 10
_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_USER_AGENT = re.compile(r"(?=.{0,200}$)\S+.*\s\S+@\S+\.\S+")  # "Jane Doe jane@example.com", ≤ 200 chars


class EdgarError(FilingsError):
    """A problem talking to EDGAR, said so that the user can act on it."""


@dataclass(frozen=True)
class EdgarSettings:
    user_agent: str
    www_url: str = SEC_WWW_URL
    data_url: str = SEC_DATA_URL
    max_per_second: float = MAX_REQUESTS_PER_SECOND
    retries: int = 4
    backoff_s: float = 1.0  # first wait after a 5xx or a network error; doubled each time
    max_wait_s: float = 60.0  # longest Retry-After honoured
    timeout_s: float = 30.0


def check_user_agent(value: str | None) -> str:
    """SEC refuses anonymous clients: require 'Name email@domain'."""
    text = (value or "").strip()
    if not text:
        raise EdgarError(
            "SEC requires a User-Agent that names you: pass --user-agent 'Your Name you@example.com' or set "
            f"{USER_AGENT_ENV}"
        )
    if not _USER_AGENT.fullmatch(text):
        raise EdgarError(
            f"the User-Agent {shown(text)} must hold a name and an e-mail address, e.g. 'Jane Doe jane@example.com' "
            "(SEC's fair-access policy)"
        )
    return text


@dataclass
class EdgarClient:
    """GETs with SEC's required header, a request-rate limit and retries. ``sleep``/``clock`` are for tests."""

    settings: EdgarSettings
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    requests: int = 0
    _last: float = field(default=-1e9, repr=False)

    def _pace(self) -> None:
        gap = 1.0 / self.settings.max_per_second
        wait = self._last + gap - self.clock()
        if wait > 0:
            self.sleep(wait)
        self._last = self.clock()

    def get(self, url: str) -> bytes:
        """The body of ``url``; raises :class:`EdgarError` saying what failed (404, refused, unreachable)."""
        backoff = self.settings.backoff_s
        for attempt in range(self.settings.retries + 1):
            self._pace()
            self.requests += 1
            request = urllib.request.Request(
                url, headers={"User-Agent": self.settings.user_agent, "Accept-Encoding": "gzip"}
            )
            try:
                with urllib.request.urlopen(request, timeout=self.settings.timeout_s) as response:
                    body = response.read()
                    if response.headers.get("Content-Encoding") == "gzip":
                        body = gzip.decompress(body)
                    return body
            except urllib.error.HTTPError as exc:
                if exc.code not in _RETRY_STATUSES or attempt == self.settings.retries:
                    raise EdgarError(_explain_status(url, exc.code, attempt)) from exc
                wait = _retry_after(exc.headers.get("Retry-After"), backoff, self.settings.max_wait_s)
                logger.warning("EDGAR answered %s for %s; retrying in %.1fs", exc.code, url, wait)
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                if attempt == self.settings.retries:
                    reason = getattr(exc, "reason", exc)
                    raise EdgarError(
                        f"cannot reach {url} ({reason}) after {attempt + 1} tries; check the network, or point "
                        "--sec-www-url/--sec-data-url at a mirror"
                    ) from exc
                wait = backoff
                logger.warning("cannot reach %s (%s); retrying in %.1fs", url, exc, wait)
            self.sleep(wait)
            backoff *= 2
        raise AssertionError("unreachable")

    def get_json(self, url: str) -> dict:  # type: ignore[type-arg]
        try:
            return json.loads(self.get(url))  # type: ignore[no-any-return]
        except json.JSONDecodeError as exc:
            raise EdgarError(f"{url} did not return JSON ({exc}); is --sec-data-url an EDGAR mirror?") from exc


def _explain_status(url: str, status: int, attempt: int) -> str:
    if status == 403:
        return f"EDGAR refused {url} (403): SEC blocks clients without a proper User-Agent or above 10 requests/s"
    if status == 404:
        return f"EDGAR has no {url} (404)"
    return f"EDGAR answered {status} for {url} after {attempt + 1} tries; try again later"


def _retry_after(header: str | None, default: float, cap: float) -> float:
    """Seconds to wait: Retry-After as seconds or an HTTP date, else ``default``; never more than ``cap``."""
    if header:
        text = header.strip()
        if text.isdigit():
            return min(float(text), cap)
        parsed = email.utils.parsedate_to_datetime(text) if text else None
        if parsed is not None:
            return min(max(parsed.timestamp() - time.time(), 0.0), cap)
    return min(default, cap)


def _iso_date(value: str) -> str:
    date.fromisoformat(value)  # raises ValueError on anything else
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ValueError(f"not a date (YYYY-MM-DD): {shown(value)}")
    return value


def _plain_file_name(value: str) -> str:
    """A document name EDGAR may give: one file name, no folders, no control characters."""
    if (
        not value
        or len(value) > 200
        or value in (".", "..")
        or any(c in value for c in "/\\")
        or any(ord(c) < 32 or ord(c) == 127 for c in value)
    ):
        raise ValueError(f"not a plain file name: {shown(value)}")
    return value


class Filing(BaseModel):
    """One filing as EDGAR's submissions API describes it (every field checked: it names files and URLs)."""

    company: Annotated[str, Field(max_length=300)]
    cik: Annotated[str, Field(pattern=r"^\d{10}$")]
    ticker: Annotated[str | None, Field(pattern=r"^[A-Za-z0-9.\-]{1,12}$")]
    form: Annotated[str, Field(pattern=r"^[A-Za-z0-9/\- ]{1,20}$")]
    accession: Annotated[str, Field(pattern=r"^\d{10}-\d{2}-\d{6}$")]  # 0000320193-25-000057
    filing_date: Annotated[str, AfterValidator(_iso_date)]
    report_date: Annotated[str, AfterValidator(_iso_date)] | None
    primary_document: Annotated[str, AfterValidator(_plain_file_name)]

    @property
    def url_path(self) -> str:
        document = urllib.parse.quote(self.primary_document)
        return f"/Archives/edgar/data/{int(self.cik)}/{self.accession.replace('-', '')}/{document}"

    @property
    def file_name(self) -> str:
        """TICKER_FORM_PERIOD_ACCESSION.ext: readable, unique, and what the indexer's metadata reads."""
        stem = self.ticker or self.company.split()[0]
        form = self.form.replace("/", "-")
        period = self.report_date or self.filing_date
        suffix = Path(self.primary_document).suffix.lower() or ".htm"
        return re.sub(r"[^\w.-]", "_", f"{stem}_{form}_{period}_{self.accession}") + suffix


def resolve_cik(client: EdgarClient, ticker: str) -> tuple[str, str]:
    """(10-digit CIK, company name) of a ticker, from SEC's company_tickers.json."""
    table = client.get_json(f"{client.settings.www_url}/files/company_tickers.json")
    wanted = ticker.strip().upper()
    for entry in table.values():
        if str(entry.get("ticker", "")).upper() == wanted:
            return f"{int(entry['cik_str']):010d}", str(entry.get("title", ""))
    raise EdgarError(f"unknown ticker {shown(ticker)}: SEC's company list has no such symbol; check the spelling")


def parse_since(value: str | None) -> date | None:
    """--since: a year (2022) or a date (2022-06-30)."""
    if not value:
        return None
    text = value.strip()
    try:
        return date(int(text), 1, 1) if re.fullmatch(r"\d{4}", text) else date.fromisoformat(text)
    except ValueError as exc:
        raise EdgarError(f"--since takes a year (2022) or a date (2022-06-30), not {shown(value)}") from exc


def _rows(block: dict) -> Iterator[dict]:  # type: ignore[type-arg]
    """The column arrays of a submissions block as one dict per filing."""
    columns = {k: v for k, v in block.items() if isinstance(v, list)}
    for i in range(len(columns.get("accessionNumber", []))):
        yield {k: v[i] if i < len(v) else None for k, v in columns.items()}


def list_filings(
    client: EdgarClient,
    cik: str,
    ticker: str | None,
    forms: list[str],
    since: date | None,
    rejected: list[tuple[str, str]] | None = None,
) -> list[Filing]:
    """The company's filings of the given forms filed on or after ``since``, newest first. Older filings sit in
    extra pages of the submissions API, read only when ``since`` reaches back to them; a page EDGAR does not
    have is skipped with a warning. A row that does not describe a filing we can fetch safely (a document name
    with folders or control characters, a malformed accession) is skipped and added to ``rejected`` with the
    reason; an unreadable report date is dropped (the filing date stands in)."""
    data = client.get_json(f"{client.settings.data_url}/submissions/CIK{cik}.json")
    blocks = [data.get("filings", {}).get("recent", {})]
    for extra in data.get("filings", {}).get("files", []):
        if since is None or str(extra.get("filingTo", "9999")) >= since.isoformat():
            try:
                blocks.append(client.get_json(f"{client.settings.data_url}/submissions/{extra['name']}"))
            except EdgarError as exc:
                logger.warning("older filings of CIK %s not read: %s", cik, exc)
    wanted = {f.upper() for f in forms}
    found: dict[str, Filing] = {}
    for block in blocks:
        for row in _rows(block):
            form = str(row.get("form") or "")
            filed = str(row.get("filingDate") or "")
            if (wanted and form.upper() not in wanted) or not row.get("primaryDocument"):
                continue
            if since is not None and filed < since.isoformat():
                continue
            try:
                filing = Filing(
                    company=str(data.get("name") or ""),
                    cik=cik,
                    ticker=ticker,
                    form=form,
                    accession=str(row["accessionNumber"]),
                    filing_date=filed,
                    report_date=_report_date(row.get("reportDate")),
                    primary_document=str(row["primaryDocument"]),
                )
            except ValidationError as exc:
                reason = "; ".join(str(error["msg"]) for error in exc.errors())
                logger.warning("skipped filing %s: %s", shown(str(row.get("accessionNumber"))), reason)
                if rejected is not None:
                    rejected.append((str(row.get("accessionNumber"))[:40], reason))
                continue
            found[filing.accession] = filing
    return sorted(found.values(), key=lambda f: f.filing_date, reverse=True)


def _report_date(value: object) -> str | None:
    text = str(value or "")
    try:
        return _iso_date(text) if text else None
    except ValueError:
        return None


@dataclass
class FetchReport:
    downloaded: list[Path] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)  # already on disk
    failed: list[tuple[str, str]] = field(default_factory=list)  # (url, reason)


def download(client: EdgarClient, filings: list[Filing], dest: Path) -> FetchReport:
    """Download each filing's primary document to ``dest`` with its sidecar; resumable, one failure at a time."""
    dest.mkdir(parents=True, exist_ok=True)
    report = FetchReport()
    for filing in filings:
        target = dest / filing.file_name
        sidecar = target.with_name(target.name + SIDECAR_SUFFIX)
        if target.is_file() and target.stat().st_size > 0 and sidecar.is_file():
            report.skipped.append(target)
            continue
        url = client.settings.www_url + filing.url_path
        try:
            body = client.get(url)
            partial = target.with_name(f".{target.name}.part-{os.getpid()}")
            partial.write_bytes(body)
            os.replace(partial, target)
            sidecar.write_text(filing.model_dump_json(indent=2) + "\n", encoding="utf-8")
        except (EdgarError, OSError, ValueError) as exc:  # one filing fails; the others are still fetched
            report.failed.append((url, str(exc)))
            logger.warning("%s: %s", url, exc)
            continue
        report.downloaded.append(target)
    return report


def read_sidecar(document: Path) -> Filing | None:
    """EDGAR's description of a downloaded document, if it has a sidecar."""
    sidecar = document.with_name(document.name + SIDECAR_SUFFIX)
    if not sidecar.is_file():
        return None
    try:
        return Filing.model_validate_json(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # a damaged or tampered sidecar: the document is indexed without it
        logger.warning("ignoring %s: %s", sidecar, exc)
        return None
