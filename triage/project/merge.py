"""Merging copies of one project: every label event of the sources lands in the target.

Teams that work apart label their own copy of the same project file. Merging brings each
copy's annotators, sessions and label events into the target, matched by stable
identities, so running the same merge twice adds nothing:

- candidates by ``key`` (the copies must hold the same pool: same keys, same texts);
- annotators by name; sessions and label events by their ``uid``.

Undo marks travel too: an event undone in a source but active in the target is marked
undone in the target with a fresh ``undo_seq`` (so desks that follow the file see it).
An undo is never taken back. Sources are opened read-only and are never changed; the
target changes in one transaction, all or nothing.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from triage import store
from triage.base.errors import BusyError, ProjectError, TriageError
from triage.store import connection as dbmod
from triage.store import merging
from triage.store.pg.url import is_server_url

EXAMPLES = 5  # differing keys named in an error message


@dataclass(frozen=True)
class SourceReport:
    """What one source brought into the target."""

    source: str
    annotators_added: int
    sessions_added: int
    labels_added: int
    undo_marks_applied: int  # events now undone in the target because the source undid them
    notes_added: int         # notes written on events whose target copy had none
    sessions_in_source: int
    labels_in_source: int


@dataclass(frozen=True)
class MergeReport:
    target: str
    sources: list[SourceReport]
    annotators_added: int
    sessions_added: int
    labels_added: int
    undo_marks_applied: int


@dataclass(frozen=True)
class PoolDifference:
    """How a source's candidate pool differs from the target's (by key and text)."""

    only_in_target: list[str]
    only_in_source: list[str]
    text_differs: list[str]

    @property
    def count(self) -> int:
        """How many keys differ in all."""
        return len(self.only_in_target) + len(self.only_in_source) + len(self.text_differs)

    def describe(self) -> str:
        """The differences in words, with a few example keys of each kind."""
        parts = []
        for keys, what in ((self.only_in_source, "only in the source"),
                           (self.only_in_target, "only in the target"),
                           (self.text_differs, "with a different text")):
            if keys:
                shown = ", ".join(repr(k) for k in sorted(keys)[:EXAMPLES])
                more = " ..." if len(keys) > EXAMPLES else ""
                parts.append(f"{len(keys):,} key{'s' if len(keys) != 1 else ''} {what} "
                             f"(e.g. {shown}{more})")
        return "; ".join(parts)


def open_source(path: str | Path) -> sqlite3.Connection:
    """Open a project copy read-only after checking, without writing, that it is one."""
    path = Path(path)
    if dbmod.check_project(path) != len(dbmod.known_migrations()):
        raise ProjectError(f"{path} has an older project format; open it once with this "
                           "version of Triage (which upgrades it, keeping a backup), then merge")
    uri = path.resolve().as_uri() + "?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=dbmod.BUSY_TIMEOUT_S)


def pool_digest(conn: sqlite3.Connection) -> tuple[int, str]:
    """(number of candidates, SHA-256 over (key, text) in key order)."""
    digest = hashlib.sha256()
    count = 0
    for key, text in merging.pool_in_key_order(conn):
        # Length prefixes make the encoding unambiguous whatever the texts contain.
        for part in (key.encode(), text.encode()):
            digest.update(len(part).to_bytes(8, "big"))
            digest.update(part)
        count += 1
    return count, digest.hexdigest()


def pool_difference(target: sqlite3.Connection, source: sqlite3.Connection) -> PoolDifference:
    """Keys only in one pool, and keys whose text differs (only called on a mismatch)."""
    ours, theirs = merging.pool_texts(target), merging.pool_texts(source)
    return PoolDifference(
        only_in_target=[k for k in ours if k not in theirs],
        only_in_source=[k for k in theirs if k not in ours],
        text_differs=[k for k, t in theirs.items() if k in ours and ours[k] != t],
    )


def _check_source(path: Path, conn: sqlite3.Connection, target: sqlite3.Connection,
                  target_digest: tuple[int, str], scheme: set[str]) -> None:
    """Refuse a source whose pool or label values do not fit the target."""
    if pool_digest(conn) != target_digest:
        diff = pool_difference(target, conn)
        raise TriageError(
            f"{path} is not a copy of the same project: its candidate pool differs in "
            f"{diff.count:,} key{'s' if diff.count != 1 else ''}: {diff.describe()}. "
            "Nothing was merged."
        )
    unknown = sorted(merging.label_values(conn) - scheme)
    if unknown:
        raise TriageError(
            f"{path} has labels {', '.join(map(repr, unknown))} that are not in the target's "
            "label scheme; add them with 'triage config --labels' first. Nothing was merged."
        )


class _Target:
    """The target's identities, loaded once and kept current as sources are merged."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.candidate = merging.candidate_ids(conn)
        self.annotator = merging.annotator_ids(conn)
        self.session = merging.session_ids(conn)
        # uid -> (undone?, has a note?)
        self.label = {uid: (undone is not None, note is not None) for uid, undone, note
                      in merging.label_marks(conn)}
        self.undo_seq = merging.max_undo_seq(conn)

    def next_undo_seq(self) -> int:
        self.undo_seq += 1
        return self.undo_seq


