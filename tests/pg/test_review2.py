"""A third hostile review: which ranking served a label, and locks held on what is due.

In the bandit queue modes every label carries the arm whose ranking served it
(``served_by``), and the lead's belief of which model finds positives is rebuilt from
those. ``vana`` (the attacker, her own login role at a SQL prompt) names an arm that did not
serve her label, repeats a credit by changing her decision, and credits an arm with a
certification label: the server keeps only the arms its own state confirms. Her labels
themselves count as before.

She also holds the next certification or audit item locked in an open transaction (a claim
never committed): the others' desks serve past it and their labels are taken, while her own
lock moves her on no further.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np
import psycopg
import pytest

from tests.pg.team_setup import attacked_team, claim, desk_session, one
from triage.project import open_project
from triage.project.certify import start_certification

_uids = iter(range(1, 10**6))


@pytest.fixture
def team(pg, pg_url, project_name, tmp_path, monkeypatch):
    """Bandit over m1 (ranks ids ascending) and m2 (descending); ``vben`` labelled 6."""
    return attacked_team(pg, pg_url, project_name, tmp_path, monkeypatch, prefix="v", n=80,
                         labelled=6, queue_mode="bandit")


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


def _m2_head_labelled(pg, s: str, ana, value: str | None) -> tuple[int, int, int]:
    """``vana`` claims m2's head in a new session and labels it ``value`` naming m2:
    (session, candidate, label)."""
    head = _free(pg, s)[-1]
    session = desk_session(ana, s)
    assert claim(ana, s, session, head)
    return session, head, _label(ana, s, session, head, value, "triage", "m2")


def test_changing_a_decision_does_not_credit_its_arm_again(team):
    pg, url, s = team
    with pg.connect("vana") as ana:
        session, head, first = _m2_head_labelled(pg, s, ana, "idiom")
        assert _served_by(pg, s, first) == "m2"
        pulls = _pulls(url)
        # Each change of her decision would be one more positive for m2.
        changes = [_label(ana, s, session, head, value, "triage", "m2")
                   for value in ("literal", "idiom", "idiom", "idiom")]
    assert [_served_by(pg, s, label) for label in changes] == [None] * 4
    assert _pulls(url) == pulls
    # A skip credits no arm: the decision that follows it credits the arm that served it.
    with pg.connect("vana") as ana:
        session, head, skip = _m2_head_labelled(pg, s, ana, None)
        assert _served_by(pg, s, skip) == "m2"
        assert [_served_by(pg, s, _label(ana, s, session, head, value, "triage", "m2"))
                for value in ("idiom", "literal", None, "idiom")] == ["m2", None, None, None]


def test_an_undone_label_served_again_keeps_its_arm(team):
    pg, _url, s = team
    with pg.connect("vana") as ana:
        session, head, first = _m2_head_labelled(pg, s, ana, "literal")
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
    order = _start_sample(pg, url, s)
    with pg.connect("vana") as ana:
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
    assert len(named) > 50   # enough decisions naming an arm for the check to mean something
    assert [(label, arm, stored[label]) for label, arm in named if stored[label] != arm] == []


def _start_sample(pg, url, s: str) -> list[int]:
    lead = open_project(url("vlead"))
    start_certification(lead)
    lead.close()
    with pg.connect() as conn:
        return np.frombuffer(one(conn, f"SELECT sample_order FROM {s}.certifications "
                                       "WHERE ended_at IS NULL"), dtype="<i8").tolist()


def test_a_sample_item_held_locked_does_not_get_the_others_refused(team):
    """She holds the next certification item locked in an open transaction (a claim never
    committed, so no lease anyone sees): the other desks serve past it and their
    certification labels are taken, as for another annotator's lease."""
    pg, url, s = team
    order = _start_sample(pg, url, s)
    with _held_by_vana(pg, s, order[0]):
        desk = open_project(url("vben"))
        session = desk.start_session("vben")
        item = desk.next_candidate(session)
        assert (item.candidate_id, item.kind) == (order[1], "certify"), order[:4]
        desk.record_label(session, item.candidate_id, "literal")
        desk.close()


