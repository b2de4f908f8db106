"""The project file's schema, as named migrations (sqlite-utils ``Migrations``).

Never edit a migration that has shipped: add a new one. Each runs in a transaction with
the record that it was applied, so a file is always at a well-defined version.

Design choices worth knowing:
- ``labels`` is append-only. Undo sets ``undone_at`` on the event (a mark, never a
  delete); the current label of (candidate, annotator) is derived.
- ``rankings`` keeps each model's ranking frozen at import as two arrays (candidate ids in
  rank order, and their scores), one row per model rather than one per (candidate, model).
  Three rows written per candidate made importing a million candidates twice as slow as
  writing them once, and every reader needs the whole ranking in memory anyway: the queue
  walks it, the panels and gain reports are computed over it. Loading a 1,000,000-item
  ranking from its blob takes milliseconds instead of seconds.
- Every event and session has a ``uid`` so copies of a project can be merged idempotently.
"""

from __future__ import annotations

import sqlite_utils
from sqlite_utils import Migrations

# "TRIA" as a big-endian int: lets us recognise our files with PRAGMA application_id.
APPLICATION_ID = 0x54524941

LABEL_KINDS = ("triage", "overlap", "audit", "retest", "adjudication", "certify")
# The kinds the first schema step allowed (frozen: a shipped migration never changes).
_KINDS_0001 = ("triage", "overlap", "audit", "retest", "adjudication")

MIGRATIONS = Migrations("triage")


def step_names() -> list[str]:
    """The names of every schema step, in order (all are pending on an empty database)."""
    empty = sqlite_utils.Database(memory=True, execute_plugins=False)
    return [m.name for m in MIGRATIONS.pending(empty)]


@MIGRATIONS(name="0001_initial")
def m0001_initial(db: sqlite_utils.Database) -> None:
    """Version 1: every table and index of the project file."""
    # long: one DDL script, so the tables and the references between them read together
    kinds = ", ".join(f"'{k}'" for k in _KINDS_0001)
    db.executescript(
        f"""
        CREATE TABLE project (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        CREATE TABLE settings (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL          -- JSON
        );
        CREATE TABLE candidates (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL,
            text TEXT NOT NULL,
            meta TEXT,                   -- JSON object of the other columns, or NULL
            gold TEXT
        );
        -- A separate index (not a UNIQUE constraint) so that importing a pool can build it
        -- once after the rows are in, which is much faster than growing it row by row.
        CREATE UNIQUE INDEX candidates_key ON candidates(key);
        CREATE TABLE models (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            source_column TEXT,
            source_file TEXT,
            imported_at TEXT NOT NULL,
            tied_items INTEGER NOT NULL DEFAULT 0
        );
        -- A model's ranking, frozen at import: candidate ids in rank order and their
        -- scores, as little-endian int64 / float64 arrays (see triage.store.records.ranking).
        CREATE TABLE rankings (
            model_id INTEGER PRIMARY KEY REFERENCES models(id),
            candidate_ids BLOB NOT NULL,
            scores BLOB NOT NULL
        );
        CREATE TABLE annotators (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            hourly_rate REAL,
            created_at TEXT NOT NULL
        );
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            annotator_id INTEGER NOT NULL REFERENCES annotators(id),
            started_at TEXT NOT NULL,
            ended_at TEXT,
            host TEXT,
            app_version TEXT
        );
        CREATE TABLE labels (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            candidate_id INTEGER NOT NULL REFERENCES candidates(id),
            annotator_id INTEGER NOT NULL REFERENCES annotators(id),
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            value TEXT,                  -- NULL for a skip
            kind TEXT NOT NULL DEFAULT 'triage' CHECK (kind IN ({kinds})),
            created_at TEXT NOT NULL,
            seconds REAL NOT NULL DEFAULT 0 CHECK (seconds >= 0),
            note TEXT,
            undone_at TEXT,
            undo_seq INTEGER,            -- order of undo marks, so other desks can follow them
            served_by TEXT               -- bandit queue mode: the model (arm) that served it
        );
        CREATE INDEX labels_active_by_candidate ON labels(candidate_id) WHERE undone_at IS NULL;
        CREATE INDEX labels_by_annotator ON labels(annotator_id, id);
        CREATE UNIQUE INDEX labels_undo_seq ON labels(undo_seq) WHERE undo_seq IS NOT NULL;
        -- A desk's claim on the candidate it shows, so two desks never serve it at once.
        -- Claims expire, so a desk that dies frees its candidate.
        CREATE TABLE claims (
            candidate_id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL,
            expires_at REAL NOT NULL     -- unix time
        );
        -- Candidates planned for more than one label (overlap), drawn reproducibly.
        CREATE TABLE plan (
            candidate_id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('overlap'))
        );
        """
    )


