"""Keep stdout for the protocol: Python-level writes to ``sys.stdout`` go to stderr.

The MCP stdio transport claims file descriptor 1 itself (through ``sys.stdout.buffer``) and, while it
serves, points fd 1 at stderr; this guard covers everything before that and every ``print`` after it.
"""

from __future__ import annotations

import io
import sys
from typing import Any


class _StdoutToStderr(io.TextIOBase):
    """A text stream whose writes land on stderr but whose ``buffer`` is the real stdout (for the transport)."""

    def __init__(self, real_stdout: Any, stderr: Any) -> None:
        self._real = real_stdout
        self._stderr = stderr

    @property
    def buffer(self) -> Any:
        return self._real.buffer

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def fileno(self) -> int:
        return int(self._real.fileno())

    def write(self, text: str) -> int:
        return int(self._stderr.write(text))

    def flush(self) -> None:
        self._stderr.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False


def guard_stdout() -> None:
    if not isinstance(sys.stdout, _StdoutToStderr):
        sys.stdout = _StdoutToStderr(sys.stdout, sys.stderr)
