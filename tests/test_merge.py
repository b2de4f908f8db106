"""Merging project copies: identities, undo marks, idempotence, refusals, read-only sources."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import make_project
from triage.base.errors import BusyError, ProjectError, TriageError
from triage.cli.program import main
from triage.project import merge as mergemod
from triage.project import open_project
from triage.project.merge import merge_projects
from triage.store import connection as dbmod
from triage.store.connection import copy_project

ROOT = Path(__file__).resolve().parent.parent

LOCAL_IDS = {"id", "candidate_id", "annotator_id", "session_id", "undo_seq"}


def label_table(path: Path) -> dict[str, tuple]:
    """uid -> every stored column of the event (local ids replaced by key, name, session
    uid; ``undone_at`` reduced to undone or not)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        rows = conn.execute(
            "SELECT l.*, c.key AS c_key, a.name AS a_name, s.uid AS s_uid FROM labels l "
            "JOIN candidates c ON c.id = l.candidate_id "
            "JOIN annotators a ON a.id = l.annotator_id JOIN sessions s ON s.id = l.session_id"
        ).fetchall()
    finally:
        conn.close()
    out = {}
    for row in rows:
        fields = {k: row[k] for k in row.keys() if k not in LOCAL_IDS}  # noqa: SIM118 (Row)
        fields["undone_at"] = fields["undone_at"] is not None
        out[row["uid"]] = tuple(sorted(fields.items()))
    return out


def undone(table: dict[str, tuple]) -> list[dict]:
    return [dict(row) for row in table.values() if dict(row)["undone_at"]]


def uids_in_order(path: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute("SELECT uid FROM labels ORDER BY id")]
    finally:
        conn.close()


