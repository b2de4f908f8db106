"""A second hostile review: what the judge of what counts still took on trust.

``rana`` (the attacker, her own login role at a SQL prompt) and ``rben`` (who labelled
10) on a 60-candidate project. Each attack below was accepted before the server closed
it: a triage label that takes a positive out of a running certification sample (or a
skip changed into a decision that does), one person's time paid once per open session, and floods of sessions and note edits that every
replica must pull.
"""

from __future__ import annotations

import numpy as np
import psycopg
import pytest

from tests.pg.team_setup import add_label, attacked_team
from tests.pg.team_setup import claim as _claim
from tests.pg.team_setup import desk_session as _session
from tests.pg.team_setup import one as _one
from triage.project import open_project
from triage.project.certify import start_certification
from triage.store.pg.judge import LABEL_RATE_KEY


@pytest.fixture
def team(pg, pg_url, project_name, tmp_path, monkeypatch):
    """Lead ``rlead``, annotators ``rana`` (the attacker) and ``rben`` (who labelled 10)."""
    return attacked_team(pg, pg_url, project_name, tmp_path, monkeypatch, prefix="r",
                         n=60, labelled=10)


def _label(conn, s: str, session: int, candidate: int, value: str | None = "literal",
           kind: str = "triage", seconds: float = 1.0) -> int:
    return add_label(conn, s, session, candidate, value, kind, seconds, uid_prefix="u-review")


def _rows(pg, sql: str) -> list[tuple]:
    with pg.connect() as conn:
        return conn.execute(sql).fetchall()


def _sample_order(url, ana, s: str) -> list[int]:
    """The lead starts a certification sample; its order as the annotator reads it."""
    lead = open_project(url("rlead"))
    start_certification(lead)
    lead.close()
    return np.frombuffer(_one(ana, f"SELECT sample_order FROM {s}.certification_feed() "
                                   "WHERE ended_at IS NULL"), dtype="<i8").tolist()


def _until_refused(attempt, tries: int = 200) -> tuple[int, Exception | None]:
    """How many of ``tries`` calls of ``attempt(i)`` succeed before the server refuses one,
    and that refusal (None if none was refused)."""
    for i in range(tries):
        try:
            attempt(i)
        except psycopg.Error as error:
            return i, error
    return tries, None


def _unlabelled(pg, s: str) -> list[int]:
    return [r[0] for r in _rows(pg, f"SELECT id FROM {s}.candidates WHERE id NOT IN "
                                    f"(SELECT candidate_id FROM {s}.labels) ORDER BY id")]


def test_a_triage_label_cannot_take_an_item_out_of_the_certification_sample(team):
    pg, url, s = team
    with pg.connect("rana") as ana:
        order = _sample_order(url, ana, s)
        session = _session(ana, s)
        # A positive she read far down the sample, decided as triage: it would leave the
        # sample (certify labels skip decided items) while the remainder keeps it.
        for kind in ("triage", "audit"):
            assert _claim(ana, s, session, order[-1])
            with pytest.raises(psycopg.Error, match="certification sample"):
                _label(ana, s, session, order[-1], "idiom", kind)
        # Its turn in sample order, as a certification label: counts.
        assert _claim(ana, s, session, order[0])
        _label(ana, s, session, order[0], "idiom", "certify")
    assert _rows(pg, f"SELECT candidate_id, kind FROM {s}.labels l JOIN {s}.annotators a "
                     "ON a.id = l.annotator_id WHERE a.name = 'rana'") == [(order[0], "certify")]


def test_a_skip_is_no_pass_to_take_an_item_out_of_the_sample_later(team):
    pg, url, s = team
    skipped, other = _unlabelled(pg, s)[:2]
    with pg.connect("rana") as ana:
        session = _session(ana, s)
        assert _claim(ana, s, session, skipped)
        _label(ana, s, session, skipped, None)              # a skip, before the sample
        # A skip she was served, with nobody's decision on it, she may still decide.
        assert _claim(ana, s, session, other)
        _label(ana, s, session, other, None)
        _label(ana, s, session, other, "idiom")
        lead = open_project(url("rlead"))
        start_certification(lead)
        lead.close()
        # Skips count as unlabelled: the skipped item is in the sample now. Changing the
        # skip into a decision would take it out of the sample, where she read a positive.
        with pytest.raises(psycopg.Error, match="certification sample"):
            _label(ana, s, session, skipped, "idiom")
    assert _rows(pg, f"SELECT count(*) FROM {s}.labels WHERE candidate_id = {skipped} "
                     "AND value IS NOT NULL") == [(0,)]


