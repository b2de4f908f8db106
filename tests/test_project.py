"""The project file, the ranked queue, labels, skip and undo through the Python API."""

from __future__ import annotations

import sqlite3

import pytest

from tests.helpers import SCHEME, make_project
from triage.base.errors import ProjectError, TriageError
from triage.project import create_project, open_project
from triage.store.connection import APPLICATION_ID, schema_version
from triage.store.settings import Settings


def rows(path, sql, params=()):
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def test_new_project_file_has_marker_wal_and_schema(tmp_path):
    project = create_project(tmp_path / "a.triage")
    project.close()
    conn = sqlite3.connect(tmp_path / "a.triage")
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    names = [r[0] for r in conn.execute("SELECT name FROM _sqlite_migrations")]
    assert names == ["0001_initial", "0002_certification", "0003_guidelines", "0004_label_source",
                     "0005_cal_snapshots", "0006_content_hashes", "0007_text_search"]
    conn.close()
    with open_project(tmp_path / "a.triage") as again:
        assert schema_version(again.db) == 7
        assert again.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert again.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_create_refuses_existing_file(tmp_path):
    (tmp_path / "x.triage").write_text("keep me")
    with pytest.raises(ProjectError, match="already exists"):
        create_project(tmp_path / "x.triage")
    assert (tmp_path / "x.triage").read_text() == "keep me"


@pytest.mark.parametrize("content", [b"", b"hello, not a database\n" * 50, b"SQLite format 3\x00" + b"\x00" * 100])
def test_opening_a_non_project_fails_and_leaves_file_untouched(tmp_path, content):
    path = tmp_path / "other.triage"
    path.write_bytes(content)
    with pytest.raises(ProjectError, match="not a Triage project|cannot be opened|damaged"):
        open_project(path)
    assert path.read_bytes() == content
    assert not (tmp_path / "other.triage-wal").exists()


def test_opening_a_plain_sqlite_database_is_refused_unchanged(tmp_path):
    path = tmp_path / "plain.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t(x)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(ProjectError, match="not a Triage project"):
        open_project(path)
    assert path.read_bytes() == before


def test_file_from_a_newer_version_is_refused_unchanged(tmp_path):
    create_project(tmp_path / "n.triage").close()
    conn = sqlite3.connect(tmp_path / "n.triage")
    conn.execute("INSERT INTO _sqlite_migrations(migration_set, name, applied_at) "
                 "VALUES ('triage', '9999_from_the_future', 'x')")
    conn.commit()
    conn.close()
    before = (tmp_path / "n.triage").read_bytes()
    with pytest.raises(ProjectError, match="newer version"):
        open_project(tmp_path / "n.triage")
    assert (tmp_path / "n.triage").read_bytes() == before


def test_older_file_is_backed_up_then_migrated(tmp_path, monkeypatch):
    from triage.store import schema

    create_project(tmp_path / "o.triage").close()
    # Pretend this Triage knows one more migration than the file has.
    calls = []

    def m0002_test(db):
        calls.append(1)
        db.execute("CREATE TABLE extra (x INTEGER)")

    migrations = schema.MIGRATIONS
    monkeypatch.setattr(migrations, "_migrations", list(migrations._migrations))
    migrations(name="0099_test")(m0002_test)
    with open_project(tmp_path / "o.triage") as project:
        assert calls == [1]
        assert project.backup is not None and project.backup.exists()
        assert schema_version(project.db) == len(migrations._migrations)
    backup_tables = rows(project.backup, "SELECT name FROM sqlite_master WHERE type='table'")
    assert ("extra",) not in backup_tables and ("labels",) in backup_tables


def test_queue_serves_best_ranked_unlabeled_and_commits_before_next(tmp_path):
    project = make_project(tmp_path, n=30)
    s = project.start_session("ada")
    first = project.next_candidate(s)
    assert (first.key, first.rank, first.decile, first.pool) == ("c0000", 1, 1, 30)
    project.record_label(s, first.candidate_id, "idiom", seconds=2.0)
    # Committed: a separate connection sees the row before we ask for the next one.
    assert rows(tmp_path / "p.triage", "SELECT value, kind FROM labels") == [("idiom", "triage")]
    second = project.next_candidate(s)
    assert (second.key, second.rank) == ("c0001", 2)


def test_skip_is_paid_and_not_served_again_and_undo_brings_back(tmp_path):
    project = make_project(tmp_path, n=30, price_per_item=0.5)
    s = project.start_session("ada")
    a = project.next_candidate(s)
    project.skip(s, a.candidate_id, seconds=1)
    b = project.next_candidate(s)
    assert b.key == "c0001"
    project.record_label(s, b.candidate_id, "literal")
    snap = project.snapshot()
    assert (snap.skipped, snap.annotated, snap.spend) == (1, 1, pytest.approx(1.0))
    assert project.undo(s) == b.candidate_id
    assert project.next_candidate(s).key == "c0001"
    assert project.undo(s) == a.candidate_id
    assert project.next_candidate(s).key == "c0000"
    assert project.undo(s) is None
    # Undo is a mark, never a delete: both events are still in the file.
    stored = rows(tmp_path / "p.triage", "SELECT value, undone_at IS NOT NULL FROM labels ORDER BY id")
    assert stored == [(None, 1), ("literal", 1)]
    assert project.snapshot().spend == pytest.approx(0.0)


