"""Python worker processes started isolated from the folder the server or build runs in.

A worker started as ``python -m module`` puts the current folder first on its import path, so an ``ixbrlparse.py``,
``weasyprint.py`` or ``liteparse.py`` left in the folder a user started the server from would run inside it. Ours
start with ``-I`` (no current folder, no user site-packages, no PYTHON* variables); the ones a library starts (the
LiteParse pool runs ``python -m liteparse._pool``) inherit the variables that ask the same of them.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# an interpreter that imports only from the environment it is installed in
PYTHON_ISOLATED = (sys.executable, "-I")
_ISOLATING = {"PYTHONSAFEPATH": "1", "PYTHONNOUSERSITE": "1"}
_ISOLATION_LOCK = threading.Lock()
_inside = 0  # threads inside library_workers_isolated
_saved: dict[str, str | None] = {}  # the variables' values before the first of them entered


@contextmanager
def library_workers_isolated() -> Iterator[None]:
    """While inside, the Python processes a library starts skip the current folder and user site-packages (the
    variables are put back after: scripts this process starts later keep their own folder on their path). Parses
    run on several threads at once: the first to enter sets the variables, the last to leave puts them back."""
    global _inside
    with _ISOLATION_LOCK:
        if _inside == 0:
            _saved.clear()
            _saved.update({name: os.environ.get(name) for name in _ISOLATING})
            os.environ.update(_ISOLATING)
        _inside += 1
    try:
        yield
    finally:
        with _ISOLATION_LOCK:
            _inside -= 1
            if _inside == 0:
                for name, value in _saved.items():
                    if value is None:
                        os.environ.pop(name, None)
                    else:
                        os.environ[name] = value
