"""Domain errors. The CLI and the MCP boundary turn them into messages that say what to do next."""


class FilingsError(Exception):
    """Base class for errors a user can act on."""


class DocumentError(FilingsError):
    """One input file could not be indexed; the others still can."""

    def __init__(self, document: str, reason: str) -> None:
        super().__init__(f"{document} {reason}")
        self.document = document
        self.reason = reason


class IndexLoadError(FilingsError):
    """The index folder is missing, incomplete, or from an incompatible version."""


class NotFoundError(FilingsError):
    """A document or page the caller named is not in the index."""


class QueryError(FilingsError):
    """A search request that cannot be run as given."""


class IndexTargetError(FilingsError):
    """The path given as an index is something else (a user's folder, a file, a foreign link): left untouched."""


ECHO_CHARS = 60


def shown(text: str, limit: int = ECHO_CHARS) -> str:
    """User input quoted in a message: its first ``limit`` characters, control characters escaped, and its length
    when it was longer (an error never echoes a megabyte back)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"
