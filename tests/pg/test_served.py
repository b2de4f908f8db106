"""The team server judges what counts from its own state, and nobody can stall the team.

A hostile annotator (``sana``, her own login role at a SQL prompt) tries what a review of
the server found: certification labels on sample items she was never served, out of order and twice;
a bill inflated through ``seconds``; labels on candidates another desk holds, outside the
plan, on others' decisions; locks and transactions held to stall the other desks;
every connection the server gives her; floods of labels and notes. Honest desks still
label, and what they were served counts.
"""

from __future__ import annotations

import itertools

import numpy as np
import psycopg
import pytest

from tests.pg.team_setup import publish
from triage.base.audit import audit_order
from triage.base.errors import ServerUnavailable
from triage.cli.program import main
from triage.project import open_project
from triage.project.certify import start_certification
from triage.project.demo import simulate
from triage.store.pg.functions import lock_key
from triage.store.pg.judge import LABEL_RATE_KEY, NOTE_QUOTA_KEY
from triage.store.pg.schema import ANNOTATOR_CONNECTIONS

_uids = itertools.count(1)


@pytest.fixture
def team(pg, pg_url, project_name, tmp_path, monkeypatch):
    """Lead ``slead``, annotators ``sana`` (the attacker) and ``sben`` (who labelled 10)."""
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    path = publish(pg, pg_url(), tmp_path, n=120, annotators=("sana", "sben"),
                   leads=("slead",), overlap_rate=0.1, labels_per_overlap_item=2,
                   audit_rate=0.0, retest_rate=0.0)
    assert path.exists()
    ben = open_project(pg_url("sben"))
    simulate(ben, 10, "sben")
    ben.close()
    return pg, pg_url, f"triage_{project_name}", project_name


def _one(conn, sql, params=()):
    return conn.execute(sql, params).fetchone()[0]


def _session(conn, s: str) -> int:
    return _one(conn, f"SELECT {s}.start_session('desk', 'test')")


def _label(conn, s: str, session: int, candidate: int, kind: str = "triage",
           value: str | None = "literal", seconds: float = 1.0, note: str | None = None) -> int:
    return _one(conn, f"SELECT {s}.add_label(%s, %s, %s, %s, %s, %s, %s, NULL)",
                [f"u-served-{next(_uids):06d}", candidate, session, value, kind, seconds, note])


def _claim(conn, s: str, session: int, candidate: int) -> bool:
    return bool(_one(conn, f"SELECT {s}.claim(%s, %s)", [candidate, session]))


def _ids(pg, s: str, sql: str) -> list[int]:
    with pg.connect() as conn:
        return [r[0] for r in conn.execute(sql.format(s=s)).fetchall()]


def _decided_by(pg, s: str, name: str) -> list[int]:
    return _ids(pg, s, "SELECT l.candidate_id FROM {s}.labels l JOIN {s}.annotators a ON "
                       f"a.id = l.annotator_id WHERE a.name = '{name}' AND l.undone_at IS NULL "
                       "ORDER BY l.id")


def _unlabelled(pg, s: str) -> list[int]:
    return _ids(pg, s, "SELECT id FROM {s}.candidates WHERE id NOT IN "
                       "(SELECT candidate_id FROM {s}.labels) ORDER BY id")


