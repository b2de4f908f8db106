"""The ranked queue: the best-ranked candidate under the active model nobody has labeled.

The scan starts at a cursor below which every rank is known to be handled, so serving
the next candidate costs a few index probes however deep into a million-item pool the
team is. Undo moves the cursor back so the undone candidate comes first again.
"""

from __future__ import annotations

import math

import sqlite_utils

_NEXT_SQL = (
    "SELECT s.rank, s.candidate_id, s.score FROM scores s "
    "WHERE s.model_id = ? AND s.rank >= ? AND NOT EXISTS ("
    "  SELECT 1 FROM labels l WHERE l.candidate_id = s.candidate_id AND l.undone_at IS NULL)"
    " ORDER BY s.rank LIMIT ?"
)


def decile_of(rank: int, pool: int) -> int:
    """Decile of a 1-based rank: ceil(10 r / N); boundaries may be fractional."""
    return max(1, math.ceil(10 * rank / pool)) if pool else 0


class RankedQueue:
    """Serves unlabeled candidates of one model's frozen ranking, best first."""

    def __init__(self, db: sqlite_utils.Database, model_id: int):
        self.db = db
        self.model_id = model_id
        self.cursor = 1

    def peek(self, limit: int = 1, skip: frozenset[int] = frozenset()) -> list[tuple[int, int, float]]:
        """Up to ``limit`` (rank, candidate_id, score) of unlabeled candidates, best first.

        ``skip`` excludes candidates (e.g. claimed by another desk) without moving the
        cursor past them.
        """
        out: list[tuple[int, int, float]] = []
        start = self.cursor
        first = True
        while len(out) < limit:
            want = limit - len(out) + len(skip)
            rows = self.db.conn.execute(_NEXT_SQL, [self.model_id, start, want]).fetchall()
            if not rows:
                break
            if first:
                # Everything before the first unlabeled rank is handled: advance.
                self.cursor = rows[0][0]
                first = False
            for rank, candidate_id, score in rows:
                if candidate_id not in skip and len(out) < limit:
                    out.append((rank, candidate_id, score))
            start = rows[-1][0] + 1
        return out

    def rewind(self, rank: int) -> None:
        """A candidate at ``rank`` became unlabeled again (undo): scan from there."""
        self.cursor = min(self.cursor, rank)
