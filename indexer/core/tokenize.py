"""The one tokenizer used at index time and at query time.

CJK runs go through jieba (search mode, so 归属于上市公司股东 also yields 上市公司 and 股东), Latin words are
lower-cased and stemmed (Snowball English), a hyphenated compound also gives its closed form ("buy-back" →
buy, back, buyback: writers print both), numbers are normalised ("1,234.50" → "1234.5"), and
one-character Latin tokens and common stopwords are dropped. Its settings are recorded in the manifest.

A BM25 index of its own holds every pair of adjacent CJK characters of each passage (:meth:`Tokenizer.bigrams`),
so that a phrase printed on a page is found whatever jieba makes of the phrase and of the page: 前五名客户 is 前五,
五名, 名客, 客户 on both sides. A line break inside a CJK run does not cut it (Chinese wraps anywhere).
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from functools import cached_property
from pathlib import Path

from indexer.core.text import CJK_RANGE
from indexer.data import data_lines
from indexer.data.vocabulary import vocabulary

TOKENIZER_ID = "filings-tok-3"
BIGRAM_MARK = "bg_"  # a bigram token's prefix: no word token holds "_", and Milvus's analyzer keeps it whole

# A form name, a hyphenated compound ("buy-back"), a number (with thousands separators and decimals), a Latin word,
# or a run of CJK characters.
_TOKEN_RE = re.compile(
    r"(?P<form>\b(?:10-k|10-q|8-k|20-f|6-k|s-1)\b)"
    r"|(?P<compound>\b[a-z]+(?:-[a-z]+)+\b)(?:['’]s\b)?"
    rf"|(?P<word>\d*[a-z][a-z0-9]*)(?:['’]s\b)?"
    rf"|(?P<num>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"|(?P<cjk>[{CJK_RANGE}]+)"
)
_CJK_RUN = re.compile(rf"[{CJK_RANGE}]+(?:\n[{CJK_RANGE}]+)*")


_HALF_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


def normalize_text(text: str) -> str:
    """Full-width → half-width and lower case, so that "１，２３４" and "1,234" tokenize alike."""
    return text.translate(_HALF_WIDTH).lower()


def normalize_aligned(text: str) -> str:
    """As :func:`normalize_text`, but always one character for one (lower() can lengthen a few letters)."""
    normalized = normalize_text(text)
    if len(normalized) == len(text):
        return normalized
    return "".join(normalize_text(char)[:1] or char for char in text)


def normalize_number(raw: str) -> str:
    """'1,234.50' → '1234.5'; '2019' stays '2019'."""
    plain = raw.replace(",", "")
    if "." in plain:
        plain = plain.rstrip("0").rstrip(".")
    return plain or "0"


def _user_words() -> list[str]:
    return vocabulary().user_words


class Tokenizer:
    """Thread-safe, lazily initialised tokenizer. ``cache_dir`` holds jieba's dictionary cache."""

    def __init__(self, cache_dir: Path | None = None) -> None:
        self._cache_dir = cache_dir
        self._lock = threading.Lock()
        self._jieba: object | None = None

    @cached_property
    def settings(self) -> dict[str, object]:
        def digest(words: list[str] | frozenset[str]) -> str:
            return hashlib.sha256("\n".join(sorted(words)).encode()).hexdigest()[:16]

        return {
            "id": TOKENIZER_ID,
            "cjk": "jieba.lcut_for_search",
            "latin": "lower+snowball-english",
            "numbers": "strip-thousands-separators",
            "cjk_bigrams": f"{BIGRAM_MARK}+each adjacent pair, passages, an index of their own",
            "user_words_sha256": digest(_user_words()),
            "stopwords_sha256": digest(self._stopwords_en | self._stopwords_zh),
        }

    @cached_property
    def _stopwords_en(self) -> frozenset[str]:
        return frozenset(data_lines("stopwords_en.txt"))

    @cached_property
    def _stopwords_zh(self) -> frozenset[str]:
        return frozenset(data_lines("stopwords_zh.txt"))

    def _segmenter(self):  # type: ignore[no-untyped-def]
        with self._lock:
            if self._jieba is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                tokenizer = jieba.Tokenizer()
                if self._cache_dir is not None:
                    self._cache_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
                    tokenizer.tmp_dir = str(self._cache_dir)
                tokenizer.initialize()
                for word in _user_words():
                    tokenizer.add_word(word, freq=200000)
                self._jieba = tokenizer
            return self._jieba

    @cached_property
    def _stemmer(self):  # type: ignore[no-untyped-def]
        import Stemmer

        return Stemmer.Stemmer("english")

    def warm_up(self) -> None:
        self._segmenter()

    def tokenize(self, text: str) -> list[str]:
        tokens: list[str] = []
        for match in _TOKEN_RE.finditer(normalize_text(text)):
            if (form := match.group("form")) is not None:
                tokens.append(form)
            elif (compound := match.group("compound")) is not None:
                # each word, and the closed form a writer may print instead ("buy-back" = "buyback")
                tokens.extend(self._stemmer.stemWord(w) for w in compound.split("-") if self._kept(w))
                tokens.append(self._stemmer.stemWord(compound.replace("-", "")))
            elif (num := match.group("num")) is not None:
                value = normalize_number(num)
                if len(value) > 1:
                    tokens.append(value)
            elif (word := match.group("word")) is not None:
                if self._kept(word):
                    tokens.append(self._stemmer.stemWord(word))
            else:
                segmenter = self._segmenter()
                for piece in segmenter.lcut_for_search(match.group("cjk")):  # type: ignore[attr-defined]
                    if piece not in self._stopwords_zh:
                        tokens.append(piece)
        return tokens

    @staticmethod
    def bigrams(text: str) -> list[str]:
        """Each pair of adjacent CJK characters of ``text``, marked (a run wrapped onto the next line continues)."""
        out: list[str] = []
        for run in _CJK_RUN.findall(normalize_text(text)):
            chars = run.replace("\n", "")
            out.extend(BIGRAM_MARK + chars[i : i + 2] for i in range(len(chars) - 1))
        return out

    def _kept(self, word: str) -> bool:
        return len(word) > 1 and word not in self._stopwords_en

    def tokenize_many(self, texts: list[str]) -> list[list[str]]:
        return [self.tokenize(text) for text in texts]
