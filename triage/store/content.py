"""Checksums of the candidates' text and the models' rankings, taken at import.

SQLite checks its own structure (``PRAGMA integrity_check``) but not the bytes of a
value: a flipped byte inside a stored text is reported by nothing. The import stores a
hash of every candidate's text (:mod:`triage.base.checksum`, computed from the Arrow
batches on their way in: two vectorised passes over the bytes) and of every ranking;
:func:`deep_problems` recomputes them and names what differs. Tables ``_text_hashes``
and ``_ranking_hashes`` (schema step ``0006_content_hashes``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sqlite_utils

from triage.base.checksum import byte_hashes, string_hashes

__all__ = ["HAS_CHECKSUMS", "RANKING_BLOCK", "DeepCheck", "TextHashes", "deep_problems", "ranking_hashes",
           "record_missing", "store_ranking_hashes"]

RANKING_BLOCK = 64    # ranks per checksum of a ranking (a damaged one names its block)
_READ = 50_000        # candidates read at a time by the check
# Files made by a version before schema step 0005 (only tests make them now) have neither.
HAS_CHECKSUMS = "SELECT count(*) FROM sqlite_master WHERE name = '_text_hashes'"
_INSERT_TEXT = "INSERT INTO _text_hashes(first_id, hashes) VALUES (?, ?)"
_INSERT_RANKING = ("INSERT OR REPLACE INTO _ranking_hashes(model_id, hashes) "
                   "VALUES ((SELECT id FROM models WHERE name = ?), ?)")
_INSERT_RANKING_BY_ID = "INSERT OR REPLACE INTO _ranking_hashes(model_id, hashes) VALUES (?, ?)"

Run = Callable[..., Any]


class TextHashes:
    """Collects the text hashes of the batches of an import, stored once they are in."""

    def __init__(self) -> None:
        self.parts: list[tuple[int, bytes]] = []
        self.next_id = 1

    def add(self, batch: Any) -> None:
        """Hash the ``text`` column of an Arrow batch of candidates (ids follow on)."""
        hashes = string_hashes(batch.column(batch.schema.get_field_index("text")))
        self.parts.append((self.next_id, hashes.astype("<u4").tobytes()))
        self.next_id += len(hashes)

    def store(self, run: Run) -> None:
        """Write the collected hashes with ``run(sql, params)`` (inside the import)."""
        for first_id, blob in self.parts:
            run(_INSERT_TEXT, [first_id, blob])


def ranking_hashes(ids_blob: bytes | memoryview, scores_blob: bytes | memoryview) -> bytes:
    """One checksum per block of :data:`RANKING_BLOCK` ranks, over their ids and scores."""
    ids = np.frombuffer(ids_blob, dtype=np.uint8)
    scores = np.frombuffer(scores_blob, dtype=np.uint8)
    step = 8 * RANKING_BLOCK
    offsets = np.append(np.arange(0, len(ids), step, dtype=np.int64), len(ids))
    both = byte_hashes(offsets, ids) ^ (byte_hashes(offsets, scores) * np.uint32(0x85EBCA6B))
    return both.astype("<u4").tobytes()


def store_ranking_hashes(run: Run, model: str | int, ids_blob: Any, scores_blob: Any) -> None:
    """Record the checksums of a model's ranking (by name, or by id)."""
    sql = _INSERT_RANKING_BY_ID if isinstance(model, int) else _INSERT_RANKING
    run(sql, [model, ranking_hashes(ids_blob, scores_blob)])


@dataclass
class DeepCheck:
    """What ``triage check --deep`` found beyond SQLite's own checks."""

    damaged: list[str] = field(default_factory=list)   # one sentence per damaged row
    unhashed_candidates: int = 0     # candidates with no hash (made before hashes existed)
    unhashed_models: list[str] = field(default_factory=list)


def _texts(conn: sqlite3.Connection) -> Iterator[tuple[np.ndarray, list[bytes]]]:
    """(ids, text bytes) of every candidate, in id order, a block at a time."""
    last = 0
    while True:
        rows = conn.execute("SELECT id, CAST(text AS BLOB) FROM candidates WHERE id > ? "
                            "ORDER BY id LIMIT ?", [last, _READ]).fetchall()
        if not rows:
            return
        last = rows[-1][0]
        yield np.array([r[0] for r in rows], dtype=np.int64), [r[1] or b"" for r in rows]