def test_undo_takes_back_only_the_annotators_own_label(tmp_path):
    project = make_project(tmp_path)
    ada, bob = project.start_session("ada"), project.start_session("bob")
    x = project.next_candidate(ada)
    project.record_label(ada, x.candidate_id, "idiom")
    y = project.next_candidate(bob)
    assert y.key == "c0001"
    project.record_label(bob, y.candidate_id, "literal")
    assert project.undo(ada) == x.candidate_id
    assert rows(tmp_path / "p.triage",
                "SELECT a.name FROM labels l JOIN annotators a ON a.id=l.annotator_id "
                "WHERE undone_at IS NULL") == [("bob",)]


def test_labels_outside_the_scheme_or_unknown_candidates_are_refused(tmp_path):
    project = make_project(tmp_path)
    s = project.start_session("ada")
    c = project.next_candidate(s)
    with pytest.raises(TriageError, match="not a label"):
        project.record_label(s, c.candidate_id, "maybe")
    with pytest.raises(TriageError, match="no candidate"):
        project.record_label(s, 10_000, "idiom")
    assert rows(tmp_path / "p.triage", "SELECT count(*) FROM labels") == [(0,)]


def test_switching_active_model_changes_the_order(tmp_path):
    project = make_project(tmp_path, n=20)
    project.update_settings(active_model="m2")
    s = project.start_session("ada")
    assert project.next_candidate(s).key == "c0019"
    with pytest.raises(TriageError, match="no model named"):
        project.update_settings(active_model="nope")


def test_positives_and_deciles_follow_settings(tmp_path):
    project = make_project(tmp_path, n=20)
    s = project.start_session("ada")
    for value in ["idiom", "literal", "idiom"]:
        c = project.next_candidate(s)
        project.record_label(s, c.candidate_id, value)
    snap = project.snapshot()
    assert snap.positives_found == 2
    assert snap.deciles[0].annotated == 2 and snap.deciles[1].annotated == 1
    project.update_settings(positive_labels=("literal",))
    assert project.snapshot().positives_found == 1


def test_settings_round_trip_and_validation(tmp_path):
    project = create_project(tmp_path / "s.triage", Settings(labels=SCHEME, positive_labels=("idiom",)))
    project.update_settings(budget=16.0, currency="EUR", value_per_positive=3.0)
    project.close()
    with open_project(tmp_path / "s.triage") as again:
        assert (again.settings.budget, again.settings.currency) == (16.0, "EUR")
        assert again.settings.labels == SCHEME
        with pytest.raises(TriageError, match="positive label"):
            again.update_settings(positive_labels=("nope",))
        with pytest.raises(TriageError, match="budget"):
            again.update_settings(budget=-1)
        assert again.settings.budget == 16.0


def test_offline_curves_from_gold(tmp_path):
    project = make_project(tmp_path, n=9)
    curves = project.offline_curves()
    # m1 ranks c0000..c0008; idioms are c0000, c0003, c0006.
    assert curves["m1"].tolist() == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert curves["m2"].tolist() == [0, 0, 1, 1, 1, 2, 2, 2, 3]


def test_certification_migration_keeps_labels_and_allows_certify(tmp_path, monkeypatch):
    """A file made by the first schema step gets the certify kind without losing labels."""
    from triage.store import schema

    every = list(schema.MIGRATIONS._migrations)
    monkeypatch.setattr(schema.MIGRATIONS, "_migrations", every[:1])
    project = make_project(tmp_path, n=12)
    s = project.start_session("ada")
    item = project.next_candidate(s)
    project.record_label(s, item.candidate_id, "idiom")
    with pytest.raises(sqlite3.IntegrityError):
        project.db.conn.execute("UPDATE labels SET kind = 'certify'")
    project.close()
    monkeypatch.setattr(schema.MIGRATIONS, "_migrations", every)
    with open_project(tmp_path / "p.triage") as again:
        assert again.backup is not None
        assert again.db.execute("SELECT value, kind FROM labels").fetchall() == [("idiom", "triage")]
        again.db.conn.execute("UPDATE labels SET kind = 'certify'")  # allowed now
        indexes = {r[0] for r in again.db.execute(
            "SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='labels'")}
        assert {"labels_active_by_candidate", "labels_by_annotator", "labels_undo_seq"} <= indexes
        assert again.db.execute("SELECT count(*) FROM certifications").fetchone()[0] == 0
