"""Folders a process of ours removes however it ends: at a normal exit (``atexit``) and on SIGTERM, which otherwise
ends the process without running any exit code (a service manager's stop, ``kill``, a container shutting down).

A module that makes such a folder (milvus-lite's private socket folder: :mod:`indexer.index.milvus_client`)
registers it with :func:`remove_on_exit` and forgets it once it removed it itself. The CLI and the server call
:func:`clean_up_on_sigterm` once, on the main thread (Python runs signal handlers there only): on SIGTERM the
registered folders are removed, then the signal does what it did before — the default ends the process by the
signal, its exit status unchanged. The handler only removes folders: it takes no lock a thread it interrupted may
hold. A process that ignores SIGTERM, or has its own handler, keeps it (that handler's clean exit runs ``atexit``).
"""

from __future__ import annotations

import atexit
import shutil
import signal
import threading
from pathlib import Path
from types import FrameType

_folders: set[Path] = set()
_hooked = False


def remove_on_exit(folder: Path) -> None:
    """Remove ``folder`` when the process exits or is stopped by SIGTERM."""
    global _hooked
    _folders.add(folder)
    if not _hooked:
        atexit.register(remove_now)
        _hooked = True


def forget(folder: Path) -> None:
    """``folder`` was removed by its maker: nothing left to do for it."""
    _folders.discard(folder)


def remove_now() -> None:
    """Remove every registered folder (at exit, or on SIGTERM)."""
    for folder in list(_folders):
        shutil.rmtree(folder, ignore_errors=True)
        _folders.discard(folder)


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    remove_now()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.raise_signal(signal.SIGTERM)  # ends the process as SIGTERM did before this handler


def clean_up_on_sigterm() -> None:
    """On SIGTERM, remove the registered folders before the process ends. Only where SIGTERM ends the process by
    default (not ignored, no handler of someone else's) and on the main thread; called twice, installed once."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_sigterm)