def test_a_certificate_cannot_be_forged(team):
    pg, url, s, _name = team
    lead = open_project(url("slead"))
    start_certification(lead)
    lead.close()
    with pg.connect("sana") as ana:
        order = np.frombuffer(_one(ana, f"SELECT sample_order FROM {s}.certification_feed() "
                                        "WHERE ended_at IS NULL"), dtype="<i8").tolist()
        session = _session(ana, s)
        # Never served, last first: refused.
        with pytest.raises(psycopg.Error, match="not served"):
            _label(ana, s, session, order[-1], "certify")
        # Served, but out of sample order: refused.
        assert _claim(ana, s, session, order[-1])
        with pytest.raises(psycopg.Error, match="not the next item"):
            _label(ana, s, session, order[-1], "certify")
        # Outside the sample, on another annotator's decision: refused.
        theirs = _decided_by(pg, s, "sben")[0]
        assert _claim(ana, s, session, theirs)
        with pytest.raises(psycopg.Error, match="not the next item"):
            _label(ana, s, session, theirs, "certify")
        # The first item, served to her session: counts, once.
        assert _claim(ana, s, session, order[0])
        _label(ana, s, session, order[0], "certify")
        with pytest.raises(psycopg.Error, match="certification label"):
            _label(ana, s, session, order[0], "certify", value="idiom")
    # The honest desk is served the next item and its label counts.
    desk = open_project(url("sben"))
    ben = desk.start_session("sben")
    item = desk.next_candidate(ben)
    assert item is not None and item.kind == "certify" and item.candidate_id == order[1]
    desk.record_label(ben, item.candidate_id, "idiom")
    desk.close()
    with pg.connect() as conn:
        rows = conn.execute(f"SELECT candidate_id FROM {s}.labels WHERE kind = 'certify' "
                            "AND undone_at IS NULL ORDER BY id").fetchall()
    assert [r[0] for r in rows] == order[:2]


def _lead_certification(url) -> tuple[dict, dict]:
    from triage.project.advice import advice_state
    from triage.views.rule_words import worded

    lead = open_project(url("slead"))
    try:
        state = advice_state(lead)
    finally:
        lead.close()
    data = worded(state.to_json())
    rule = next(r for r in data["reasons"] if r["rule"] == "certification")
    return state.certification or {}, rule


def test_positives_parked_on_leases_keep_the_certificate_waiting(team):
    """sana holds two sample items on leases of her desks while sben certifies past them:
    the lead's test counts only the decided prefix, so it says nothing is certified until
    she decides them (and then counts her skip as a positive)."""
    pg, url, s, _name = team
    lead = open_project(url("slead"))
    start_certification(lead)
    lead.close()
    with pg.connect("sana") as ana, pg.connect("sben") as ben:
        order = np.frombuffer(_one(ana, f"SELECT sample_order FROM {s}.certification_feed() "
                                        "WHERE ended_at IS NULL"), dtype="<i8").tolist()
        parked = [_session(ana, s), _session(ana, s)]
        for session, candidate in zip(parked, order[:2], strict=True):
            assert _claim(ana, s, session, candidate)
        # What sben skipped before the sample is in it (skips count as unlabelled), and
        # the server leaves those to someone else: the lead labels them.
        skipped = set(_ids(pg, s, "SELECT candidate_id FROM {s}.labels WHERE value IS NULL"))
        desk = _session(ben, s)
        with pg.connect("slead") as lead_conn:
            lead_desk = _session(lead_conn, s)
            for candidate in order[2:]:   # on another annotator's lease: he may go on
                conn, session = (lead_conn, lead_desk) if candidate in skipped else (ben, desk)
                assert _claim(conn, s, session, candidate)
                _label(conn, s, session, candidate, "certify", "literal")
        record, rule = _lead_certification(url)
        assert (record["labelled"], record["positives"]) == (0, 0)
        assert record["waiting"] == len(order) - 2
        assert rule["code"] == "under_way" and "Certified" not in rule["detail"]
        assert f"{len(order) - 2:,} decided further on wait" in rule["detail"]
        # Her turn comes: one positive, one skip (counted as a positive).
        _label(ana, s, parked[0], order[0], "certify", "idiom")
        _label(ana, s, parked[1], order[1], "certify", None)
    record, rule = _lead_certification(url)
    assert (record["labelled"], record["positives"]) == (len(order), 2)
    assert record["skipped_as_positive"] == 1 and record["waiting"] == 0
    assert "1 of them skipped or tied between annotators: counted as a positive" in rule[
        "detail"]


