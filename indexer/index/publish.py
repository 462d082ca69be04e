"""Publishing a built index folder, atomically, and cleaning up after builds — touching only what we made.

The index path is a symbolic link to a version folder beside it (``.NAME.v-<time>``). A build writes into a staging
folder (``.NAME.building-<pid>-<random>``, marked as ours from its first moment), which publishing renames to a new
version and then swaps the link with one rename: a reader finds the old version or the new one, never neither and
never a mix. A replaced version stays for RETIRED_GRACE_S for the calls still reading it, then is removed. A path
that is not one of our indexes (a user's folder, a file, a foreign link) is refused, never moved or deleted.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

from pydantic import ValidationError

from indexer.core.errors import IndexLoadError, IndexTargetError
from indexer.index.layout import MANIFEST, OWNER_MARK
from indexer.index.store import Manifest, index_files

logger = logging.getLogger(__name__)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _owned(folder: Path) -> bool:
    """A real folder (not a link) that the indexer made: its mark, or an index from before marks (see _legacy_index)."""
    return folder.is_dir() and not folder.is_symlink() and ((folder / OWNER_MARK).is_file() or _legacy_index(folder))


def _legacy_index(folder: Path) -> bool:
    """An index folder written before versioned publishing: a manifest of ours whose file list covers every file in
    the folder (so moving it moves nothing else)."""
    try:
        manifest = Manifest.model_validate_json((folder / MANIFEST).read_bytes())
    except (OSError, ValidationError):
        return False
    return bool(manifest.files) and set(index_files(folder)) <= set(manifest.files)


def _version_pattern(target: Path) -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(target.name)}\.v-(?:0-)?\d+")


def _staging_pattern(target: Path) -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(target.name)}\.building-(\d+)-[A-Za-z0-9_]+")


def _our_link(target: Path) -> bool:
    """``target`` is a link that publish() made: to a version folder beside it, by name."""
    pointed = os.readlink(target)
    if not _version_pattern(target).fullmatch(pointed):
        return False
    version = target.parent / pointed
    return not version.exists() or _owned(version)


def check_index_target(target: Path) -> None:
    """Refuse to build into ``target`` unless it is absent, an empty folder, or an index this tool made; nothing
    the project did not create is ever moved, renamed or deleted."""
    advice = (
        "nothing was changed. Pass a path that does not exist yet (it will be created), an empty folder, or an "
        "index made by filings-index"
    )
    if target.is_symlink():
        if _our_link(target):
            return
        raise IndexTargetError(f"{target} is a link to {os.readlink(target)}, not an index of ours; {advice}")
    if not target.exists():
        return
    if not target.is_dir():
        raise IndexTargetError(f"{target} is a file, not an index folder; {advice}")
    if _legacy_index(target) or not any(target.iterdir()):
        return
    if (target / MANIFEST).exists():
        what = (
            f"has a {MANIFEST}, but files it does not list, or it is from a version that did not list its files, "
            "so its files cannot be told from others"
        )
    else:
        what = f"has no {MANIFEST}"
    raise IndexTargetError(f"{target} is a folder that is not a filings index (it {what}); {advice}")


def remove_abandoned_staging(target: Path) -> list[Path]:
    """Staging folders left by killed builds (their process is gone) are removed; running builds' are kept, and so
    is anything that is not a staging folder of ours."""
    removed = []
    pattern = _staging_pattern(target)
    for folder in target.parent.glob(f".{target.name}.building-*"):
        named = pattern.fullmatch(folder.name)
        if named and _owned(folder) and not _alive(int(named.group(1))):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def staging_folder(target: Path) -> Path:
    """A fresh folder beside ``target`` (same file system, so the final rename is atomic), named with our pid and
    marked as ours."""
    check_index_target(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    for folder in remove_abandoned_staging(target):
        logger.warning("removed %s, left by an interrupted build", folder)
    folder = Path(tempfile.mkdtemp(prefix=f".{target.name}.building-{os.getpid()}-", dir=target.parent))
    (folder / OWNER_MARK).write_text("made by filings-index; removed with the index version it becomes\n")
    return folder


# A replaced version stays on disk this long after it was replaced, for the calls still reading it (a server
# moves to the new version on its next call).
RETIRED_GRACE_S = 600.0


def publish(staging: Path, target: Path) -> None:
    """Make ``staging`` the index at ``target``, atomically.

    ``target`` is a symbolic link to a version folder beside it (``.NAME.v-<time>``); publishing renames the
    staging folder to a new version and swaps the link with one rename, so a reader finds the old version or
    the new one, never neither and never a mix. A reader that resolved the link keeps reading its version,
    which stays on disk for RETIRED_GRACE_S after it was replaced. An index folder from before versions
    becomes the first retired version; an empty folder is replaced by the link; anything else is refused
    (:func:`check_index_target`).
    """
    if not (staging / MANIFEST).is_file():
        raise IndexLoadError(f"refusing to publish {staging}: it has no {MANIFEST}")
    check_index_target(target)
    version = target.parent / f".{target.name}.v-{time.time_ns()}"
    os.replace(staging, version)
    link = target.parent / f".{target.name}.link-{os.getpid()}-{time.time_ns()}"
    os.symlink(version.name, link)
    previous = target.resolve() if target.is_symlink() else None
    try:
        if target.is_dir() and not target.is_symlink():
            if _legacy_index(target):  # a plain index folder of ours, from before versioned publishing
                legacy = target.parent / f".{target.name}.v-0-{time.time_ns()}"
                os.replace(target, legacy)
                previous = legacy
            else:
                os.rmdir(target)  # empty (checked above); fails, losing nothing, if something appeared since
        os.replace(link, target)
    except OSError:
        link.unlink(missing_ok=True)
        raise
    if previous is not None and previous.exists():
        os.utime(previous)  # its retirement time, for the grace period
    _remove_retired(target, version)


def _remove_retired(target: Path, current: Path) -> None:
    """Versions of ours replaced more than RETIRED_GRACE_S ago; nothing else beside the index is touched."""
    now = time.time()
    pattern = _version_pattern(target)
    for old in target.parent.glob(f".{target.name}.v-*"):
        if old == current or not pattern.fullmatch(old.name) or not _owned(old):
            continue
        if now - old.stat().st_mtime > RETIRED_GRACE_S:
            shutil.rmtree(old, ignore_errors=True)


def discard(staging: Path) -> None:
    shutil.rmtree(staging, ignore_errors=True)
