"""No client can be stopped by data, and local copies stay private.

Bad rows are written on the server as the superuser (as an old server or a hand edit
would leave them); every client must keep opening, labelling and pulling, and say how
many rows it could not use.
"""

from __future__ import annotations

import stat
import subprocess
import sys

import pytest

from tests.pg.team_setup import publish
from triage.base.errors import TriageError
from triage.project import open_project
from triage.project.team import replica_path
from triage.store.pg.url import parse_url


@pytest.fixture(autouse=True)
def _team_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))


def _label_once(project, role):
    session = project.start_session(role)
    item = project.next_candidate(session)
    label_id = project.record_label(session, item.candidate_id, "idiom")
    return session, item.candidate_id, label_id


def _bad_rows(pg, schema: str) -> None:
    """Four rows no project file accepts, in one of the lead's sessions."""
    pg.psql(f"""
        INSERT INTO {schema}.labels(uid, candidate_id, annotator_id, session_id, value, kind,
                                    created_at, seconds)
        SELECT 'bad-' || n, c, s.annotator_id, s.id, 'idiom', k, d, sec
        FROM (SELECT id, annotator_id FROM {schema}.sessions ORDER BY id LIMIT 1) s,
        (VALUES (1, 1, 'evil', '2026-01-01T00:00:00+00:00', 1.0),
                (2, 2, 'triage', '2026-01-01T00:00:00+00:00', -5000.0),
                (3, 999999, 'triage', '2026-01-01T00:00:00+00:00', 1.0),
                (4, 4, 'triage', 'not a date', 1e300)) v(n, c, k, d, sec);
    """)


def test_rows_a_replica_cannot_store_are_set_aside_and_it_keeps_working(pg, pg_url, tmp_path):
    publish(pg, pg_url(), tmp_path, annotators=("qa_ann",), leads=("qa_lead",))
    schema = parse_url(pg_url()).schema
    lead = open_project(pg_url("qa_lead"))
    _label_once(lead, "qa_lead")
    _bad_rows(pg, schema)
    lead.link.pull()
    assert lead.server_problems.startswith("4 rows from the server could not be used: labels")
    _label_once(lead, "qa_lead")            # the lead still labels
    lead.close()
    annotator = open_project(pg_url("qa_ann"))   # a fresh replica opens
    _label_once(annotator, "qa_ann")
    # Others' rows reach it masked (no kind, no seconds): only the bad candidate and date stay.
    assert annotator.server_problems.startswith("2 rows from the server could not be used")
    annotator.close()
    snapshot = tmp_path / "snap.triage"
    from triage.cli.program import main

    assert main(["pull", pg_url(), str(snapshot)]) == 0
    # The lead repairs one row on the server: it reaches the existing replica.
    pg.psql(f"UPDATE {schema}.labels SET kind = 'triage' WHERE uid = 'bad-1'")
    lead = open_project(pg_url("qa_lead"))
    assert lead.server_problems.startswith("3 rows")
    assert lead.db.execute("SELECT kind FROM labels WHERE uid = 'bad-1'").fetchone() == ("triage",)
    lead.close()


@pytest.mark.slow
def test_the_command_line_tells_about_unusable_rows_on_stderr(pg, pg_url, tmp_path):
    publish(pg, pg_url(), tmp_path, leads=("qc_lead",))
    lead = open_project(pg_url("qc_lead"))
    _label_once(lead, "qc_lead")
    lead.close()
    _bad_rows(pg, parse_url(pg_url()).schema)
    done = subprocess.run([sys.executable, "-m", "triage.cli", "status", pg_url("qc_lead")],
                          capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ})
    assert done.returncode == 0, done.stderr
    assert "4 rows from the server could not be used" in done.stderr


def test_huge_ids_and_undo_numbers_do_not_stall_a_replica(pg, pg_url, tmp_path):
    publish(pg, pg_url(), tmp_path, annotators=("qb_ann",), leads=("qb_lead",))
    schema = parse_url(pg_url()).schema
    lead = open_project(pg_url("qb_lead"))
    _label_once(lead, "qb_lead")
    pg.psql(f"INSERT INTO {schema}.labels(id, uid, candidate_id, annotator_id, session_id, "
            "value, kind, created_at, seconds) SELECT 1000000000000000, 'huge-id', candidate_id, "
            f"annotator_id, session_id, value, kind, created_at, seconds FROM {schema}.labels "
            f"WHERE id = (SELECT max(id) FROM {schema}.labels); "
            f"UPDATE {schema}.labels SET undo_seq = 9223372036854775807, undone_at = "
            f"'2026-01-01T00:00:00+00:00' WHERE id = (SELECT min(id) FROM {schema}.labels)")
    annotator = open_project(pg_url("qb_ann"))
    session, candidate, label_id = _label_once(annotator, "qb_ann")
    assert label_id < 1000000000000000
    annotator.undo(session)          # later undo marks still work
    lead.link.pull()
    row = lead.db.execute("SELECT candidate_id, undone_at IS NOT NULL, undo_seq FROM labels "
                          "WHERE id = ?", [label_id]).fetchone()
    assert row[:2] == (candidate, 1)
    assert row[2] < 1000   # numbered by the replica: desks following undo marks see it
    assert lead.db.execute("SELECT count(*) FROM labels WHERE id = 1000000000000000"
                           ).fetchone()[0] == 1
    annotator.close()
    lead.close()


def test_closing_a_project_frees_its_lease(pg, pg_url, tmp_path):
    publish(pg, pg_url(), tmp_path, annotators=("qd_ann", "qd_other"))
    first = open_project(pg_url("qd_ann"))
    session = first.start_session("qd_ann")
    item = first.next_candidate(session)
    first.close()                               # no end_session: the desk was closed
    other = open_project(pg_url("qd_other"))
    other_session = other.start_session("qd_other")
    assert other.next_candidate(other_session).candidate_id == item.candidate_id
    other.close()


def test_a_nul_in_a_note_is_a_clean_error(pg, pg_url, tmp_path):
    publish(pg, pg_url(), tmp_path, annotators=("qe_ann",))
    project = open_project(pg_url("qe_ann"))
    session = project.start_session("qe_ann")
    item = project.next_candidate(session)
    with pytest.raises(TriageError, match="NUL"):
        project.record_label(session, item.candidate_id, "idiom", note="a\x00b")
    project.close()


def test_replicas_are_private_and_named_by_a_hash(pg, pg_url, tmp_path):
    url = parse_url(pg_url())
    names = {replica_path(url, role).name for role in ("zoé", "zoë😀", "zo_", "zo.")}
    assert len(names) == 4
    publish(pg, pg_url(), tmp_path, annotators=("qf_ann",))
    project = open_project(pg_url("qf_ann"))
    path = project.path
    project.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