def test_paid_time_comes_from_the_servers_clock(team):
    pg, _url, s, _name = team
    with pg.connect("sana") as ana:
        session = _session(ana, s)
        paid = []
        for candidate in _unlabelled(pg, s)[:3]:
            assert _claim(ana, s, session, candidate)
            label = _label(ana, s, session, candidate, seconds=86400.0)
            paid.append(_one(ana, f"SELECT seconds FROM {s}.labels WHERE id = %s", [label]))
    # The time between serving and labelling: well under a minute here, not a day each.
    assert all(0 <= p < 60 for p in paid), paid


def _attacks(pg, s: str) -> dict[str, tuple[int, str, str]]:
    """(candidate, kind, what the refusal says) of each label the server never served."""
    theirs = _decided_by(pg, s, "sben")
    plan = set(_ids(pg, s, "SELECT candidate_id FROM {s}.plan WHERE kind = 'overlap'"))
    free = [c for c in _unlabelled(pg, s) if c not in plan]
    return {"held by another desk": (free[0], "triage", "not served"),
            "overlap outside the plan": (next(c for c in theirs if c not in plan), "overlap",
                                         "not an overlap item"),
            "retest of an unlabelled one": (free[1], "retest", "no re-test"),
            "triage on another's decision": (theirs[1], "triage", "decided by someone else"),
            "audit on another's decision": (theirs[2], "audit", "decided by someone else")}


@pytest.mark.parametrize("attack", ["held by another desk", "overlap outside the plan",
                                    "retest of an unlabelled one",
                                    "triage on another's decision",
                                    "audit on another's decision"])
def test_a_label_the_server_never_served_is_refused(team, attack):
    pg, _url, s, _name = team
    candidate, kind, refusal = _attacks(pg, s)[attack]
    with pg.connect("sben") as ben, pg.connect("sana") as ana:
        session = _session(ana, s)
        if attack == "held by another desk":
            assert _claim(ben, s, _session(ben, s), candidate)
            assert not _claim(ana, s, session, candidate)
        else:
            assert _claim(ana, s, session, candidate)
        before = _ids(pg, s, "SELECT id FROM {s}.labels ORDER BY id")
        with pytest.raises(psycopg.Error, match=refusal):
            _label(ana, s, session, candidate, kind)
    assert _ids(pg, s, "SELECT id FROM {s}.labels ORDER BY id") == before


def test_a_hand_picked_audit_is_refused_the_servers_next_one_counts(team):
    """An ``audit`` label counts only on the item of the server's audit order due next."""
    pg, _url, s, _name = team
    seed = int(_ids(pg, s, "SELECT value FROM {s}.settings WHERE key = 'seed'")[0])
    order = audit_order(np.asarray(_ids(pg, s, "SELECT id FROM {s}.candidates")), seed)
    open_ = set(_unlabelled(pg, s))
    due = next(int(c) for c in order if c in open_)
    picked = next(int(c) for c in order[::-1] if c in open_)   # undecided, far down the order
    with pg.connect("sana") as ana:
        session = _session(ana, s)
        assert _claim(ana, s, session, picked)
        before = _ids(pg, s, "SELECT id FROM {s}.labels ORDER BY id")
        with pytest.raises(psycopg.Error, match="not the next item of the audit sample"):
            _label(ana, s, session, picked, "audit")
        assert _ids(pg, s, "SELECT id FROM {s}.labels ORDER BY id") == before
        assert _claim(ana, s, session, due)
        _label(ana, s, session, due, "audit")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            ana.execute(f"SELECT count(*) FROM {s}.audit_order")   # nor can she read it
    assert _ids(pg, s, "SELECT candidate_id FROM {s}.labels WHERE kind = 'audit'") == [due]


def test_a_desks_audit_items_count(pg, pg_url, project_name, tmp_path, monkeypatch):
    """Audit items a desk serves (drawn by its own numpy) are the server's order: they count."""
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    publish(pg, pg_url(), tmp_path, n=60, annotators=("sana",), audit_rate=0.3,
            overlap_rate=0.0, retest_rate=0.0)
    desk = open_project(pg_url("sana"))
    simulate(desk, 12, "sana")
    desk.close()
    s = f"triage_{project_name}"
    audits = _ids(pg, s, "SELECT candidate_id FROM {s}.labels WHERE kind = 'audit' "
                         "AND undone_at IS NULL ORDER BY id")
    assert len(audits) >= 2
    assert len(_ids(pg, s, "SELECT id FROM {s}.labels WHERE undone_at IS NULL")) == 12


