"""Every regular expression the package applies runs in time linear in its text (issue 40: a quote of letters and
1,600 spaces drove the number pattern into cubic time, 70 s holding the interpreter lock while every session waited).

The patterns are found, not listed: each compiled pattern a module holds (alone, in a list or a dict), each pattern
written at a ``re.*`` call (a literal or an f-string of module constants), and the patterns of the data files
(concepts, question routes, judgements). Each is fed runs of the characters that make patterns backtrack (spaces,
dots, digits and commas, signs, letters, CJK), with something it cannot end on. A pattern whose time grows more than
linearly from 2,000 to 16,000 characters fails, named with the input that showed it: linear time grows 8x, quadratic
64x, and the sizes are large enough that a pattern worth measuring takes milliseconds, far above the timer's noise,
so the verdict does not depend on the machine's load (issue 56: at 500 and 2,000 characters a quadratic pattern
passed or failed by its noise floor).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import indexer
import mcp_server
from indexer.core.sections import _routes, headings
from indexer.data.vocabulary import vocabulary
from indexer.evidence.concepts import concepts
from indexer.evidence.outline import _statement_titles
from indexer.evidence.statement_content import _markers
from indexer.search.expand import _judgements

pytestmark = pytest.mark.serial  # run alone, after the parallel run (Makefile: test)

UNITS = [" ", "\t", "\u3000", ".", "…", "1", "1,", "1 ", "a", "a ", "A", "*", "$", "$ ", "(", "- ", "|", "年", "-"]
ENDS = [("", ""), ("(", "z"), ("a", "\x00"), ("$", ")")]  # what comes before the run, and what it cannot end on
SMALL, LARGE = 2_000, 16_000
FAST_S = 0.002  # a pattern that reads LARGE characters faster than this costs nothing worth measuring
GROWTH = 24.0  # linear grows 8x from SMALL to LARGE, quadratic 64x: the verdict sits between, far from both


def _modules() -> Iterator[object]:
    for package in (indexer, mcp_server):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if not info.name.endswith("__main__"):
                yield importlib.import_module(info.name)


def _held(name: str, value: object, depth: int = 0) -> Iterator[tuple[str, re.Pattern[str]]]:
    if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
        yield name, value
    elif depth < 2 and isinstance(value, list | tuple):
        for position, item in enumerate(value):
            yield from _held(f"{name}[{position}]", item, depth + 1)
    elif depth < 2 and isinstance(value, dict):
        for key, item in value.items():
            yield from _held(f"{name}[{key!r}]", item, depth + 1)


def _written(module: object) -> Iterator[tuple[str, re.Pattern[str]]]:
    """The patterns written at ``re.*(pattern, …)`` calls: literals, and f-strings or names of module constants."""
    path = Path(module.__file__)  # type: ignore[attr-defined]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
            continue
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id == "re"):
            continue
        try:
            text = eval(compile(ast.Expression(node.args[0]), str(path), "eval"), dict(vars(module)))
            flags = re.I if "re.I" in ast.unparse(node) else 0
            if isinstance(text, str):
                yield f"{module.__name__}:{node.lineno}", re.compile(text, flags)  # type: ignore[attr-defined]
        except Exception:  # a pattern built from a function's own variables: not ours to evaluate
            continue


def _patterns() -> dict[str, re.Pattern[str]]:
    found: dict[tuple[str, int], tuple[str, re.Pattern[str]]] = {}
    for module in _modules():
        for name, value in vars(module).items():
            for key, pattern in _held(f"{module.__name__}.{name}", value):  # type: ignore[attr-defined]
                found.setdefault((pattern.pattern, pattern.flags), (key, pattern))
        for key, pattern in _written(module):
            found.setdefault((pattern.pattern, pattern.flags), (key, pattern))
    data = [(f"vocabulary.toml concepts.{c.name}", c.pattern) for c in concepts()]
    data += [(f"vocabulary.toml routes {sections}", p) for p, sections in _routes()]
    data += [(f"vocabulary.toml judgements {terms[:1]}", p) for p, terms in _judgements()]
    data += [(f"vocabulary.toml statements.{label} (page heading)", p) for label, p in headings()]
    data += [(f"vocabulary.toml statements.{label} (outline)", p) for label, p in _statement_titles()]
    for kind in vocabulary().section_kinds:
        compiled = [kind.titles, kind.headings, kind.topics, *(p for _, p in kind.reports)]
        data += [(f"vocabulary.toml {kind.home}", p) for p in compiled if p is not None]
    data += [(f"vocabulary.toml statements.{k}.rows.{r}", p) for k, rows in _markers().items() for r, p in rows.items()]
    for key, pattern in data:
        found.setdefault((pattern.pattern, pattern.flags), (key, pattern))
    return dict(found.values())


def _seconds(pattern: re.Pattern[str], text: str, tries: int = 1) -> float:
    best = float("inf")
    for _ in range(tries):
        started = time.perf_counter()
        for _match in pattern.finditer(text):
            pass
        pattern.match(text)
        best = min(best, time.perf_counter() - started)
    return best


def _text(head: str, unit: str, tail: str, length: int) -> str:
    return head + unit * (length // len(unit)) + tail


def test_the_scan_finds_the_patterns_it_is_meant_to() -> None:
    patterns = _patterns()
    assert len(patterns) > 300
    from indexer.evidence.quotes import _NUMBER

    assert any(p is _NUMBER for p in patterns.values())  # the one of the attack
    assert any(key.startswith("vocabulary.toml concepts.") for key in patterns)


def _superlinear(pattern: re.Pattern[str]) -> list[str]:
    """The inputs on which ``pattern``'s time grows more than linearly, each with its growth."""
    found = []
    for unit in UNITS:
        for head, tail in ENDS:
            if _seconds(pattern, _text(head, unit, tail, LARGE)) < FAST_S:
                continue  # whatever its growth, it costs nothing at this size
            small = _seconds(pattern, _text(head, unit, tail, SMALL), tries=3)
            large = _seconds(pattern, _text(head, unit, tail, LARGE), tries=3)
            if large > GROWTH * small:
                found.append(f"{large / max(small, 1e-9):.0f}x on {head!r}+{unit!r}*n+{tail!r}")
    return found


def test_the_check_tells_a_quadratic_pattern_from_a_linear_one() -> None:
    assert _superlinear(re.compile(r" *x"))  # from each space, to the end of the run: quadratic
    # the folio pattern of issue 56, quadratic on runs of U+3000, then as it is now (a run is tried once)
    assert _superlinear(re.compile(r"\s+\|\s+\d{1,4}$|^\d{1,4}\s+\|\s+"))
    assert not _superlinear(re.compile(r"(?<!\s)\s+\|\s+\d{1,4}$|^\d{1,4}\s+\|\s+"))
    assert not _superlinear(re.compile(r"[ .]+"))


def test_every_pattern_runs_in_linear_time() -> None:
    slow = [f"{key}: {growth}" for key, pattern in _patterns().items() for growth in _superlinear(pattern)]
    assert not slow, "\n".join(slow)