def dump(path: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def label_some(path: Path, annotator: str, count: int, *, undo: int = 0,
               note: str | None = None) -> list[int]:
    """``annotator`` labels ``count`` candidates from the queue, then undoes ``undo``."""
    with open_project(path) as project:
        session = project.start_session(annotator)
        done = []
        for i in range(count):
            item = project.next_candidate(session)
            value = "idiom" if i % 2 == 0 else "literal"
            project.record_label(session, item.candidate_id, value, seconds=1.5 + i,
                                 note=note if i == 0 else None)
            done.append(item.candidate_id)
        for _ in range(undo):
            project.undo(session)
        project.end_session(session)
    return done


@pytest.fixture
def copies(tmp_path):
    """A target and two copies of one 30-candidate project, each labeled by its own team."""
    base = tmp_path / "base"
    base.mkdir()
    make_project(base, n=30).close()
    paths = {name: tmp_path / f"{name}.triage" for name in ("target", "a", "b")}
    for path in paths.values():
        copy_project(base / "p.triage", path)
    label_some(paths["target"], "carol", 2)
    label_some(paths["a"], "ada", 5, undo=1, note="check the dictionary")
    label_some(paths["b"], "bob", 4)
    return paths


def test_merge_brings_every_event_with_annotator_session_and_undo(copies):
    conn = sqlite3.connect(copies["a"])  # as if the bandit queue had served one event
    conn.execute("UPDATE labels SET served_by = 'm2' WHERE id = 2")
    conn.commit()
    conn.close()
    a, b, target = label_table(copies["a"]), label_table(copies["b"]), label_table(copies["target"])
    assert (len(a), len(b), len(target)) == (5, 4, 2)
    own_order = uids_in_order(copies["target"])
    report = merge_projects(copies["target"], [copies["a"], copies["b"]])
    merged = label_table(copies["target"])
    # Every event, field for field (value, kind, created_at, seconds, note, undone), by uid.
    assert merged == {**target, **a, **b}
    assert [(r["a_name"], r["note"]) for r in undone(merged)] == [("ada", None)]  # the undo
    assert [(r["a_name"], r["seconds"]) for r in map(dict, merged.values())
            if r["note"]] == [("ada", 1.5)]
    assert [r["served_by"] for r in map(dict, merged.values()) if r["served_by"]] == ["m2"]
    assert [(s.annotators_added, s.sessions_added, s.labels_added, s.undo_marks_applied)
            for s in report.sources] == [(1, 1, 5, 1), (1, 1, 4, 0)]
    assert (report.labels_added, report.sessions_added, report.annotators_added) == (9, 2, 2)
    # Appended after the target's own events, each copy's events in their original order.
    assert uids_in_order(copies["target"]) == (
        own_order + uids_in_order(copies["a"]) + uids_in_order(copies["b"]))
    with open_project(copies["target"]) as project:
        names = {r[0] for r in project.db.execute("SELECT name FROM annotators")}
        assert names == {"carol", "ada", "bob"}
        assert project.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert project.db.execute("PRAGMA foreign_key_check").fetchall() == []
        # Undo marks carry fresh, unique sequence numbers so desks can follow them.
        seqs = [r[0] for r in project.db.execute(
            "SELECT undo_seq FROM labels WHERE undone_at IS NOT NULL")]
        assert seqs == [1]


def test_merging_twice_adds_nothing_and_changes_nothing(copies):
    merge_projects(copies["target"], [copies["a"], copies["b"]])
    before = dump(copies["target"])
    again = merge_projects(copies["target"], [copies["a"], copies["b"], copies["a"]])
    assert (again.labels_added, again.sessions_added, again.annotators_added,
            again.undo_marks_applied) == (0, 0, 0, 0)
    assert dump(copies["target"]) == before


def test_sources_are_not_changed_by_a_single_byte(copies):
    before = {name: digest(path) for name, path in copies.items() if name != "target"}
    merge_projects(copies["target"], [copies["a"], copies["b"]])
    assert {name: digest(copies[name]) for name in before} == before
    # SQLite may leave an empty write-ahead log beside a source it read; never content.
    wal = Path(f"{copies['a']}-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_undo_made_in_a_copy_is_applied_and_never_taken_back(copies, tmp_path):
    merge_projects(copies["target"], [copies["a"], copies["b"]])
    later = tmp_path / "later.triage"
    copy_project(copies["target"], later)
    with open_project(later) as project:          # bob undoes his last label in the copy
        undone_cid = project.undo(project.start_session("bob"))
    with open_project(copies["target"]) as project:  # carol undoes hers in the target
        project.undo(project.start_session("carol"))
    report = merge_projects(copies["target"], [later])
    assert (report.labels_added, report.undo_marks_applied, report.sessions_added) == (0, 1, 1)
    merged = label_table(copies["target"])
    undone_now = {(r["c_key"], r["a_name"]) for r in undone(merged)}
    with open_project(copies["target"]) as project:
        key = project.db.execute("SELECT key FROM candidates WHERE id = ?", [undone_cid]).fetchone()[0]
        seqs = sorted(r[0] for r in project.db.execute(
            "SELECT undo_seq FROM labels WHERE undo_seq IS NOT NULL"))
    assert (key, "bob") in undone_now
    assert sum(1 for r in undone(merged) if r["a_name"] == "carol") == 1
    assert seqs == [1, 2, 3]  # ada's, carol's, then the merged mark as max + 1
    # The copy still has carol's label active: merging it back must not un-undo it.
    assert merge_projects(copies["target"], [later]).undo_marks_applied == 0
    assert label_table(copies["target"]) == merged


def test_a_copy_of_another_pool_is_refused_with_counts_and_examples(copies, tmp_path):
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    make_project(other_dir, n=33).close()
    before = dump(copies["target"])
    with pytest.raises(TriageError) as error:
        merge_projects(copies["target"], [copies["a"], other_dir / "p.triage"])
    message = str(error.value)
    assert "differs in 3 keys" in message
    assert "3 keys only in the source (e.g. 'c0030', 'c0031', 'c0032')" in message
    assert "Nothing was merged" in message
    assert dump(copies["target"]) == before  # not even the good copy was merged


def test_a_changed_candidate_text_is_a_different_pool(copies):
    conn = sqlite3.connect(copies["b"])
    conn.execute("UPDATE candidates SET text = 'edited' WHERE key IN ('c0007', 'c0003')")
    conn.commit()
    conn.close()
    with pytest.raises(TriageError, match=r"differs in 2 keys: 2 keys with a different text "
                                          r"\(e\.g\. 'c0003', 'c0007'\)"):
        merge_projects(copies["target"], [copies["b"]])


def test_labels_outside_the_target_scheme_are_refused(copies):
    with open_project(copies["a"]) as project:
        project.update_settings(labels=[("idiom", "i"), ("literal", "l"), ("unsure", "x")])
        session = project.start_session("ada")
        project.record_label(session, project.next_candidate(session).candidate_id, "unsure")
    before = dump(copies["target"])
    with pytest.raises(TriageError, match="'unsure' that are not in the target's label scheme"):
        merge_projects(copies["target"], [copies["a"]])
    assert dump(copies["target"]) == before


def test_a_file_that_is_not_a_project_is_refused_unchanged(copies, tmp_path):
    text = tmp_path / "notes.triage"
    text.write_text("not a database")
    plain = tmp_path / "plain.db"
    conn = sqlite3.connect(plain)
    conn.execute("CREATE TABLE t(x)")
    conn.commit()
    conn.close()
    plain_digest = digest(plain)
    with pytest.raises(ProjectError, match="not a Triage project"):
        merge_projects(copies["target"], [text])
    with pytest.raises(ProjectError, match="SQLite database but not a Triage project"):
        merge_projects(copies["target"], [copies["a"], plain])
    with pytest.raises(ProjectError, match="does not exist"):
        merge_projects(copies["target"], [tmp_path / "missing.triage"])
    with pytest.raises(TriageError, match="is the target itself"):
        merge_projects(copies["target"], [copies["target"]])
    assert digest(plain) == plain_digest
    assert len(label_table(copies["target"])) == 2


def test_a_failure_half_way_leaves_the_target_as_it_was(copies, monkeypatch):
    before = dump(copies["target"])
    real = mergemod._merge_labels
    calls = []

    def failing(t, src):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("disk full")
        return real(t, src)

    monkeypatch.setattr(mergemod, "_merge_labels", failing)
    with pytest.raises(RuntimeError, match="disk full"):
        merge_projects(copies["target"], [copies["a"], copies["b"]])
    assert dump(copies["target"]) == before


def test_merge_command_json_and_text(copies, capsys):
    def triage(*args):
        code = main([str(a) for a in args])
        out = capsys.readouterr()
        return code, out.out, out.err

    code, out, err = triage("merge", copies["target"], copies["a"], copies["b"], "--json")
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {"target", "sources", "annotators_added", "sessions_added",
                         "labels_added", "undo_marks_applied"}
    assert data["labels_added"] == 9 and data["undo_marks_applied"] == 1
    assert [s["labels_in_source"] for s in data["sources"]] == [5, 4]
    code, out, _err = triage("merge", copies["target"], copies["a"])
    assert code == 0 and "nothing new" in out
    code, _out, err = triage("merge", copies["target"], ROOT / "pyproject.toml")
    assert code == 2 and "not a Triage project" in err


@pytest.fixture(scope="module")
def base_project(tmp_path_factory):
    base = tmp_path_factory.mktemp("base")
    make_project(base, n=12).close()
    return base / "p.triage"


ACTIONS = st.lists(st.tuples(st.integers(0, 1), st.sampled_from(["ada", "bob"]),
                             st.sampled_from(["label", "label", "undo"])), max_size=10)


def apply(paths: tuple[Path, Path], actions) -> None:
    for copy, annotator, action in actions:
        with open_project(paths[copy]) as project:
            session = project.start_session(annotator)
            if action == "undo":
                project.undo(session)
            elif (item := project.next_candidate(session)) is not None:
                project.record_label(session, item.candidate_id, "idiom")


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@pytest.mark.slow   # a few seconds: the slow tier, which CI runs
@given(before=ACTIONS, after=ACTIONS)
def test_merge_order_does_not_matter_and_the_union_is_kept(base_project, tmp_path_factory,
                                                            before, after):
    """Copy a, work on both copies (undoing shared events too), merge in either order."""
    tmp = tmp_path_factory.mktemp("prop")
    a, b, t1, t2 = (tmp / f"{n}.triage" for n in ("a", "b", "t1", "t2"))
    for path in (a, t1, t2):
        copy_project(base_project, path)
    apply((a, a), before)
    copy_project(a, b)
    apply((a, b), after)
    merge_projects(t1, [a, b])
    merge_projects(t2, [b, a])
    ta, tb = label_table(a), label_table(b)
    # The union of the events; an event undone in either copy is undone.
    expected = {**ta, **tb}
    for uid in ta.keys() & tb.keys():
        if dict(ta[uid])["undone_at"]:
            expected[uid] = ta[uid]
    assert label_table(t1) == label_table(t2) == expected
    assert merge_projects(t1, [b, a]).labels_added == 0
    assert merge_projects(t1, [b, a]).undo_marks_applied == 0


def test_a_busy_target_is_a_clear_error_and_nothing_is_merged(copies, monkeypatch):
    monkeypatch.setattr(dbmod, "BUSY_TIMEOUT_S", 0.2)
    holder = sqlite3.connect(copies["target"], isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another program is in the middle of a write
    try:
        with pytest.raises(BusyError, match="nothing was merged, try again"):
            merge_projects(copies["target"], [copies["a"]])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(label_table(copies["target"])) == 2
    assert merge_projects(copies["target"], [copies["a"]]).labels_added == 5
