"""verify_claims: many figures checked in one call, one verdict per claim in order, each as locate_quote would
(a real annual report page: 四方科技's key figures, p.5), compact in text and in structuredContent."""

from __future__ import annotations

import json
from pathlib import Path

from indexer.core.models import Box
from indexer.evidence.claim_checks import Claim, check_claims
from indexer.evidence.quotes import Located
from mcp_server.briefs import box_text
from tests.conftest import SIFANG, call_tools

REVENUE_2019 = "1,175,301,034.32"  # 营业收入, column 2019年, on p.5


def test_each_claim_gets_its_verdict_in_order(samples_index_dir: Path, cache_dir: Path) -> None:
    claims = [
        {"document": SIFANG.name, "page": 5, "quote": REVENUE_2019},
        {"document": SIFANG.name, "page": 5, "quote": REVENUE_2019, "label": "营业收入", "period": "2019年"},
        {"document": SIFANG.name, "page": 5, "quote": REVENUE_2019, "label": "营业收入", "period": "2018年"},
        {"document": SIFANG.name, "page": 5, "quote": "2019"},
        {"document": SIFANG.name, "page": 5, "quote": "9,999,999.99"},
        {"document": "nope.pdf", "page": 5, "quote": "1"},
        {"document": SIFANG.name, "page": 99, "quote": "1"},
        {"document": SIFANG.name, "page": 4, "quote": "2,464,948,703.85"},  # printed on p.5: a neighbouring page
        {"document": SIFANG.name, "page": 5, "quote": REVENUE_2019, "label": "营业总收入", "period": "2019年"},
    ]
    compact, full = call_tools(samples_index_dir, cache_dir, [
        ("verify_claims", {"claims": claims}),
        ("verify_claims", {"claims": claims, "detail": "full"}),
    ])  # fmt: skip
    checks = compact.structured_content["checks"]
    assert [c["status"] for c in checks] == [
        "verified", "verified", "elsewhere", "ambiguous", "not_found", "error", "error", "verified",
        "label_not_matched",
    ]  # fmt: skip
    assert [c["claim"] for c in checks] == list(range(1, 10))
    assert "in row '营业收入' under '2019年'" in checks[8]["note"]
    assert checks[0]["page"] == 5 and Box(**checks[0]["bbox"]).page == 5
    assert "2019年" in checks[2]["note"]  # where the figure really is
    assert checks[3]["candidates"] > 1
    assert "nope.pdf" in checks[5]["note"] and "pages 1 to 12" in checks[6]["note"]
    assert checks[7]["page"] == 5 and checks[7]["requested_page"] == 4
    assert compact.structured_content["counts"] == {
        "verified": 3, "elsewhere": 1, "ambiguous": 1, "not_found": 1, "error": 2, "label_not_matched": 1,
    }  # fmt: skip

    lines = compact.content[0].text.splitlines()
    assert len(lines) == 1 + len(claims)  # a head line, then one line per claim
    assert lines[1].startswith(
        f"[1] VERIFIED {SIFANG.name} p.5 '{REVENUE_2019}' · box {box_text(Box(**checks[0]['bbox']))}"
    )
    assert lines[3].startswith("[3] ELSEWHERE") and lines[6].startswith("[6] ERROR nope.pdf p.5")
    assert lines[9].startswith("[9] LABEL NOT MATCHED")
    whole = full.structured_content["full"]["checks"]
    assert json.loads(full.content[0].text)["checks"] == whole
    assert len(whole[3]["bboxes"]) == checks[3]["candidates"] and "bboxes" not in checks[3]


def test_fifty_claims_at_most_and_a_deadline_for_the_call(samples_index_dir: Path, cache_dir: Path) -> None:
    (too_many,) = call_tools(samples_index_dir, cache_dir, [
        ("verify_claims", {"claims": [{"document": SIFANG.name, "page": 5, "quote": "1"}] * 51}),
    ])  # fmt: skip
    assert too_many.is_error and "50" in too_many.content[0].text

    calls = []

    def slow(document: str, page: int, quote: str, label: str | None, period: str | None) -> Located:
        calls.append(quote)
        return Located(verified=True, match="exact", matched_text=quote, boxes=[], page=page)

    claims = [Claim(document="a.pdf", page=1, quote=str(n)) for n in range(3)]
    checks = check_claims(slow, claims, budget_s=0)  # no time left: nothing is checked, every claim is said so
    assert not calls and [c.status for c in checks] == ["not_checked"] * 3
    assert "another call" in checks[0].note
