"""The declared limits of a router, shared by every caller of one router in a process: at most
`concurrency` calls in flight and at most `rate_per_s` calls a second (evenly spaced: call n
starts no earlier than n / rate after the first)."""

from __future__ import annotations

import threading
import time

__all__ = ["Pace"]


class Pace:
    def __init__(self, rate_per_s: float | None) -> None:
        self._interval = 0.0 if rate_per_s is None else 1.0 / rate_per_s
        self._next = 0.0
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Seconds to wait before the next call may start (its slot is taken now)."""
        if not self._interval:
            return 0.0
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self._interval
            return start - now
