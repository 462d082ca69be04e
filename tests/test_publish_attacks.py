"""What another local user plants beside an index, against publishing and its cleanup (issue 40, item 3).

An index's link, its version folders and builds' staging folders sit in the folder the index is in, which other
local users may be able to write to. Only what belongs to this process's user (its effective uid), judged with
``lstat`` (a link itself, not what it points to), and — a folder — that no one else can write to, is ours:

- an index whose link or current version folder is another user's, or whose version others can write to, is
  refused by a build and by ``add`` with an error naming it, and left as it was;
- an empty folder of another user's given as the index is refused, not removed and replaced by a link;
- a staging folder or a replaced version of another user's (or one others can write to), even marked as ours, is
  left in place by a build's cleanup, with a warning naming it.

Another user is ``nobody`` (uid 65534): files are given to it with ``chown``, so those checks run as root only.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pytest

from indexer.core.errors import IndexTargetError
from indexer.index.layout import OWNER_MARK
from indexer.index.publish import RETIRED_GRACE_S
from indexer.ingest.build import add_documents, build_index
from indexer.ingest.settings import BuildSettings
from tests.conftest import BROKER, SIFANG, docs_folder
from tests.test_cli import _cli

pytestmark = pytest.mark.slow  # a hostile suite: `make test` runs it, `make test-fast` leaves it out

NOBODY = 65534
AS_ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not AS_ROOT, reason="gives files to another user (nobody): run as root")
GONE_PID = 4_194_305  # above the largest pid_max Linux allows: no process has it


def _settings(index: Path, docs: Path, cache_dir: Path) -> BuildSettings:
    return BuildSettings(docs_dir=docs, index_dir=index, embedder="none", progress=False, cache_dir=cache_dir)


def _index(folder: Path, cache_dir: Path) -> Path:
    index = folder / "idx"
    assert build_index(_settings(index, docs_folder(folder / "docs", BROKER), cache_dir)).published
    assert index.is_symlink()
    return index


def _beside(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def _refused(index: Path, cache_dir: Path, named: Path, problem: str) -> None:
    """A build and an add both refuse ``index``, naming ``named`` and ``problem``; nothing beside it changes."""
    before = (_beside(index.parent), os.readlink(index))
    docs = docs_folder(index.parent / "docs", BROKER)
    with pytest.raises(IndexTargetError) as built:
        build_index(_settings(index, docs, cache_dir))
    with pytest.raises(IndexTargetError) as added:
        add_documents(BuildSettings(index_dir=index, progress=False, cache_dir=cache_dir), [SIFANG])
    for caught in (built, added):
        message = str(caught.value)
        assert str(named) in message and problem in message and "nothing was changed" in message, message
        assert "Remove it if it is not yours" in message
    assert (_beside(index.parent), os.readlink(index)) == before


@needs_root
def test_an_index_whose_link_is_another_users_is_refused(tmp_path: Path, cache_dir: Path) -> None:
    index = _index(tmp_path, cache_dir)
    os.lchown(index, NOBODY, NOBODY)  # the link itself, not its version
    _refused(index, cache_dir, index, "belongs to nobody")
    run = _cli("build", str(tmp_path / "docs"), "--index", str(index), "--embedder", "none", "--no-progress",
               cache=cache_dir)  # fmt: skip
    assert run.returncode == 2 and str(index) in run.stderr and "belongs to nobody" in run.stderr, run.stderr


@needs_root
def test_an_index_whose_version_folder_is_another_users_is_refused(tmp_path: Path, cache_dir: Path) -> None:
    index = _index(tmp_path, cache_dir)
    version = index.parent / os.readlink(index)
    os.chown(version, NOBODY, NOBODY)
    _refused(index, cache_dir, version, "belongs to nobody")


def test_an_index_whose_version_folder_others_can_write_is_refused(tmp_path: Path, cache_dir: Path) -> None:
    index = _index(tmp_path, cache_dir)
    version = index.parent / os.readlink(index)
    version.chmod(0o770)
    _refused(index, cache_dir, version, "can be written by other users (mode 0770)")


@needs_root
def test_an_empty_folder_of_another_users_is_not_replaced(tmp_path: Path, cache_dir: Path) -> None:
    index = tmp_path / "idx"
    index.mkdir(mode=0o755)
    os.chown(index, NOBODY, NOBODY)
    with pytest.raises(IndexTargetError, match="belongs to nobody") as caught:
        build_index(_settings(index, docs_folder(tmp_path / "docs", BROKER), cache_dir))
    assert str(index) in str(caught.value)
    assert index.is_dir() and not index.is_symlink() and index.stat().st_uid == NOBODY
    assert _beside(tmp_path) == {"docs", "idx"}


def _planted(folder: Path, owner: str) -> Path:
    """A folder marked as ours, as another user (or a user others can write through) could make it."""
    folder.mkdir()
    (folder / OWNER_MARK).write_text("planted\n")
    (folder / "keep.txt").write_text("keep")
    if owner == "nobody":
        for path in (folder / OWNER_MARK, folder / "keep.txt", folder):
            os.chown(path, NOBODY, NOBODY)
    else:
        folder.chmod(0o777)
    return folder


OWNERS = [pytest.param("nobody", marks=needs_root), "writable by others"]


@pytest.mark.parametrize("owner", OWNERS)
def test_a_planted_staging_folder_is_left_in_place(
    owner: str, tmp_path: Path, cache_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    index = _index(tmp_path, cache_dir)
    planted = _planted(tmp_path / f".idx.building-{GONE_PID}-abc123", owner)  # its "build" is not running
    with caplog.at_level(logging.WARNING, logger="indexer.index.publish"):
        assert build_index(_settings(index, tmp_path / "docs", cache_dir)).published
    assert (planted / "keep.txt").read_text() == "keep" and (planted / OWNER_MARK).exists()
    assert any(str(planted) in record.getMessage() and "left" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("owner", OWNERS)
def test_a_planted_retired_version_is_left_in_place(
    owner: str, tmp_path: Path, cache_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    index = _index(tmp_path, cache_dir)
    first = index.resolve()
    planted = _planted(tmp_path / ".idx.v-123", owner)
    long_ago = time.time() - RETIRED_GRACE_S - 60
    os.utime(planted, (long_ago, long_ago))
    assert build_index(_settings(index, tmp_path / "docs", cache_dir)).published  # retires the first version
    os.utime(first, (long_ago, long_ago))
    with caplog.at_level(logging.WARNING, logger="indexer.index.publish"):
        assert build_index(_settings(index, tmp_path / "docs", cache_dir)).published  # its grace is over
    assert not first.exists()  # ours: removed as before
    assert (planted / "keep.txt").read_text() == "keep" and (planted / OWNER_MARK).exists()
    assert any(str(planted) in record.getMessage() for record in caplog.records)