def test_the_server_keeps_the_audit_order_of_an_import_and_of_a_new_seed(pg, tmp_path,
                                                                          monkeypatch):
    from tests.helpers import pool_rows, write_pool

    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    url, s = pg.url("audited"), "triage_audited"
    assert main(["new", url, str(write_pool(tmp_path / "pool.csv", pool_rows(80))),
                 "--text", "text", "--key", "key", "--score", "m1=m1",
                 "--labels", "idiom:i,literal:l", "--positive", "idiom"]) == 0

    def stored() -> list[int]:
        blob = _ids(pg, s, "SELECT ids FROM {s}.audit_order")[0]
        return np.frombuffer(blob, dtype=">i8").tolist()

    ids = np.asarray(_ids(pg, s, "SELECT id FROM {s}.candidates"))
    lead = open_project(url)
    assert stored() == audit_order(ids, lead.settings.seed).tolist()
    lead.update_settings(seed=lead.settings.seed + 1)
    assert stored() == audit_order(ids, lead.settings.seed).tolist()
    lead.close()


def test_one_decision_per_annotator_and_candidate(team):
    pg, _url, s, _name = team
    candidate = _unlabelled(pg, s)[0]
    with pg.connect("sana") as ana:
        session = _session(ana, s)
        assert _claim(ana, s, session, candidate)
        _label(ana, s, session, candidate, "triage", value="idiom")
        # A second label under another kind is a change of her own decision: it keeps the
        # decision's kind (no overlap or audit label appears) and is not paid.
        for kind in ("overlap", "audit", "triage"):
            changed = _label(ana, s, session, candidate, kind, value="literal", seconds=500.0)
            assert _one(ana, f"SELECT seconds FROM {s}.labels WHERE id = %s", [changed]) == 0
    kinds = _ids(pg, s, "SELECT DISTINCT kind FROM {s}.labels WHERE candidate_id = "
                        f"{candidate}")
    assert kinds == ["triage"]


def test_one_claim_per_session_even_inside_a_transaction(team):
    pg, _url, s, _name = team
    with pg.connect("sana", autocommit=False) as ana:
        session = _session(ana, s)
        ana.commit()
        with pytest.raises(psycopg.Error, match="one claim per session"):
            ana.execute(f"SELECT {s}.claim(id, %s) FROM {s}.candidates", [session]).fetchall()
        ana.rollback()
    _honest_desk_labels(team)


def _honest_desk_labels(team) -> None:
    """Another annotator's desk is served a candidate and its label is acknowledged."""
    pg, url, s, _name = team
    desk = open_project(url("sben"))
    try:
        session = desk.start_session("sben")
        item = desk.next_candidate(session)
        assert item is not None
        desk.record_label(session, item.candidate_id, "literal")
    finally:
        desk.close()


def _bounded(pg, role: str):
    """A connection as ``role`` whose statements give up after 20 s (never a hang)."""
    conn = pg.connect(role)
    conn.execute("SET statement_timeout = '20s'")
    return conn


def test_an_advisory_lock_on_the_projects_key_stalls_nobody(team):
    pg, _url, s, name = team
    with pg.connect("sana", autocommit=False) as ana:
        ana.execute("SELECT pg_advisory_lock(%s)", [lock_key(name)])
        ana.execute("SET idle_in_transaction_session_timeout = 0")
        with _bounded(pg, "sben") as ben:
            session = _session(ben, s)
            candidate = _unlabelled(pg, s)[0]
            assert _claim(ben, s, session, candidate)
            assert _label(ben, s, session, candidate) > 0


