"""Three desks as separate processes on one server, at a size the fast tier can afford.

The same checks as ``test_team_desks.test_eight_desks_thousand_labels_each`` (which runs in
``make test-all``), on 3 desks × 150 labels: every acknowledged label is on the server,
nothing extra, no candidate served twice outside the overlap plan, never to the same desk.
"""

from __future__ import annotations

import pytest

from tests.pg.team_setup import publish
from tests.pg.test_team_desks import _desk, check_team_run

DESKS, LABELS = 3, 150


@pytest.mark.slow  # seconds: the fast tier keeps make test within 5 minutes
def test_three_desks_label_at_once_and_nothing_is_lost_or_doubled(pg, pg_url, project_name,
                                                                  tmp_path):
    roles = tuple(f"desk{i}" for i in range(1, DESKS + 1))
    publish(pg, pg_url(), tmp_path, n=1500, annotators=roles, overlap_rate=0.1, lease_seconds=8,
            labels_per_overlap_item=2, audit_rate=0.0, retest_rate=0.0)
    schema = f"triage_{project_name}"
    desks = [_desk(pg_url(role), role, LABELS, tmp_path / "cache") for role in roles]
    outputs = [desk.communicate(timeout=240) for desk in desks]
    plan, per_candidate = check_team_run(pg, schema, desks, outputs, DESKS * LABELS)
    doubled = [c for c in plan if per_candidate[c] == 2]
    assert len(doubled) > 0
