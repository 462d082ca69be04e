"""A time budget for one request's work on user input (a regex, a quote match): every step asks it how long it may
still run, and the request stops with a clear error at the deadline instead of holding a core."""

from __future__ import annotations

import time

from indexer.core.errors import QueryError

REQUEST_BUDGET_S = 2.0  # what one regex search (search + highlights) or one locate_quote may spend


class BudgetExceeded(QueryError):
    """The request's work passed its deadline and was stopped."""


class Budget:
    """A deadline, and the message (what ran out, what to do instead) for when it passes."""

    def __init__(self, seconds: float, exceeded: str) -> None:
        self.seconds = seconds
        self._deadline = time.monotonic() + seconds
        self._exceeded = exceeded

    def remaining(self) -> float:
        """Seconds left, for a ``timeout=`` argument; raises :class:`BudgetExceeded` once none are."""
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise self.exceeded()
        return left

    def exceeded(self) -> BudgetExceeded:
        return BudgetExceeded(self._exceeded)