def _rows(conn: sqlite3.Connection, sql: str) -> list[Any]:
    """The rows of ``sql``; none when its table is missing (a file older than checksums)."""
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.OperationalError as error:
        if "no such table" in str(error):
            return []
        raise


def _stored_text(conn: sqlite3.Connection, pool: int) -> np.ndarray:
    """The stored hash of candidates 0..pool (index = id; -1 where none is stored)."""
    stored = np.zeros(pool + 1, dtype=np.int64) - 1
    for first_id, blob in _rows(conn, "SELECT first_id, hashes FROM _text_hashes"):
        values = np.frombuffer(blob, dtype="<u4").astype(np.int64)
        end = min(first_id + len(values), pool + 1)
        stored[first_id:end] = values[:end - first_id]
    return stored


def _check_texts(conn: sqlite3.Connection, report: DeepCheck) -> None:
    pool = int(conn.execute("SELECT coalesce(max(id), 0) FROM candidates").fetchone()[0])
    stored = _stored_text(conn, pool)
    for ids, texts in _texts(conn):
        lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
        offsets = np.concatenate(([0], np.cumsum(lengths)))
        data = np.frombuffer(b"".join(texts), dtype=np.uint8)
        now = byte_hashes(offsets, data).astype(np.int64)
        known = stored[ids]
        report.unhashed_candidates += int((known < 0).sum())
        for cid in ids[(known >= 0) & (known != now)].tolist():
            key = conn.execute("SELECT key FROM candidates WHERE id = ?", [cid]).fetchone()
            report.damaged.append(f"candidate {cid} (key {key[0]!r}): its text has changed "
                                  "since it was imported")


def _check_rankings(conn: sqlite3.Connection, report: DeepCheck) -> None:
    stored = dict(_rows(conn, "SELECT model_id, hashes FROM _ranking_hashes"))
    for model_id, name, ids, scores in conn.execute(
            "SELECT m.id, m.name, r.candidate_ids, r.scores FROM rankings r "
            "JOIN models m ON m.id = r.model_id ORDER BY m.id"):
        if model_id not in stored:
            report.unhashed_models.append(name)
            continue
        was = np.frombuffer(stored[model_id], dtype="<u4")
        now = np.frombuffer(ranking_hashes(ids, scores), dtype="<u4")
        if len(was) != len(now):
            report.damaged.append(f"model {name!r}: its ranking has changed length since it "
                                  "was imported")
            continue
        for block in np.flatnonzero(was != now).tolist():
            first = block * RANKING_BLOCK + 1
            last = min(first + RANKING_BLOCK - 1, len(ids) // 8)
            report.damaged.append(f"model {name!r}: the ids or scores of ranks {first}-{last} "
                                  "have changed since they were imported")


def deep_problems(conn: sqlite3.Connection) -> DeepCheck:
    """Recompute every checksum taken at import and compare (reading only)."""
    report = DeepCheck()
    _check_texts(conn, report)
    _check_rankings(conn, report)
    return report


def record_missing(db: sqlite_utils.Database) -> tuple[int, int]:
    """Record the checksums an older project lacks, as its data stands now (one transaction).

    Returns (candidates, models) newly recorded.
    """
    conn = db.conn
    with db.atomic():
        pool = int(conn.execute("SELECT coalesce(max(id), 0) FROM candidates").fetchone()[0])
        stored = _stored_text(conn, pool)
        added = 0
        for ids, texts in _texts(conn):
            missing = stored[ids] < 0
            if not missing.any():
                continue
            lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
            offsets = np.concatenate(([0], np.cumsum(lengths)))
            now = byte_hashes(offsets, np.frombuffer(b"".join(texts), dtype=np.uint8))
            if missing.all() and ids[-1] - ids[0] + 1 == len(ids):   # a whole block at once
                conn.execute(_INSERT_TEXT, [int(ids[0]), now.astype("<u4").tobytes()])
            else:
                for cid, value in zip(ids[missing].tolist(), now[missing].tolist()):
                    conn.execute(_INSERT_TEXT, [cid, np.array([value], "<u4").tobytes()])
            added += int(missing.sum())
        models = 0
        for model_id, ids_blob, scores in conn.execute(
                "SELECT model_id, candidate_ids, scores FROM rankings WHERE model_id NOT IN "
                "(SELECT model_id FROM _ranking_hashes)").fetchall():
            store_ranking_hashes(conn.execute, int(model_id), ids_blob, scores)
            models += 1
    return added, models
