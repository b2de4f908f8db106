"""A desk keeps the overlap plan it was opened with; the server takes what that plan serves.

The lead changing the active model redraws the overlap plan on the server, while a desk
opened before goes on serving the items of the plan it loaded. The server accepts an
overlap label on an item of any plan in force since the labelling session started (less
the grace a desk opened a little before its session has), and no more: an annotator at a
SQL prompt is still refused overlap on a candidate outside every plan of her session.
"""

from __future__ import annotations

import psycopg
import pytest

from tests.pg.team_setup import add_label, claim, desk_session, publish
from triage.project import open_project
from triage.project.demo import simulate


@pytest.fixture
def team(pg, pg_url, project_name, tmp_path, monkeypatch):
    """Lead ``vlead``, annotators ``vana`` and ``vben`` (who labelled the head under m1)."""
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    publish(pg, pg_url(), tmp_path, n=200, annotators=("vana", "vben"), leads=("vlead",),
            overlap_rate=0.0, labels_per_overlap_item=2, audit_rate=0.0, retest_rate=0.0)
    lead = open_project(pg_url("vlead"))
    lead.update_settings(overlap_rate=0.2)   # the lead's desk stores the plan on the server
    lead.close()
    ben = open_project(pg_url("vben"))
    simulate(ben, 60, "vben")
    ben.close()
    return pg, pg_url, f"triage_{project_name}"


def _plan(pg, s: str) -> set[int]:
    with pg.connect() as conn:
        return {r[0] for r in conn.execute(
            f"SELECT candidate_id FROM {s}.plan WHERE kind = 'overlap'")}


def _handled_by_ben(pg, s: str) -> list[int]:
    with pg.connect() as conn:
        return [r[0] for r in conn.execute(
            f"SELECT l.candidate_id FROM {s}.labels l JOIN {s}.annotators a "
            f"ON a.id = l.annotator_id WHERE a.name = 'vben' AND l.undone_at IS NULL "
            "ORDER BY l.id")]


def _change_active_model(url) -> None:
    lead = open_project(url("vlead"))
    lead.update_settings(active_model="m2")   # redraws the overlap plan on the server
    lead.close()


def test_a_desk_opened_before_the_plan_was_redrawn_has_its_overlap_labels_taken(team):
    pg, url, s = team
    old_plan = _plan(pg, s)
    assert old_plan
    desk = open_project(url("vana"))
    session = desk.start_session("vana")
    item = desk.next_candidate(session)
    assert item is not None and item.kind == "overlap"   # ben's labels opened items for her
    _change_active_model(url)
    new_plan = _plan(pg, s)
    assert new_plan and new_plan != old_plan
    assert item.candidate_id in old_plan
    served_from_old = []
    for _ in range(8):
        assert item is not None
        if item.kind == "overlap" and item.candidate_id not in new_plan:
            served_from_old.append(item.candidate_id)
        desk.record_label(session, item.candidate_id, "literal")   # refused before the fix
        item = desk.next_candidate(session)
    desk.close()
    assert served_from_old   # the desk served items of the plan it was opened with
    with pg.connect() as conn:
        kinds = {r[0]: r[1] for r in conn.execute(
            f"SELECT l.candidate_id, l.kind FROM {s}.labels l JOIN {s}.annotators a "
            f"ON a.id = l.annotator_id WHERE a.name = 'vana' AND l.undone_at IS NULL")}
    assert all(kinds[c] == "overlap" for c in served_from_old)


def test_overlap_counts_only_on_a_plan_in_force_during_the_session(team):
    """At her SQL prompt: an item of the old plan counts in a session that started while it
    was in force, not in one started after it stopped (and past the grace); a candidate
    outside every plan never counts."""
    pg, url, s = team
    old_plan = _plan(pg, s)
    with pg.connect("vana") as ana:
        before = desk_session(ana, s)
        _change_active_model(url)
        new_plan = _plan(pg, s)
        theirs = _handled_by_ben(pg, s)
        only_old = [c for c in theirs if c in old_plan and c not in new_plan]
        outside = [c for c in theirs if c not in old_plan and c not in new_plan]
        assert len(only_old) >= 2 and outside
        assert claim(ana, s, before, outside[0])
        with pytest.raises(psycopg.Error, match="not an overlap item due"):
            add_label(ana, s, before, outside[0], "literal", "overlap")
        assert claim(ana, s, before, only_old[0])
        assert add_label(ana, s, before, only_old[0], "literal", "overlap") > 0
        # A session that started long after the old plan stopped: its items are not hers.
        after = desk_session(ana, s)
        with pg.connect() as admin:
            admin.execute(f"UPDATE {s}.sessions SET started_at = to_char((clock_timestamp() "
                          "+ interval '1 hour') AT TIME ZONE 'UTC', "
                          "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"') WHERE id = %s", [after])
        assert claim(ana, s, after, only_old[1])
        with pytest.raises(psycopg.Error, match="not an overlap item due"):
            add_label(ana, s, after, only_old[1], "literal", "overlap")
        # The session that started while it was in force still may.
        ana.execute(f"SELECT {s}.release(%s, %s)", [after, only_old[1]])
        assert claim(ana, s, before, only_old[1])
        assert add_label(ana, s, before, only_old[1], "literal", "overlap") > 0