def test_a_transaction_held_open_stalls_nobody(team):
    pg, _url, s, _name = team
    free = _unlabelled(pg, s)
    ana = pg.connect("sana", autocommit=False)
    ana.execute("SET idle_in_transaction_session_timeout = 0")   # she turns the role's off
    session = _session(ana, s)
    ana.commit()
    assert _claim(ana, s, session, free[0])
    _label(ana, s, session, free[0])    # holds the project's write lock, uncommitted
    with _bounded(pg, "sben") as ben:
        mine = _session(ben, s)
        assert _claim(ben, s, mine, free[1])
        assert _label(ben, s, mine, free[1]) > 0
    with pytest.raises(psycopg.OperationalError):   # her connection was ended
        ana.commit()
    ana.close()
    assert free[0] not in _decided_by(pg, s, "sana")


def test_one_annotator_cannot_take_every_connection(team, capsys):
    pg, url, _s, _name = team
    held, refused = [], None
    try:
        for _ in range(ANNOTATOR_CONNECTIONS + 1):
            try:
                held.append(pg.connect("sana"))
            except psycopg.OperationalError as error:
                refused = error
                break
        assert refused is not None and "too many connections" in str(refused)
        assert main(["status", url("slead")]) == 0
    finally:
        for conn in held:
            conn.close()


def test_labels_faster_than_a_person_wait_and_notes_have_a_quota(team):
    pg, _url, s, _name = team
    with pg.connect() as admin:
        admin.execute(f"UPDATE {s}.project SET value = '0.5' WHERE key = %s", [LABEL_RATE_KEY])
        admin.execute(f"INSERT INTO {s}.project VALUES (%s, '100')", [NOTE_QUOTA_KEY])
    free = _unlabelled(pg, s)
    with pg.connect("sana") as ana:
        session = _session(ana, s)
        assert _claim(ana, s, session, free[0])
        _label(ana, s, session, free[0], note="n" * 80)
        assert _claim(ana, s, session, free[1])
        with pytest.raises(psycopg.errors.ConfigurationLimitExceeded, match="a second"):
            _label(ana, s, session, free[1])
        with pg.connect() as admin:
            admin.execute(f"UPDATE {s}.project SET value = '1000' WHERE key = %s",
                          [LABEL_RATE_KEY])
        with pytest.raises(psycopg.Error, match="quota"):
            _label(ana, s, session, free[1], note="m" * 80)
        _label(ana, s, session, free[1], note="m" * 10)


@pytest.mark.slow   # the desk waits out the server's bound on a lock wait
def test_a_desk_facing_a_held_lock_says_so_and_retries(team):
    """The desk's sentence while the write lock is held, and the label once it is free."""
    pg, url, s, _name = team
    desk = open_project(url("sben"))
    session = desk.start_session("sben")
    item = desk.next_candidate(session)
    holder = pg.connect(autocommit=False)   # the lead's long write: never ended for her
    holder.execute(f"SELECT 1 FROM {s}.serial FOR UPDATE")
    try:
        with pytest.raises(ServerUnavailable, match="wait"):
            desk.record_label(session, item.candidate_id, "idiom")
    finally:
        holder.rollback()
        holder.close()
    desk.record_label(session, item.candidate_id, "idiom")
    desk.close()


