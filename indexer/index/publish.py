"""Publishing a built index folder, atomically, and cleaning up after builds — touching only what we made.

The index path is a symbolic link to a version folder beside it (``.NAME.v-<time>``). A build writes into a staging
folder (``.NAME.building-<pid>-<random>``, marked as ours from its first moment), which publishing renames to a new
version and then swaps the link with one rename: a reader finds the old version or the new one, never neither and
never a mix. A replaced version stays for RETIRED_GRACE_S for the calls still reading it, then is removed. A path
that is not one of our indexes (a user's folder, a file, a foreign link) is refused, never moved or deleted.

The folder beside an index may be one other local users can write to (issue 40, item 3), so what is found there is
judged by ``lstat`` (a link itself, never what it points to): a link, version or staging folder is ours only when
it belongs to this process's user (its effective uid) and, a folder, no one else can write to it. An index whose
link or current version is another user's is refused (IndexTargetError, naming it); cleanup leaves whatever is not
ours where it is and logs a warning naming it.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import stat
import tempfile
import time
from pathlib import Path

from pydantic import ValidationError

from indexer.core.errors import IndexLoadError, IndexTargetError
from indexer.index.layout import MANIFEST, OWNER_MARK
from indexer.index.safe_paths import PRIVATE_FILE, not_yours
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


def _not_ours(folder: Path) -> str | None:
    """None for a real folder (not a link) of this user's that no one else can write to, holding our mark (a regular
    file of this user's, not a link) or an index from before marks (see _legacy_index); else what it is instead."""
    try:
        info = folder.lstat()
    except OSError as exc:
        return f"cannot be examined ({exc.strerror})"
    if not stat.S_ISDIR(info.st_mode):
        return "is a symbolic link" if stat.S_ISLNK(info.st_mode) else "is not a folder"
    if problem := not_yours(info):
        return problem
    try:
        mark = (folder / OWNER_MARK).lstat()
    except OSError:
        mark = None
    if mark is not None and stat.S_ISREG(mark.st_mode) and mark.st_uid == os.geteuid():
        return None
    return None if _legacy_index(folder) else f"holds no {OWNER_MARK} of yours (filings-index did not make it)"


def _owned(folder: Path) -> bool:
    return _not_ours(folder) is None


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


def _foreign(path: Path, problem: str) -> IndexTargetError:
    return IndexTargetError(
        f"{path} {problem}; nothing was changed: filings-index neither uses nor replaces what it did not make "
        "(another local user may have put it there). Remove it if it is not yours to keep (its owner or root can), "
        "or pass an index path in a folder only you can write to"
    )


def _check_link(target: Path, advice: str) -> None:
    """``target`` (a link) is one that publish() made: this user's, to a version folder of ours beside it, by name."""
    pointed = os.readlink(target)
    if not _version_pattern(target).fullmatch(pointed):
        raise IndexTargetError(f"{target} is a link to {pointed}, not an index of ours; {advice}")
    if problem := not_yours(target.lstat()):
        raise _foreign(target, f"(a link to {pointed}) {problem}")
    version = target.parent / pointed
    if not os.path.lexists(version):
        return  # a link of ours whose version is gone: publishing replaces it
    if (problem := _not_ours(version)) is not None:
        raise _foreign(version, f"(the version the index {target} links to) {problem}")


def check_index_target(target: Path) -> None:
    """Refuse to build into ``target`` unless it is absent, an empty folder, or an index this tool made (this user's:
    its link, and its current version, or its folder); nothing the project did not create is ever moved, renamed
    or deleted."""
    advice = (
        "nothing was changed. Pass a path that does not exist yet (it will be created), an empty folder, or an "
        "index made by filings-index"
    )
    if target.is_symlink():
        _check_link(target, advice)
        return
    if not target.exists():
        return
    if not target.is_dir():
        raise IndexTargetError(f"{target} is a file, not an index folder; {advice}")
    info = target.lstat()
    if info.st_uid != os.geteuid():  # a plain folder is replaced or moved: only the user's own (any mode: umask 002)
        raise _foreign(target, not_yours(info) or "is another user's")
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


def _remove_ours(folder: Path, what: str) -> bool:
    """Remove ``folder`` if it is ours (:func:`_not_ours`); anything else is left where it is, with a warning."""
    problem = _not_ours(folder)
    if problem is not None:
        logger.warning(
            "left %s alone: it is named like %s, but it %s; filings-index removes only what it made (remove it "
            "yourself if it is not someone else's)",
            folder,
            what,
            problem,
        )
        return False
    shutil.rmtree(folder, ignore_errors=True)
    return True


def remove_abandoned_staging(target: Path) -> list[Path]:
    """Staging folders left by killed builds (their process is gone) are removed; running builds' are kept, and so
    is anything that is not a staging folder of ours (another user's, a link, a folder without our mark)."""
    removed = []
    pattern = _staging_pattern(target)
    for folder in target.parent.glob(f".{target.name}.building-*"):
        named = pattern.fullmatch(folder.name)
        if named and not _alive(int(named.group(1))) and _remove_ours(folder, "an interrupted build's staging folder"):
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
    mark = os.open(
        folder / OWNER_MARK, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, PRIVATE_FILE
    )
    with os.fdopen(mark, "w") as handle:
        handle.write("made by filings-index; removed with the index version it becomes\n")
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
    """Versions of ours replaced more than RETIRED_GRACE_S ago; nothing else beside the index is touched (another
    user's folder, a link, a folder without our mark: left, with a warning)."""
    now = time.time()
    pattern = _version_pattern(target)
    for old in target.parent.glob(f".{target.name}.v-*"):
        if old == current or not pattern.fullmatch(old.name):
            continue
        try:
            replaced = old.lstat().st_mtime
        except OSError:
            continue  # removed meanwhile (by a build beside this one)
        if now - replaced > RETIRED_GRACE_S:
            _remove_ours(old, "a replaced index version")


def discard(staging: Path) -> None:
    """Remove this build's staging folder (unpublished), if it is still ours where it was made."""
    if os.path.lexists(staging):
        _remove_ours(staging, "this build's staging folder")