@MIGRATIONS(name="0002_certification")
def m0002_certification(db: sqlite_utils.Database) -> None:
    """Label kind ``certify`` (a one-off certification sample) and the certification record.

    SQLite cannot alter a CHECK constraint, so ``labels`` is rebuilt from its own stored
    definition with the wider kind list (the documented table-rebuild procedure; no other
    table refers to ``labels``), and its indexes are recreated.
    """
    import re

    conn = db.conn
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'labels'"
                       ).fetchone()[0]
    kinds = ", ".join(f"'{k}'" for k in LABEL_KINDS)
    new_sql = re.sub(r"CHECK \(kind IN \([^)]*\)\)", f"CHECK (kind IN ({kinds}))", sql)
    new_sql = new_sql.replace("CREATE TABLE labels", "CREATE TABLE labels_rebuilt", 1)
    indexes = [r[0] for r in conn.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'labels' "
        "AND sql IS NOT NULL")]
    conn.execute(new_sql)
    conn.execute("INSERT INTO labels_rebuilt SELECT * FROM labels")
    conn.execute("DROP TABLE labels")
    conn.execute("ALTER TABLE labels_rebuilt RENAME TO labels")
    for index in indexes:
        conn.execute(index)
    conn.execute(
        """
        CREATE TABLE certifications (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            started_at TEXT NOT NULL,
            target REAL NOT NULL,
            confidence REAL NOT NULL,
            found INTEGER NOT NULL,       -- positives known when the sample started
            remaining INTEGER NOT NULL,   -- unlabelled items it is drawn from
            planned INTEGER,              -- labels it was expected to need
            labels_at INTEGER NOT NULL,   -- label events when it started
            sample_order BLOB NOT NULL,   -- candidate ids in random order (int64)
            ended_at TEXT,
            outcome TEXT CHECK (outcome IN ('certified', 'not_certified', 'cancelled')),
            p_value REAL,
            sample_n INTEGER,
            sample_k INTEGER
        )
        """
    )


@MIGRATIONS(name="0003_guidelines")
def m0003_guidelines(db: sqlite_utils.Database) -> None:
    """Versioned labelling guidelines; every label records the version in force."""
    db.executescript(
        """
        CREATE TABLE guidelines (
            version INTEGER PRIMARY KEY,     -- 1, 2, 3 ... one per saved change
            text TEXT NOT NULL,              -- Markdown (or plain text) written by the lead
            author TEXT,
            created_at TEXT NOT NULL
        );
        ALTER TABLE labels ADD COLUMN guideline_version INTEGER;
        -- Whatever writes a label (desk, command line, script), it records the guidelines
        -- in force at that moment, unless the writer says otherwise (a merged copy).
        CREATE TRIGGER labels_guideline_version AFTER INSERT ON labels
        WHEN NEW.guideline_version IS NULL
        BEGIN
            UPDATE labels SET guideline_version = (SELECT max(version) FROM guidelines)
            WHERE id = NEW.id;
        END;
        """
    )


@MIGRATIONS(name="0004_label_source")
def m0004_label_source(db: sqlite_utils.Database) -> None:
    """Where an imported label came from, so importing the same file again adds nothing.

    ``source_id`` is the other tool's id of the event (a Label Studio annotation id, a
    Prodigy ``_task_hash``, a Triage label uid); NULL for labels made in Triage.
    """
    db.executescript(
        """
        ALTER TABLE labels ADD COLUMN source_id TEXT;
        CREATE INDEX labels_by_source ON labels(source_id) WHERE source_id IS NOT NULL;
        """
    )


@MIGRATIONS(name="0005_cal_snapshots")
def m0005_cal_snapshots(db: sqlite_utils.Database) -> None:
    """Snapshots of the ``cal`` ranking learned from the labels, kept as data.

    Each row is one fit: the labels it learned from (how many, and the last label event
    id it read), what it learned from (``features``: text and scores, or scores only),
    its settings (JSON), and the head of its ranking of the candidates unlabeled at the
    time (ids best first, and their scores, as little-endian int64 / float64 arrays).
    Every desk serves the newest snapshot, and a backtest replays a run from them.
    """
    db.executescript(
        """
        CREATE TABLE cal_snapshots (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL,
            labels_used INTEGER NOT NULL,
            last_label_id INTEGER NOT NULL,
            features TEXT NOT NULL,
            config TEXT NOT NULL,
            candidate_ids BLOB NOT NULL,
            scores BLOB NOT NULL
        );
        """
    )


@MIGRATIONS(name="0006_content_hashes")
def m0006_content_hashes(db: sqlite_utils.Database) -> None:
    """Checksums taken at import, so ``triage check --deep`` finds bytes changed since.

    Local bookkeeping (the leading ``_`` keeps them off a team server): the hash of each
    candidate's text (uint32, little-endian, one blob per imported batch of candidates
    ``first_id``, ``first_id + 1`` …) and of each model's ranking (a hash per block of
    :data:`triage.store.content.RANKING_BLOCK` ranks, over its ids and its scores).
    Projects made before this step have none until ``triage check --deep --record``.
    """
    db.executescript(
        """
        CREATE TABLE _text_hashes (
            first_id INTEGER PRIMARY KEY,
            hashes BLOB NOT NULL
        );
        CREATE TABLE _ranking_hashes (
            model_id INTEGER PRIMARY KEY,
            hashes BLOB NOT NULL
        );
        """
    )


@MIGRATIONS(name="0007_text_search")
def m0007_text_search(db: sqlite_utils.Database) -> None:
    """A full-text index over the candidates' text, for the data manager's search.

    Local bookkeeping like step 0006 (the leading ``_`` keeps it off a team server; a
    replica builds its own): an FTS5 table whose content is ``candidates.text`` (external
    content, keyed by candidate id), empty until first used, and how far it reaches
    (``indexed_to``: the highest candidate id in it, ``rows``: how many). It is built off
    the GUI thread by :func:`triage.store.search.build_index` and grown with the pool.
    """
    db.executescript(
        """
        CREATE VIRTUAL TABLE _text_search USING fts5(
            text, content='candidates', content_rowid='id',
            tokenize='unicode61 remove_diacritics 2'
        );
        CREATE TABLE _text_search_state (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            indexed_to INTEGER NOT NULL,
            rows INTEGER NOT NULL
        );
        """
    )
