"""Whether an index was made with the words this version reads, told before it is served.

A build records its tokenizer's settings (the words jieba keeps whole, the stopwords) and the digest of every data
file (:func:`indexer.data.digests`). An index whose index-time words differ from the running code's was split into
words that queries no longer make: it is refused, with what differs and the command that rebuilds it. One whose
query-time words differ (the vocabulary's concepts, terms, routes and judgements) is served: its answers use this
version's words, and the note says so. Nothing is silent.
"""

from __future__ import annotations

from pathlib import Path

from indexer.core.errors import ECHO_CHARS, IndexLoadError, shown
from indexer.data import INDEX_TIME, digests

_SETTINGS = {  # a tokenizer setting → the words it stands for (an index that recorded no file digests has only these)
    "user_words_sha256": "the words jieba keeps whole (keep_whole in vocabulary.toml)",
    "stopwords_sha256": "the stopwords (stopwords_en.txt, stopwords_zh.txt)",
}
_COVERED = frozenset({"stopwords_sha256"})  # settings that the files' own digests say more precisely, when recorded


RECIPE = "recipe"  # the key an index built before the manifest's own `recipe` field recorded the recipe's id under


def recorded() -> dict[str, str]:
    """What a build records of the words this version reads: every data file's digest. The search recipe is
    recorded apart (the manifest's ``recipe``): an index is searched with the server's, whatever it was built with."""
    return digests()


def _changed(recorded: dict[str, object], running: dict[str, object]) -> list[str]:
    return sorted(name for name in recorded.keys() | running.keys() if recorded.get(name) != running.get(name))


def check_words(
    index: Path,
    tokenizer: dict[str, object],
    vocabulary: dict[str, str],
    running_tokenizer: dict[str, object],
    running_vocabulary: dict[str, str],
) -> str | None:
    """Raise :class:`IndexLoadError` when the index's index-time words are not this version's; else a note naming
    the query-time files that differ (None when none do, or when the index recorded none: built before they were)."""
    files = _changed(dict(vocabulary), dict(running_vocabulary)) if vocabulary else []
    files = [name for name in files if name != RECIPE]  # information about the answers, not about the words
    files = [name for name in files if name in vocabulary or name not in INDEX_TIME]  # not recorded: built before
    settings = [key for key in _changed(tokenizer, running_tokenizer) if key != "id"]
    differ = [f"{name} ({INDEX_TIME[name]})" for name in files if name in INDEX_TIME]
    differ += [_SETTINGS.get(key, f"the tokenizer's {_named(key)}") for key in settings
               if not (vocabulary and key in _COVERED)]  # fmt: skip
    if differ:
        raise IndexLoadError(
            f"the index at {index} was built with other words than this version reads: {'; '.join(differ)}; its "
            "passages were split into words that queries no longer make. Rebuild it with this version: "
            f"`filings-index build DOCS --index {index}` (unchanged files are not parsed again, vectors come from the "
            "cache)"
        )
    answering = [name for name in files if name not in INDEX_TIME]
    if not answering:
        return None
    return (
        f"the index was built with other query-time words or settings ({_listed(answering)}) than this server "
        "reads; answers use the server's (a rebuild records them)"
    )


SHOWN_NAMES = 6  # names a note lists before it counts the rest


def _named(name: str) -> str:
    """A key read from a manifest, shown as it reads: escaped (quoted) unless it is one plain line."""
    return name if name.isprintable() and len(name) <= ECHO_CHARS else shown(name)


def _listed(names: list[str]) -> str:
    listed = ", ".join(_named(name) for name in names[:SHOWN_NAMES])
    return listed + (f" and {len(names) - SHOWN_NAMES} more" if len(names) > SHOWN_NAMES else "")
