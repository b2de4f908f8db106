"""Claims on served candidates and the stored overlap plan (the dispatcher's SQL)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable

import sqlite_utils


class _Taken(Exception):
    """Raised inside the claim transaction to roll it back: the candidate is not free."""


def overlap_items(db: sqlite_utils.Database) -> set[int]:
    """Candidate ids of the stored overlap plan."""
    # One row (a JSON array), not one per item: the tenth of a million-candidate pool that
    # the desk reads while it opens comes in one SQLite step, without winning the
    # interpreter lock back from the GUI thread after every row.
    row = db.execute("SELECT json_group_array(candidate_id) FROM plan "
                     "WHERE kind = 'overlap'").fetchone()
    return set(json.loads(row[0])) if row and row[0] else set()


def replace_overlap_plan(db: sqlite_utils.Database, ids: Iterable[int]) -> None:
    """Store ``ids`` as the overlap plan in place of the old one, in one transaction."""
    # One JSON array parameter: a tenth of a million-candidate pool goes in in one
    # statement instead of a hundred thousand.
    plan = json.dumps([int(i) for i in ids])
    with db.atomic():
        db.conn.execute("DELETE FROM plan WHERE kind = 'overlap'")
        db.conn.execute("INSERT INTO plan(candidate_id, kind) "
                        "SELECT value, 'overlap' FROM json_each(?)", [plan])


# How long a desk's claim holds a candidate (15 minutes), measured by each watcher's own
# monotonic clock (ClaimWatch); the dispatcher's CLAIM_SECONDS.
CLAIM_HOLD_SECONDS = 15 * 60
_HOLD_UNKNOWN = float("inf")  # without a watch no claim of another desk ever expires


class ClaimWatch:
    """When this process first saw each claim of a project file, by its own monotonic clock.

    Desks on other computers (or the same one after a clock step) disagree about the wall
    clock, so a claim's stored expiry time cannot be compared with ours: a desk one hour
    ahead would find every claim expired and serve a candidate that is on another desk's
    screen. Instead a claim counts as expired once *this* process has seen it, unchanged,
    for ``hold`` seconds of its monotonic clock. Elapsed time agrees between processes
    whatever their wall clocks say, and we cannot see a claim before it was made, so a
    claim is never judged expired while its desk still holds it. The stored time only
    identifies one claim (a renewed claim is a new one) and is shown to people.
    """

    def __init__(self, hold: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.hold = hold
        self.clock = clock
        self._seen: dict[tuple[int, int, float], float] = {}
        self.stale: dict[int, tuple[int, float]] = {}  # candidate -> the expired claim

    def live(self, rows: Iterable[tuple[int, int, float]]) -> list[tuple[int, int]]:
        """(candidate, session) of the claims in ``rows`` that are not expired for us."""
        now = self.clock()
        seen: dict[tuple[int, int, float], float] = {}
        live: list[tuple[int, int]] = []
        self.stale = {}
        for cid, sid, token in rows:
            key = (int(cid), int(sid), float(token))
            first = seen[key] = self._seen.get(key, now)
            if now - first >= self.hold:
                self.stale[key[0]] = (key[1], key[2])
            else:
                live.append((key[0], key[1]))
        self._seen = seen  # forget claims that are gone
        return live


def live_claims(db: sqlite_utils.Database, now: float,
                watch: ClaimWatch | None = None) -> list[tuple[int, int]]:
    """(candidate id, session id) of every claim still live.

    A project file judges expiry with ``watch`` (see :class:`ClaimWatch`), never by
    comparing the stored time with this computer's clock; a team server judges by its own.
    """
    rows = db.execute("SELECT candidate_id, session_id, expires_at FROM claims").fetchall()
    return (watch or ClaimWatch(_HOLD_UNKNOWN)).live(rows)


def claim(db: sqlite_utils.Database, session_id: int, candidate_id: int, now: float,
          expires_at: float, still_needed: Callable[[], bool],
          watch: ClaimWatch | None = None) -> bool:
    """Claim a candidate for a session unless a live desk holds it or ``still_needed()`` is False.

    The session's other claims go. ``still_needed`` runs inside the write transaction,
    where nobody else can commit, so what it reads is what the claim is made against; a
    False (or a live claim of another desk) rolls everything back. Claims need no
    durability (losing one only frees a candidate), so they are written without an fsync.
    Another desk's claim is replaced only when it is the very claim ``watch`` judged
    expired (same session, same stored time): a claim renewed since then stays.
    """
    stale_sid, stale_token = (watch.stale.get(candidate_id) if watch else None) or (-1, -1.0)
    conn = db.conn
    conn.execute("PRAGMA synchronous=NORMAL")
    try:
        with db.atomic():
            conn.execute("DELETE FROM claims WHERE session_id = ? AND candidate_id != ?",
                         [session_id, candidate_id])
            # A renewal always gets a new stored time (bumped past the old one if this
            # clock stepped back), so watchers see a new claim and time it afresh.
            cur = conn.execute(
                "INSERT INTO claims(candidate_id, session_id, expires_at) VALUES (?, ?, ?) "
                "ON CONFLICT(candidate_id) DO UPDATE SET session_id = excluded.session_id, "
                "expires_at = max(excluded.expires_at, claims.expires_at + 0.001) "
                "WHERE claims.session_id = excluded.session_id "
                "OR (claims.session_id = ? AND claims.expires_at = ?)",
                [candidate_id, session_id, expires_at, stale_sid, stale_token],
            )
            if cur.rowcount != 1 or not still_needed():
                raise _Taken
            return True
    except _Taken:
        return False
    finally:
        conn.execute("PRAGMA synchronous=FULL")


def active_label_kinds(db: sqlite_utils.Database, candidate_id: int) -> list[tuple[str, str]]:
    """(annotator name, kind) of every label event on the candidate that is not undone."""
    return db.conn.execute(
        "SELECT a.name, l.kind FROM labels l JOIN annotators a ON a.id = l.annotator_id "
        "WHERE l.candidate_id = ? AND l.undone_at IS NULL", [candidate_id],
    ).fetchall()