def test_blind_means_blind(team):
    pg, url, s, _name = team
    with pg.connect() as admin:
        admin.execute(f"UPDATE {s}.candidates SET meta = "
                      """'{"m2_association": 0.93, "source": "news"}'""")
        admin.execute(f"INSERT INTO {s}.project VALUES ('server_public_fields', '[\"source\"]'),"
                      " ('source_file', '/home/lena/secret/pool.csv') "
                      "ON CONFLICT (key) DO UPDATE SET value = excluded.value")
        ben_uid = _one(admin, f"SELECT l.uid FROM {s}.labels l JOIN {s}.annotators a "
                              "ON a.id = l.annotator_id WHERE a.name = 'sben' LIMIT 1")
    with pg.connect("sana") as ana:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            ana.execute(f"SELECT meta FROM {s}.candidates")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            ana.execute(f"SELECT value FROM {s}.project")
        metas = {m for (m,) in ana.execute(f"SELECT meta FROM {s}.candidate_feed(0)")}
        facts = dict(ana.execute(f"SELECT key, value FROM {s}.project_feed()").fetchall())
        feed = ana.execute(f"SELECT f.uid, f.created_at FROM {s}.label_feed(0) f "
                           f"JOIN {s}.annotators a ON a.id = f.annotator_id "
                           "WHERE a.name = 'sben'").fetchall()
        session = _session(ana, s)
        free = _unlabelled(pg, s)[0]
        assert _claim(ana, s, session, free)
        with pytest.raises(psycopg.Error) as refusal:
            _one(ana, f"SELECT {s}.add_label(%s, %s, %s, 'idiom', 'triage', 1, NULL, NULL)",
                 [ben_uid, free, session])
    assert metas == {'{"source": "news"}'}
    assert "source_file" not in facts and not any("/home/lena" in v for v in facts.values())
    assert feed and all(uid != ben_uid and at.endswith(":00:00+00:00") for uid, at in feed)
    assert "taken" not in str(refusal.value)
    # The annotator's desk opens on what it may read, and shows the public column only.
    desk = open_project(url("sana"))
    session = desk.start_session("sana")
    item = desk.next_candidate(session)
    assert item is not None and item.meta == {"source": "news"}
    desk.close()


def test_the_desks_own_flow_still_counts(team):
    """Served, labelled, undone, served again, changed from the history: all the desk's."""
    from triage.project.history import change_decision, recent_decisions

    pg, url, s, _name = team
    desk = open_project(url("sana"))
    session = desk.start_session("sana")
    first = desk.next_candidate(session)
    desk.record_label(session, first.candidate_id, "idiom", seconds=2.0)
    assert desk.undo(session) == first.candidate_id
    again = desk.next_candidate(session)
    assert again.candidate_id == first.candidate_id
    desk.record_label(session, again.candidate_id, "literal", seconds=2.0)
    nxt = desk.next_candidate(session)
    desk.record_label(session, nxt.candidate_id, "idiom", seconds=2.0)
    decision = next(d for d in recent_decisions(desk, session)
                    if d.candidate_id == first.candidate_id)
    change_decision(desk, session, decision, "idiom")
    desk.close()
    with pg.connect() as conn:
        rows = conn.execute(f"SELECT candidate_id, value, kind, undone_at IS NULL, seconds "
                            f"FROM {s}.labels l JOIN {s}.annotators a ON a.id = l.annotator_id "
                            "WHERE a.name = 'sana' ORDER BY l.id").fetchall()
    active = [(c, v) for c, v, _k, live, _sec in rows if live]
    assert active == [(first.candidate_id, "literal"), (nxt.candidate_id, "idiom"),
                      (first.candidate_id, "idiom")]
    assert all(0 <= sec <= 2.0 for *_rest, sec in rows)


def test_init_limits_annotators_or_says_what_the_administrator_must_run(pg, capsys):
    for role in ("scat", "sdan"):
        pg.role(role)
    pg.psql("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'sowner') "
            "THEN CREATE ROLE sowner LOGIN CREATEROLE; END IF; END $$; "
            "GRANT CREATE ON DATABASE postgres TO sowner;")
    assert main(["server", "init", pg.url("limits"), "--annotator", "scat"]) == 0
    with pg.connect() as conn:
        limit, config = conn.execute("SELECT rolconnlimit, rolconfig FROM pg_roles "
                                     "WHERE rolname = 'scat'").fetchone()
    assert limit == ANNOTATOR_CONNECTIONS
    assert {"lock_timeout=5s", "idle_in_transaction_session_timeout=5s"} <= set(config)
    capsys.readouterr()
    # An owner who may not alter the login roles is told what the administrator must run.
    assert main(["server", "init", pg.url("limits2", user="sowner"), "--annotator", "sdan"]) == 0
    err = capsys.readouterr().err
    assert f'ALTER ROLE "sdan" CONNECTION LIMIT {ANNOTATOR_CONNECTIONS}' in err
    assert "idle_in_transaction_session_timeout" in err