@contextlib.contextmanager
def _held_by_vana(pg, s: str, candidate: int) -> Iterator[None]:
    """``vana`` claims ``candidate`` in a transaction she keeps open (her idle timeout
    off), for as long as the block runs."""
    with pg.connect("vana") as ana:
        held = desk_session(ana, s)
    holder = pg.connect("vana", autocommit=False)
    try:
        holder.execute("SET idle_in_transaction_session_timeout = 0")
        assert claim(holder, s, held, candidate)
        yield
    finally:
        holder.close()


def test_her_own_locked_sample_item_does_not_move_her_on(team):
    """The same lock held by herself (a positive she read, parked in an open transaction
    of hers) is hers, like her own desks' leases: she labels nothing after it."""
    pg, url, s = team
    order = _start_sample(pg, url, s)
    with _held_by_vana(pg, s, order[0]), pg.connect("vana") as ana:
        going_on = desk_session(ana, s)
        assert claim(ana, s, going_on, order[1])
        with pytest.raises(psycopg.Error, match="not the next item"):
            _label(ana, s, going_on, order[1], "literal", "certify", None)


def _audit_order(pg, s: str) -> list[int]:
    with pg.connect() as conn:
        ids = one(conn, f"SELECT ids FROM {s}.audit_order WHERE id = 1")
    return [c for c in np.frombuffer(ids, dtype=">i8").tolist() if c not in _labelled(pg, s)]


def _labelled(pg, s: str) -> set[int]:
    with pg.connect() as conn:
        return {r[0] for r in conn.execute(f"SELECT candidate_id FROM {s}.labels")}


def test_an_audit_item_held_locked_does_not_get_the_others_refused(team):
    pg, _url, s = team
    due = _audit_order(pg, s)
    with _held_by_vana(pg, s, due[0]), pg.connect("vben") as ben:
        session = desk_session(ben, s)
        assert claim(ben, s, session, due[1])
        assert _label(ben, s, session, due[1], "literal", "audit", None) > 0


def test_who_holds_which_lock_is_hidden_once_the_administrator_ran_what_init_said(
        team, capsys):
    """``pg_locks`` with ``pg_stat_activity`` gives the moment of every label each named
    annotator writes (her backend's lock on ``labels``): ``server init`` says what the
    administrator must revoke; once revoked, the annotators read neither, and the team
    (whose server-side checks read them as the owner) labels on."""
    from triage.cli.program import main

    pg, url, s = team
    assert main(["server", "init", url(), "--lead", "vlead", "--annotator", "vana",
                 "--annotator", "vben"]) == 0
    printed = [line.strip() for line in capsys.readouterr().err.splitlines()
               if "pg_lock" in line]
    assert len(printed) == 4, printed
    try:
        for statement in printed:
            pg.psql(statement)
        with pg.connect("vana") as ana:
            for query in ("SELECT count(*) FROM pg_locks", "SELECT count(*) FROM pg_lock_status()"):
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    ana.execute(query)
        test_a_sample_item_held_locked_does_not_get_the_others_refused(team)
    finally:
        pg.psql("GRANT SELECT ON pg_catalog.pg_locks TO PUBLIC; "
                "GRANT EXECUTE ON FUNCTION pg_catalog.pg_lock_status() TO PUBLIC")


def test_an_owner_who_is_no_superuser_still_reads_the_locks_after_the_revoke(pg, capsys):
    """The owner's server-side checks read ``pg_locks``: what init prints gives it back to
    her whole (the view and the function behind it), and to no annotator."""
    from triage.cli.program import main

    pg.role("vcat")
    pg.psql("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'vowner') "
            "THEN CREATE ROLE vowner LOGIN CREATEROLE; END IF; END $$; "
            "GRANT CREATE ON DATABASE postgres TO vowner;")
    assert main(["server", "init", pg.url("locks_owner", user="vowner"),
                 "--annotator", "vcat"]) == 0
    printed = [line.strip() for line in capsys.readouterr().err.splitlines()
               if "pg_lock" in line]
    try:
        for statement in printed:
            pg.psql(statement)
        with pg.connect("vowner") as owner:
            assert owner.execute("SELECT count(*) FROM pg_locks").fetchone()[0] > 0
        with pg.connect("vcat") as cat, pytest.raises(psycopg.errors.InsufficientPrivilege):
            cat.execute("SELECT count(*) FROM pg_locks")
    finally:
        pg.psql("GRANT SELECT ON pg_catalog.pg_locks TO PUBLIC; "
                "GRANT EXECUTE ON FUNCTION pg_catalog.pg_lock_status() TO PUBLIC")
