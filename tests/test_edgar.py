"""The EDGAR client end to end against a local server replaying real recorded EDGAR responses (no network)."""

from __future__ import annotations

import itertools
import json
import socket
from datetime import date
from pathlib import Path

import pytest

from indexer.cli import main as cli_main
from indexer.ingest.edgar import (
    EdgarClient,
    EdgarError,
    EdgarSettings,
    check_user_agent,
    download,
    list_filings,
    parse_since,
    read_sidecar,
    resolve_cik,
)
from tests.edgar_server import RECORDED, Faults, edgar_server

AGENT = "Filings Test tests@example.com"
AAPL_10K = "/Archives/edgar/data/320193/000032019324000123/aapl-20240928.htm"


class FakeTime:
    """A clock that sleeping advances: rate limits and back-off are checked without waiting."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now


def _client(base: str, fake: FakeTime | None = None, **kwargs: object) -> EdgarClient:
    settings = EdgarSettings(user_agent=AGENT, www_url=base, data_url=base, **kwargs)  # type: ignore[arg-type]
    if fake is None:
        return EdgarClient(settings)
    return EdgarClient(settings, sleep=fake.sleep, clock=fake.clock)


def test_ticker_to_filings_to_files_with_metadata(tmp_path: Path) -> None:
    faults = Faults()
    with edgar_server(faults) as base:
        client = _client(base)
        cik, company = resolve_cik(client, "aapl")
        assert (cik, company) == ("0000320193", "Apple Inc.")
        filings = list_filings(client, cik, "AAPL", ["10-K"], date(2024, 1, 1))
        assert [f.accession for f in filings][:2] == ["0000320193-25-000079", "0000320193-24-000123"]
        ten_k = next(f for f in filings if f.accession == "0000320193-24-000123")
        assert (ten_k.form, ten_k.filing_date, ten_k.report_date) == ("10-K", "2024-11-01", "2024-09-28")
        report = download(client, [ten_k], tmp_path)
    target = report.downloaded[0]
    assert target.name == "AAPL_10-K_2024-09-28_0000320193-24-000123.htm"
    assert target.read_bytes() == (RECORDED / AAPL_10K.lstrip("/")).read_bytes()
    sidecar = read_sidecar(target)
    assert sidecar is not None and sidecar.company == "Apple Inc." and sidecar.cik == "0000320193"
    assert all(agent == AGENT for _, agent in faults.requests)  # SEC's required header on every request


def test_download_is_resumable_and_a_missing_document_is_reported(tmp_path: Path) -> None:
    with edgar_server(Faults()) as base:
        client = _client(base)
        filings = list_filings(client, "0000320193", "AAPL", ["10-K"], date(2024, 1, 1))
        first = download(client, filings, tmp_path)
        requests = client.requests
        second = download(client, filings, tmp_path)
    # the recorded corpus lacks the 2025 10-K: reported, the rest downloaded
    assert [Path(url).name for url, _ in first.failed] == ["aapl-20250927.htm"]
    assert "404" in first.failed[0][1]
    assert len(first.downloaded) == 1 and second.skipped == first.downloaded and not second.downloaded
    assert client.requests == requests + 1  # only the missing one is asked for again
    assert not list(tmp_path.glob(".*.part-*"))


def test_429_with_retry_after_and_500_are_retried(tmp_path: Path) -> None:
    fake = FakeTime()
    faults = Faults(before={AAPL_10K: [(429, {"Retry-After": "3"}), (500, {})]})
    with edgar_server(faults) as base:
        client = _client(base, fake)
        body = client.get(base + AAPL_10K)
    assert body == (RECORDED / AAPL_10K.lstrip("/")).read_bytes()
    assert [p for p, _ in faults.requests].count(AAPL_10K) == 3
    assert 3.0 in fake.sleeps and 2.0 in fake.sleeps  # Retry-After honoured, then the doubled back-off


def test_persistent_500_gives_up_with_a_clear_message() -> None:
    fake = FakeTime()
    faults = Faults(before={AAPL_10K: [(500, {})] * 10})
    with edgar_server(faults) as base, pytest.raises(EdgarError, match=r"answered 500 .* after 3 tries"):
        _client(base, fake, retries=2).get(base + AAPL_10K)


def test_requests_are_paced_under_ten_per_second() -> None:
    fake = FakeTime()
    with edgar_server(Faults()) as base:
        client = _client(base, fake)
        moments = []
        for _ in range(5):
            client.get(base + "/files/company_tickers.json")
            moments.append(fake.now)
    assert all(later - earlier >= 0.1 - 1e-9 for earlier, later in itertools.pairwise(moments))


def test_unknown_ticker_missing_agent_and_network_error_are_explained() -> None:
    with edgar_server(Faults()) as base, pytest.raises(EdgarError, match="unknown ticker 'ZZZZQ'"):
        resolve_cik(_client(base), "ZZZZQ")
    with pytest.raises(EdgarError, match="requires a User-Agent"):
        check_user_agent(None)
    with pytest.raises(EdgarError, match="name and an e-mail"):
        check_user_agent("python-urllib")
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}"
    fake = FakeTime()
    with pytest.raises(EdgarError, match=r"cannot reach .* after 2 tries; check the network"):
        _client(dead, fake, retries=1).get(dead + "/files/company_tickers.json")
    with pytest.raises(EdgarError, match="--since takes a year"):
        parse_since("last year")


def test_fetch_command(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FILINGS_SEC_USER_AGENT", raising=False)
    args = ["fetch", "--ticker", "NVDA", "--form", "10-Q", "--since", "2025-06-01", "--dest", str(tmp_path)]
    assert cli_main(args) == 2
    assert "requires a User-Agent" in capsys.readouterr().err
    monkeypatch.setenv("FILINGS_SEC_USER_AGENT", AGENT)
    with edgar_server(Faults()) as base:
        code = cli_main([*args, "--sec-www-url", base, "--sec-data-url", base, "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert summary["cik"] == "0001045810" and summary["company"].upper().startswith("NVIDIA")
    names = [Path(p).name for p in summary["downloaded"]]
    assert "NVDA_10-Q_2025-07-27_0001045810-25-000209.htm" in names
    assert code == (1 if summary["failed"] else 0)  # filings the recording lacks are reported, not fatal
