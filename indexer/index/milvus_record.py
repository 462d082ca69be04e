"""Whether a Milvus storage record is the index's own, checked before anything is connected to or created.

A version's manifest says where its BM25 and vectors are (``milvus``: a URI, the collections' prefix, their names).
A manifest can be edited, or come with an index copied from elsewhere, so the record is not trusted for itself; it
is held against what the index is and what the operator said:

- ``milvus.uri`` is the index's own milvus-lite folder (``.NAME.milvus.db`` beside the index, as the build makes it
  when no URI is given), or a URI the operator named: ``FILINGS_MILVUS_URI`` or the URI a build of this process was
  given (``--milvus-uri``; :func:`indexer.index.milvus_client.named`). So an edited record can neither send
  ``FILINGS_MILVUS_TOKEN`` (or the queries) to a server of someone else's, nor make folders and a database
  anywhere else on disk;
- ``milvus.prefix`` is the one made from the index's path (its name and a hash of the path:
  :func:`~indexer.index.milvus_storage.collection_prefix`), so a record cannot name another index's collections on
  a shared Milvus, nor have them dropped by the next update of this one;
- every collection it names is one of that prefix's, of its own kind, as the writer names them.

A record that disagrees refuses the load, the update or the verification with :class:`StorageRecordError`, which
names the field. The index is told from the folder at hand (a version, a build's staging folder, or the index path)
both as it was spelled and resolved, so an index reached through a linked folder keeps its prefix.
"""

from __future__ import annotations

from pathlib import Path

from indexer.core.errors import IndexLoadError, shown
from indexer.index.layout import MANIFEST, index_of
from indexer.index.milvus_client import TOKEN_ENV, URI_ENV, named
from indexer.index.milvus_storage import ALIASES, collection_pattern, collection_prefix, default_lite_path
from indexer.index.store import MilvusInfo

URI_CHARS = 300  # of a value read from a manifest, quoted in a message (it may be of any length)


class StorageRecordError(IndexLoadError):
    """A storage record (or a build's URI) that is not the index's own: nothing was connected to or created."""


def _indexes(folder: Path) -> list[Path]:
    """The index ``folder`` belongs to, spelled as given and with every link resolved."""
    spelled, resolved = index_of(folder), index_of(folder.resolve())
    return [spelled] if spelled == resolved else [spelled, resolved]


def _refusal(index: Path, field: str, value: str, problem: str, advice: str = "") -> StorageRecordError:
    return StorageRecordError(
        f"the Milvus storage of the index at {index} is refused: its storage record's {field} is "
        f"{shown(value, URI_CHARS)}, which {problem}; nothing was connected to or created. {advice}Run `filings-index "
        f"verify --index {index}`; if its {MANIFEST} was changed, rebuild the index: `filings-index build DOCS "
        f"--index {index} --backend milvus`"
    )


def _own_folder(uri: str, indexes: list[Path]) -> bool:
    if "://" in uri:
        return False
    target = Path(uri).resolve()
    return any(default_lite_path(index).resolve() == target for index in indexes)


def check_storage(folder: Path, uri: str, prefix: str) -> None:
    """``uri`` and ``prefix`` are the index's own (the index ``folder`` is, or belongs to), or ``uri`` was named by
    the operator; :class:`StorageRecordError` otherwise."""
    indexes = _indexes(folder)
    if not (named(uri) or _own_folder(uri, indexes)):
        raise _refusal(
            indexes[0],
            f"milvus.uri (in {MANIFEST}, or a build's --milvus-uri)",
            uri,
            f"is neither its own milvus-lite folder {default_lite_path(indexes[0])} nor a Milvus you named",
            f"If that Milvus is yours, name it: --milvus-uri on `filings-index build`, {URI_ENV} set to it for updates "
            f"and the server ({TOKEN_ENV} is only ever sent to a URI named so). ",
        )
    expected = [collection_prefix(index) for index in indexes]
    if prefix not in expected:
        raise _refusal(
            indexes[0],
            f"milvus.prefix (in {MANIFEST})",
            prefix,
            f"is not the prefix made from its path ({expected[0]})",
        )


def check_record(folder: Path, record: MilvusInfo) -> None:
    """``record`` is the storage record of the index ``folder`` is, or belongs to: its URI and prefix
    (:func:`check_storage`) and each collection it names; :class:`StorageRecordError` otherwise."""
    check_storage(folder, record.uri, record.prefix)
    for kind in ALIASES:
        name = getattr(record, kind)
        if name and not collection_pattern(record.prefix, [kind]).fullmatch(name):
            raise _refusal(
                index_of(folder),
                f"milvus.{kind} (in {MANIFEST})",
                name,
                f"is not one of its own collections ({record.prefix}_<time>_<id>_{kind})",
            )