def test_one_persons_time_is_paid_once_whatever_her_open_sessions(team):
    pg, _url, s = team
    free = _unlabelled(pg, s)[:3]
    with pg.connect("rana") as ana:
        sessions = [_session(ana, s) for _ in free]
        for session, candidate in zip(sessions, free):
            assert _claim(ana, s, session, candidate)
        with pg.connect() as admin:   # as if all three were served ten minutes ago
            admin.execute(f"UPDATE {s}.claims SET served_at = served_at - 600 "
                          f"WHERE candidate_id IN ({','.join(map(str, free))})")
        paid = [_one(ana, f"SELECT seconds FROM {s}.labels WHERE id = %s",
                     [_label(ana, s, session, candidate, seconds=600.0)])
                for session, candidate in zip(sessions, free)]
    # Ten minutes of her time, not thirty: paid time does not overlap her last label.
    assert 590 <= sum(paid) <= 610, paid


def test_sessions_cannot_be_started_in_a_flood(team):
    pg, _url, s = team
    with pg.connect() as admin:
        admin.execute(f"UPDATE {s}.project SET value = '5' WHERE key = %s", [LABEL_RATE_KEY])
    with pg.connect("rana") as ana:
        started, refusal = _until_refused(lambda _i: _session(ana, s))
    assert refusal is not None and "sessions" in str(refusal), started
    assert started <= 20


def test_note_edits_keep_a_human_pace(team):
    pg, _url, s = team
    candidate = _unlabelled(pg, s)[0]
    with pg.connect("rana") as ana:
        session = _session(ana, s)
        assert _claim(ana, s, session, candidate)
        label = _label(ana, s, session, candidate)
        with pg.connect() as admin:
            admin.execute(f"UPDATE {s}.project SET value = '2' WHERE key = %s",
                          [LABEL_RATE_KEY])
        edits, refusal = _until_refused(lambda i: ana.execute(
            f"SELECT {s}.set_note(%s, %s)", [label, "ab"[i % 2] * 9_000]))
    assert refusal is not None and "a second" in str(refusal), edits
    assert edits <= 10


def test_her_own_desks_leases_do_not_move_her_on_in_the_sample(team):
    pg, url, s = team
    with pg.connect("rana") as ana:
        order = _sample_order(url, ana, s)
        first, second = _session(ana, s), _session(ana, s)
        # The first item (a positive she read) parked on one of her desks, to label the
        # negatives after it first: the sequential test would stop before it is counted.
        assert _claim(ana, s, first, order[0])
        assert _claim(ana, s, second, order[1])
        with pytest.raises(psycopg.Error, match="not the next item"):
            _label(ana, s, second, order[1], "literal", "certify")
        ana.execute(f"SELECT {s}.release(%s)", [first])
    # Another person's desk holding the first item does let her go on (two honest desks).
    with pg.connect("rben") as ben, pg.connect("rana") as ana:
        assert _claim(ben, s, _session(ben, s), order[0])
        assert _claim(ana, s, second, order[1])
        _label(ana, s, second, order[1], "literal", "certify")


def test_re_tests_keep_the_projects_rate(team):
    """Re-testing every one of her decisions would double her paid items: the rate holds."""
    pg, _url, s = team
    free = _unlabelled(pg, s)[:2]
    with pg.connect("rana") as ana:
        first = _session(ana, s)
        for candidate in free:
            assert _claim(ana, s, first, candidate)
            _label(ana, s, first, candidate, "idiom")
        second = _session(ana, s)
        assert _claim(ana, s, second, free[0])
        with pytest.raises(psycopg.Error, match="no re-test"):   # the project's rate is 0
            _label(ana, s, second, free[0], "idiom", "retest")
        with pg.connect() as admin:
            admin.execute(f"UPDATE {s}.settings SET value = '0.5' WHERE key = 'retest_rate'")
        fresh = _unlabelled(pg, s)[0]
        assert _claim(ana, s, second, fresh)
        _label(ana, s, second, fresh, "idiom")
        assert _claim(ana, s, second, free[0])
        _label(ana, s, second, free[0], "literal", "retest")   # one in two labels: due
        assert _claim(ana, s, second, free[1])
        with pytest.raises(psycopg.Error, match="no re-test"):
            _label(ana, s, second, free[1], "idiom", "retest")


def test_others_leases_do_not_say_whose_desk_moves_on(team):
    pg, _url, s = team
    free = _unlabelled(pg, s)[:2]
    with pg.connect("rben") as ben, pg.connect("rana") as ana:
        theirs, mine = _session(ben, s), _session(ana, s)
        assert _claim(ben, s, theirs, free[0])
        assert _claim(ana, s, mine, free[1])
        seen = dict(ana.execute(f"SELECT candidate_id, session_id FROM {s}.live_leases()"))
    # Taken is all a desk needs to know of the others; her own lease stays hers.
    assert seen == {free[0]: 0, free[1]: mine}
