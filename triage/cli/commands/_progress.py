"""A plain-text progress bar for the command line (stderr, only on a terminal)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """Callable as a core progress callback: ``bar(done, total)``; never cancels."""

    def __init__(self, label: str, stream: TextIO | None = None, width: int = 30) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self.enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.started = time.monotonic()
        self._last = 0.0

    def __call__(self, done: int, total: int) -> bool:
        now = time.monotonic()
        if not self.enabled or (now - self._last < 0.1 and done < total):
            return True
        self._last = now
        share = min(1.0, done / total) if total else 0.0
        filled = int(share * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(
            f"\r{self.label} [{bar}] {share:4.0%} {done:,}/{total:,} {now - self.started:5.1f}s"
        )
        self.stream.flush()
        return True

    def finish(self) -> None:
        """End the bar's line (call once the work is done or failed)."""
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
            self.enabled = False  # once: a caller may end the line early to print after it