def _copied(t: _Target, src: sqlite3.Connection, table: str, remapped: tuple[str, ...]) -> list[str]:
    """Columns copied as they are: all both files have, except ids that must be remapped.

    Copying every column (rather than a fixed list) keeps a merge complete when a later
    schema step adds one. The names come from the schema, never from user input.
    """
    theirs = set(merging.columns(src, table))
    return [c for c in merging.columns(t.conn, table) if c in theirs and c not in remapped]


def _merge_annotators(t: _Target, src: sqlite3.Connection) -> int:
    added = 0
    columns = _copied(t, src, "annotators", ("id",))
    rows = merging.annotator_rows(src, columns)
    name_at = columns.index("name")
    for row in rows:
        name = row[name_at]
        if name not in t.annotator:
            t.annotator[name] = merging.insert_row(t.conn, "annotators", columns, list(row))
            added += 1
    return added


def _merge_sessions(t: _Target, src: sqlite3.Connection) -> tuple[int, int]:
    added = seen = 0
    columns = _copied(t, src, "sessions", ("id", "annotator_id"))
    rows = merging.session_rows(src, columns)
    uid_at, ended_at = columns.index("uid"), columns.index("ended_at")
    for name, *values in rows:
        seen += 1
        uid, ended = values[uid_at], values[ended_at]
        if uid in t.session:
            if ended is not None:
                # The copy may have been taken while this session was still running.
                merging.end_session(t.conn, uid, ended)
            continue
        t.session[uid] = merging.insert_row(t.conn, "sessions", ["annotator_id", *columns],
                                            [t.annotator[name], *values])
        added += 1
    return added, seen


_REMAPPED_LABEL_COLUMNS = ("id", "candidate_id", "annotator_id", "session_id", "undo_seq")


def _merge_labels(t: _Target, src: sqlite3.Connection) -> tuple[int, int, int, int]:
    """(added, undo marks applied, notes added, events in source)."""
    added = undos = notes = seen = 0
    columns = _copied(t, src, "labels", _REMAPPED_LABEL_COLUMNS)
    # In time order, so that within what a source adds the latest event stays last.
    rows = merging.label_rows(src, columns)
    uid_at, note_at, undone_at = (columns.index(c) for c in ("uid", "note", "undone_at"))
    for key, name, session_uid, *values in rows:
        seen += 1
        uid, note, undone = values[uid_at], values[note_at], values[undone_at]
        known = t.label.get(uid)
        if known is None:
            seq = t.next_undo_seq() if undone is not None else None
            merging.insert_row(
                t.conn, "labels",
                ["candidate_id", "annotator_id", "session_id", "undo_seq", *columns],
                [t.candidate[key], t.annotator[name], t.session[session_uid], seq, *values])
            t.label[uid] = (undone is not None, note is not None)
            added += 1
            undos += undone is not None
            continue
        was_undone, had_note = known
        if undone is not None and not was_undone:
            merging.mark_undone(t.conn, uid, undone, t.next_undo_seq())
            undos += 1
        if note is not None and not had_note:
            merging.add_note(t.conn, uid, note)
            notes += 1
        t.label[uid] = (was_undone or undone is not None, had_note or note is not None)
    return added, undos, notes, seen


def merge_projects(target_path: str | Path, source_paths: list[str | Path]) -> MergeReport:
    """Bring every label event of the sources into the target (idempotent, all or nothing)."""
    if any(is_server_url(p) for p in (target_path, *source_paths)):
        raise TriageError("merge works on project files; a team on a server needs no merge "
                          "(use `triage pull URL FILE` for a copy, `triage push` to publish)")
    target_path = Path(target_path)
    if not source_paths:
        raise TriageError("name at least one project copy to merge")
    for source in source_paths:
        if Path(source).exists() and target_path.exists() and \
                Path(source).resolve() == target_path.resolve():
            raise TriageError(f"{source} is the target itself; name the copies to merge in")
    sources: list[tuple[Path, sqlite3.Connection]] = []
    database = None
    try:
        for source in source_paths:
            sources.append((Path(source), open_source(source)))
        database, _backup = dbmod.open_database(target_path)
        conn = database.conn
        scheme = {o.value for o in store.load_settings(database).labels}
        digest = pool_digest(conn)
        for path, src in sources:
            _check_source(path, src, conn, digest, scheme)
        reports = []
        # IMMEDIATE: take the write lock before reading identities, so a desk writing at
        # the same moment cannot slip a row in between (and no lock upgrade can fail).
        try:
            merging.begin_immediate(conn)
        except sqlite3.OperationalError as error:
            raise BusyError(f"{target_path} is busy (another program is writing to it); "
                            "nothing was merged, try again") from error
        try:
            t = _Target(conn)
            for path, src in sources:
                annotators = _merge_annotators(t, src)
                sessions, sessions_seen = _merge_sessions(t, src)
                labels, undos, notes, labels_seen = _merge_labels(t, src)
                reports.append(SourceReport(str(path), annotators, sessions, labels, undos,
                                            notes, sessions_seen, labels_seen))
            merging.commit(conn)
        except BaseException:
            merging.rollback(conn)
            raise
    finally:
        for _path, src in sources:
            src.close()
        if database is not None:
            database.close()
    return MergeReport(
        target=str(target_path), sources=reports,
        annotators_added=sum(r.annotators_added for r in reports),
        sessions_added=sum(r.sessions_added for r in reports),
        labels_added=sum(r.labels_added for r in reports),
        undo_marks_applied=sum(r.undo_marks_applied for r in reports),
    )
