"""A third hostile review: the ranking a label credits is the server's word, not the desk's.

In the bandit queue modes every label carries the arm whose ranking served it
(``served_by``), and the lead's belief of which model finds positives is rebuilt from
those. ``vana`` (the attacker, her own login role at a SQL prompt) names an arm that did not
serve her label, repeats a credit by changing her decision, and credits an arm with a
certification label: the server keeps only the arms its own state confirms. Her labels
themselves count as before.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.pg.team_setup import claim, desk_session, one, publish
from triage.project import open_project
from triage.project.certify import start_certification
from triage.project.demo import simulate

_uids = iter(range(1, 10**6))


@pytest.fixture
def team(pg, pg_url, project_name, tmp_path, monkeypatch):
    """Bandit over m1 (ranks ids ascending) and m2 (descending); ``vben`` labelled 6."""
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    publish(pg, pg_url(), tmp_path, n=80, annotators=("vana", "vben"), leads=("vlead",),
            queue_mode="bandit", overlap_rate=0.0, audit_rate=0.0, retest_rate=0.0)
    ben = open_project(pg_url("vben"))
    simulate(ben, 6, "vben")
    ben.close()
    return pg, pg_url, f"triage_{project_name}"


def _label(conn, s: str, session: int, candidate: int, value: str | None, kind: str,
           served_by: str | None) -> int:
    return one(conn, f"SELECT {s}.add_label(%s, %s, %s, %s, %s, 1, NULL, %s)",
               [f"u-review2-{next(_uids):06d}", candidate, session, value, kind, served_by])


def _free(pg, s: str) -> list[int]:
    """Unlabelled candidates in id order (m1's ranking; m2's is the reverse)."""
    with pg.connect() as conn:
        return [r[0] for r in conn.execute(
            f"SELECT id FROM {s}.candidates WHERE id NOT IN (SELECT candidate_id FROM "
            f"{s}.labels WHERE undone_at IS NULL) ORDER BY id")]


def _served_by(pg, s: str, label: int) -> str | None:
    with pg.connect() as conn:
        return one(conn, f"SELECT served_by FROM {s}.labels WHERE id = %s", [label])


def _pulls(url) -> dict[str, int]:
    """The bandit's pulls per arm, as the lead's view shows them."""
    lead = open_project(url("vlead"))
    try:
        belief = lead.bandit_belief()
        assert belief is not None
        return dict(belief.pulls)
    finally:
        lead.close()


def test_a_label_credits_only_the_arm_whose_head_served_it(team):
    pg, url, s = team
    free = _free(pg, s)
    with pg.connect("vana") as ana:
        session = desk_session(ana, s)
        before = _pulls(url)
        # The head of m1 (far down m2), labelled a positive and credited to m2: ten times.
        forged = []
        for candidate in free[:10]:
            assert claim(ana, s, session, candidate)
            forged.append(_label(ana, s, session, candidate, "idiom", "triage", "m2"))
        # The label counts (it is m1's head), the credit to m2 does not.
        assert [_served_by(pg, s, label) for label in forged] == [None] * 10
        assert _pulls(url) == before
        # Named honestly, each arm's head is credited to it.
        head1, head2 = _free(pg, s)[0], _free(pg, s)[-1]
        assert claim(ana, s, session, head1)
        assert _served_by(pg, s, _label(ana, s, session, head1, "idiom", "triage", "m1")) == "m1"
        assert claim(ana, s, session, head2)
        assert _served_by(pg, s, _label(ana, s, session, head2, "idiom", "triage", "m2")) == "m2"


def test_changing_a_decision_does_not_credit_its_arm_again(team):
    pg, url, s = team
    head = _free(pg, s)[-1]   # m2's head
    with pg.connect("vana") as ana:
        session = desk_session(ana, s)
        assert claim(ana, s, session, head)
        first = _label(ana, s, session, head, "idiom", "triage", "m2")
        assert _served_by(pg, s, first) == "m2"
        pulls = _pulls(url)
        # Each change of her decision would be one more positive for m2.
        changes = [_label(ana, s, session, head, value, "triage", "m2")
                   for value in ("literal", "idiom", "idiom", "idiom")]
    assert [_served_by(pg, s, label) for label in changes] == [None] * 4
    assert _pulls(url) == pulls
    # A skip credits no arm: the decision that follows it credits the arm that served it.
    with pg.connect("vana") as ana:
        session = desk_session(ana, s)
        head = _free(pg, s)[-1]
        assert claim(ana, s, session, head)
        assert _served_by(pg, s, _label(ana, s, session, head, None, "triage", "m2")) == "m2"
        assert [_served_by(pg, s, _label(ana, s, session, head, value, "triage", "m2"))
                for value in ("idiom", "literal", None, "idiom")] == ["m2", None, None, None]


def test_an_undone_label_served_again_keeps_its_arm(team):
    pg, _url, s = team
    head = _free(pg, s)[-1]   # m2's head
    with pg.connect("vana") as ana:
        session = desk_session(ana, s)
        assert claim(ana, s, session, head)
        first = _label(ana, s, session, head, "literal", "triage", "m2")
        ana.execute(f"SELECT {s}.undo(%s, %s)", [first, session])
        # As a desk does after an undo: the same candidate, for the same reason as before.
        assert claim(ana, s, session, head)
        again = _label(ana, s, session, head, "idiom", "triage", "m2")
        assert _served_by(pg, s, again) == "m2"
        ana.execute(f"SELECT {s}.undo(%s, %s)", [again, session])
        assert claim(ana, s, session, head)   # another arm's credit it was never served by
        assert _served_by(pg, s, _label(ana, s, session, head, "idiom", "triage", "m1")) is None


def test_a_certification_label_credits_no_arm(team):
    pg, url, s = team
    lead = open_project(url("vlead"))
    start_certification(lead)
    lead.close()
    with pg.connect("vana") as ana:
        order = np.frombuffer(one(ana, f"SELECT sample_order FROM {s}.certification_feed() "
                                       "WHERE ended_at IS NULL"), dtype="<i8").tolist()
        session = desk_session(ana, s)
        assert claim(ana, s, session, order[0])
        label = _label(ana, s, session, order[0], "idiom", "certify", "m1")
    assert _served_by(pg, s, label) is None


@pytest.mark.slow   # the cooperative desks' run of test_rank_order_desks, watched
@pytest.mark.parametrize("scenario", ["models", "overlap"])
def test_cooperative_desks_keep_every_arm_they_name(pg, pg_url, project_name, tmp_path,
                                                    monkeypatch, scenario):
    """The real dispatcher in the bandit modes (two models and cal, settings changed and
    snapshots published during the run, undos and changes of mind): every arm a desk names
    for a label is stored, except on a change of a decision that already credited one."""
    from tests.pg import test_rank_order_desks as desks
    from triage.store.pg.link import TeamLink

    s, sent = f"triage_{project_name}", []
    insert = TeamLink.insert_label

    def watched(link, **fields):
        credited = False
        if fields["served_by"] is not None:
            with pg.connect() as conn:
                credited = one(conn, f"SELECT EXISTS (SELECT 1 FROM {s}.labels WHERE "
                                     "candidate_id = %s AND annotator_id = %s AND undone_at "
                                     "IS NULL AND value IS NOT NULL AND served_by IS NOT NULL)",
                               [fields["candidate_id"], fields["annotator_id"]])
        label = insert(link, **fields)
        sent.append((label, fields["served_by"], credited))
        return label

    monkeypatch.setattr(TeamLink, "insert_label", watched)
    desks.test_cooperative_desks_are_never_refused(pg, pg_url, project_name, tmp_path,
                                                   monkeypatch, scenario)
    with pg.connect() as conn:
        stored = dict(conn.execute(f"SELECT id, served_by FROM {s}.labels").fetchall())
    named = [(label, arm) for label, arm, credited in sent if arm is not None and not credited]
    assert len(named) > 100
    assert [(label, arm, stored[label]) for label, arm in named if stored[label] != arm] == []
