"""Three desks as separate processes on one server, at a size the fast tier can afford.

The same checks as ``test_team_desks.test_eight_desks_thousand_labels_each`` (which runs in
``make test-all``), on 3 desks × 150 labels: every acknowledged label is on the server,
nothing extra, no candidate served twice outside the overlap plan, never to the same desk.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from tests.pg.team_setup import publish
from tests.pg.test_team_desks import _acks, _desk, _server_labels

DESKS, LABELS = 3, 150


def test_three_desks_label_at_once_and_nothing_is_lost_or_doubled(pg, pg_url, project_name,
                                                                  tmp_path):
    roles = tuple(f"desk{i}" for i in range(1, DESKS + 1))
    publish(pg, pg_url(), tmp_path, n=1500, annotators=roles, overlap_rate=0.1,
            labels_per_overlap_item=2, audit_rate=0.0, retest_rate=0.0)
    schema = f"triage_{project_name}"
    desks = [_desk(pg_url(role), role, LABELS, tmp_path / "cache") for role in roles]
    outputs = [desk.communicate(timeout=240) for desk in desks]
    for desk, (out, err) in zip(desks, outputs):
        assert desk.returncode == 0, err[-3000:]
        assert out.rstrip().endswith("DONE")
    acked = [ack for out, _err in outputs for ack in _acks(out)]
    assert len(acked) == DESKS * LABELS
    rows = _server_labels(pg, schema)
    by_id = {lid: cid for lid, cid, _who in rows}
    assert all(by_id.get(lid) == cid for lid, cid in acked)   # 0 lost
    assert len(rows) == DESKS * LABELS                         # nothing extra either
    with pg.connect() as conn:
        plan = {r[0] for r in conn.execute(f"SELECT candidate_id FROM {schema}.plan")}
    per_candidate = Counter(cid for _lid, cid, _who in rows)
    who = defaultdict(list)
    for _lid, cid, name in rows:
        who[cid].append(name)
    assert [c for c, n in per_candidate.items() if n > 1 and c not in plan] == []
    assert max(per_candidate[c] for c in plan) <= 2              # no more than planned
    assert all(len(set(names)) == len(names) for names in who.values())  # blind: new eyes
    doubled = [c for c in plan if per_candidate[c] == 2]
    assert len(doubled) > 0
