"""One progress count over the phases of an import (read, candidates, one pass per model)."""

from __future__ import annotations

from triage.base.errors import TriageError
from triage.base.progress import Progress as Progress


class Ticker:
    """Maps phases of the import onto one progress count; False from the callback cancels."""

    def __init__(self, progress: Progress | None, models: int):
        self.progress = progress
        self.passes = 2 + models  # read, candidates, one pass per model
        self.total = 0
        self.done = 0
        self.rows = self.passes_done = 0

    def start_writing(self, rows: int, passes_done: int = 1) -> None:
        """Rows to write; ``passes_done`` passes over them are done already (the read)."""
        self.total = rows * self.passes
        self.done = rows * passes_done
        self.rows, self.passes_done = rows, passes_done

    def resize(self, rows: int) -> None:
        """The exact row count, known once a streamed file is read (it was estimated)."""
        self.done += (rows - self.rows) * self.passes_done
        self.total = max(rows * self.passes, self.done)
        self.rows = rows

    def read(self, done: int, estimate: int) -> bool | None:
        """Progress of the read: ``done`` rows of about ``estimate``."""
        if self.progress is None:
            return True
        return self.progress(done, max(estimate, done) * self.passes)

    def advance(self, rows: int) -> None:
        """``rows`` more written (or ranked); TriageError("cancelled") on a cancel."""
        self.done += rows
        self.total = max(self.total, self.done)  # the streamed row count is an estimate
        if self.progress is not None and self.progress(self.done, self.total) is False:
            raise TriageError("cancelled")
