"""Files and folders the project keeps beside an index (its locks, a milvus-lite data folder), which may sit in a
folder other local users can write to as well.

Anything found at one of those names may have been put there by someone else: a link to a file of ours (written
through, it would be emptied), a file another user holds a lock on (a build would wait for it forever), a folder
another user can read or change (the index's data, in a milvus-lite folder). So each is opened without following a
link, made with ``O_EXCL`` when it is new, and used only when it belongs to this process's user (its effective uid)
and no one else can write to it; a file that also has other names (hard links) is not ours either. What is ours
but readable by others (a 0644 lock, a 0755 data folder from an earlier version) is made private. Everything else
is refused with :class:`UnsafePathError`, naming the path: nothing the project did not make is written through.
"""

from __future__ import annotations

import errno
import os
import pwd
import stat
from contextlib import suppress
from pathlib import Path

from indexer.core.errors import FilingsError, shown

PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH
_OTHERS_ANY = stat.S_IRWXG | stat.S_IRWXO
_ATTEMPTS = 3  # a file removed between our two opens is made again


class UnsafePathError(FilingsError):
    """A path the project keeps beside an index is a link, another user's, or writable by others: left alone."""


def _user(uid: int) -> str:
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def _refuse(path: Path, problem: str) -> UnsafePathError:
    return UnsafePathError(
        f"{path} {problem}; filings-index neither uses nor writes through what it did not make there (another local "
        "user may have put it there). Remove it if it is not yours to keep (its owner or root can), or put the index "
        "in a folder only you can write to"
    )


def not_yours(info: os.stat_result) -> str | None:
    """Why what ``info`` describes (an ``lstat``: a link is judged itself, not followed) is not this user's alone —
    another user's, or a file or folder others can write to — or None. A link's own mode is not judged: Linux
    ignores it (always 0777)."""
    if info.st_uid != os.geteuid():
        return f"belongs to {_user(info.st_uid)}, not to you ({_user(os.geteuid())})"
    if not stat.S_ISLNK(info.st_mode) and info.st_mode & _OTHERS_WRITE:
        return f"can be written by other users (mode {stat.S_IMODE(info.st_mode):04o})"
    return None


def _check(path: Path, info: os.stat_result, kind: int) -> None:
    """Refuse what is not a ``kind`` (S_IFREG, S_IFDIR) of this user's, writable by this user alone."""
    if stat.S_IFMT(info.st_mode) != kind:
        raise _refuse(path, "is not a folder" if kind == stat.S_IFDIR else "is not a regular file")
    if problem := not_yours(info):
        raise _refuse(path, problem)
    if kind == stat.S_IFREG and info.st_nlink != 1:
        raise _refuse(path, f"has {info.st_nlink} names (hard links): it is another file too")


def _link_error(path: Path, exc: OSError) -> UnsafePathError:
    """The refusal for an open that failed on what ``path`` is (a link, a folder, a file in a folder's place)."""
    try:
        info = path.lstat()
    except OSError:
        raise exc from None
    if stat.S_ISLNK(info.st_mode):
        return _refuse(path, f"is a symbolic link (to {shown(os.readlink(path), 200)})")
    return _refuse(path, "is not the kind of file filings-index makes there")


def open_private_file(path: Path) -> int:
    """A read-write descriptor of the regular file ``path``, made (mode 0600, ``O_EXCL``) when it is absent; an
    existing one is opened without following a link and kept only if it is this user's and no one else can write
    to it (:class:`UnsafePathError` otherwise). The caller closes it."""
    for _ in range(_ATTEMPTS):
        try:
            return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, PRIVATE_FILE)
        except FileExistsError:
            pass
        try:  # O_NONBLOCK: a FIFO in the file's place does not hang the open
            fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            continue  # removed since: made again
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO):
                raise _link_error(path, exc) from exc
            raise
        try:
            info = os.fstat(fd)
            _check(path, info, stat.S_IFREG)
            if info.st_mode & _OTHERS_ANY:
                os.fchmod(fd, PRIVATE_FILE)  # ours, readable by others (made 0644 by an earlier version)
        except BaseException:
            os.close(fd)
            raise
        return fd
    raise _refuse(path, "keeps disappearing while it is opened")


def private_folder(path: Path) -> Path:
    """``path`` as a folder of this user's with mode 0700: made so when absent, else kept only if it is a real
    folder (not a link) of this user's that no one else can write to (:class:`UnsafePathError` otherwise); one of
    ours that others can read or enter is made 0700."""
    with suppress(FileExistsError):
        os.mkdir(path, PRIVATE_FOLDER)  # the umask can only take bits away
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise _link_error(path, exc) from exc
        raise
    try:
        info = os.fstat(fd)
        _check(path, info, stat.S_IFDIR)
        if stat.S_IMODE(info.st_mode) != PRIVATE_FOLDER:
            os.fchmod(fd, PRIVATE_FOLDER)
    finally:
        os.close(fd)
    return path


def read_note(path: Path, limit: int = 200) -> str | None:
    """The first ``limit`` bytes of the regular file ``path`` as text, read without following a link (None when it
    is absent, a link or not a regular file): what a lock's holder wrote about itself, for a message."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.pread(fd, limit, 0).decode("utf-8", errors="replace")
    finally:
        os.close(fd)
