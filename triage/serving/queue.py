"""The ranked queue: the best-ranked candidate under one model that nobody has handled.

The ranking is frozen at import and held in memory (a million int64 ids is 8 MB), and
"handled" comes from the label tracker, which the project brings up to date with every
desk's writes before each call. The scan starts at a cursor below which every rank is
known to be handled, so serving costs a few set look-ups however deep the team is;
undo moves the cursor back so the undone candidate comes first again.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from triage.stats.common import decile_of_rank


def decile_of(rank: int, pool: int) -> int:
    """Decile of a 1-based rank: ceil(10 r / N); boundaries may be fractional."""
    return max(1, int(decile_of_rank(rank, pool))) if pool else 0


class RankedQueue:
    """Serves unhandled candidates of one model's frozen ranking, best first."""

    def __init__(self, order: np.ndarray, scores: np.ndarray,
                 is_handled: Callable[[int], bool]):
        self.order = order          # candidate ids, index 0 = rank 1
        self.scores = scores        # their scores, same indexing
        self.is_handled = is_handled
        self.cursor = 1             # every rank below this one is handled

    def peek(self, limit: int = 1, skip: frozenset[int] = frozenset()
             ) -> list[tuple[int, int, float]]:
        """Up to ``limit`` (rank, candidate_id, score) of unhandled candidates, best first.

        ``skip`` excludes candidates (e.g. claimed by another desk) without moving the
        cursor past them.
        """
        out: list[tuple[int, int, float]] = []
        rank = self.cursor
        n = self.order.size
        advancing = True
        while rank <= n and len(out) < limit:
            cid = int(self.order[rank - 1])
            if self.is_handled(cid):
                if advancing:
                    self.cursor = rank + 1
            else:
                advancing = False
                if cid not in skip:
                    out.append((rank, cid, float(self.scores[rank - 1])))
            rank += 1
        return out

    def rewind(self, rank: int) -> None:
        """A candidate at ``rank`` became unhandled again (undo): scan from there."""
        self.cursor = min(self.cursor, rank)
