"""A team serves one cal order: the lead fits and stores a snapshot, every desk pulls it."""

from __future__ import annotations

import pytest

from tests.pg.team_setup import publish
from triage.project import open_project

pytest.importorskip("sklearn")


@pytest.mark.slow
def test_three_desks_serve_the_leads_snapshot_order(pg, pg_url, tmp_path):
    roles = ("cal_a", "cal_b", "cal_c")
    publish(pg, pg_url(), tmp_path, n=300, annotators=roles, leads=("cal_lead",),
            active_model="cal", overlap_rate=0.0, audit_rate=0.0)
    lead = open_project(pg_url("cal_lead"))
    gold = dict(lead.db.execute("SELECT id, gold FROM candidates").fetchall())
    session = lead.start_session("cal_lead")
    for _ in range(60):
        item = lead.next_candidate(session)
        lead.record_label(session, item.candidate_id, gold[item.candidate_id])
    snap = lead.train_cal(force=True)
    assert snap is not None
    lead.close()
    desks = [open_project(pg_url(role)) for role in roles]
    served = []
    for role, desk in zip(roles, desks):
        served.append(desk.next_candidate(desk.start_session(role)).candidate_id)
    assert served == [int(x) for x in snap.candidate_ids[:3]]
    for desk in desks:
        desk.close()
