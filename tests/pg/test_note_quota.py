"""The note quota counts the notes an annotator has now, however they changed.

The server keeps each annotator's note characters in a table its triggers maintain (so the
pace check does not sum her notes at every label): a shortened note frees room, so does a
note the lead deletes, another annotator's notes do not count, and ``server init`` counts
them afresh.
"""

from __future__ import annotations

import itertools

import psycopg
import pytest

from tests.pg.team_setup import attacked_team, claim, desk_session, one
from triage.cli.program import main
from triage.store.pg.judge import NOTE_QUOTA_KEY

_uids = itertools.count(1)


@pytest.fixture
def team(pg, pg_url, project_name, tmp_path, monkeypatch):
    """Lead ``qlead``, annotators ``qana`` and ``qben`` (who labelled 5); a quota of 100."""
    pg, url, s = attacked_team(pg, pg_url, project_name, tmp_path, monkeypatch, prefix="q",
                               n=60, labelled=5)
    with pg.connect() as admin:
        admin.execute(f"INSERT INTO {s}.project VALUES (%s, '100')", [NOTE_QUOTA_KEY])
    return pg, url, s


def _noted(conn, s: str, session: int, candidate: int, note: str) -> int:
    assert claim(conn, s, session, candidate)
    return one(conn, f"SELECT {s}.add_label(%s, %s, %s, 'literal', 'triage', 1, %s, NULL)",
               [f"u-quota-{next(_uids):06d}", candidate, session, note])


def _free(pg, s: str) -> list[int]:
    with pg.connect() as conn:
        return [r[0] for r in conn.execute(
            f"SELECT id FROM {s}.candidates WHERE id NOT IN (SELECT candidate_id FROM "
            f"{s}.labels WHERE undone_at IS NULL) ORDER BY id")]


def test_the_quota_follows_edits_deletions_and_a_recount(team):
    pg, url, s = team
    with pg.connect("qben") as ben:
        _noted(ben, s, desk_session(ben, s), _free(pg, s)[0], "b" * 90)   # hers alone count
    with pg.connect("qana") as ana:
        session = desk_session(ana, s)
        first = _noted(ana, s, session, _free(pg, s)[0], "a" * 80)
        with pytest.raises(psycopg.Error, match="quota"):
            _noted(ana, s, session, _free(pg, s)[0], "c" * 30)
        ana.execute(f"SELECT {s}.set_note(%s, %s)", [first, "a" * 10])   # 10 used
        _noted(ana, s, session, _free(pg, s)[0], "c" * 30)               # 40 used
        with pg.connect() as admin:
            admin.execute(f"DELETE FROM {s}.labels WHERE id = %s", [first])   # 30 used
        _noted(ana, s, session, _free(pg, s)[0], "d" * 60)               # 90 used
        with pg.connect() as admin:   # a project whose counts were lost: init counts again
            admin.execute(f"DELETE FROM {s}.note_chars")
        assert main(["server", "init", url(), "--lead", "qlead", "--annotator", "qana",
                     "--annotator", "qben"]) == 0
        with pytest.raises(psycopg.Error, match="quota"):
            _noted(ana, s, session, _free(pg, s)[0], "e" * 20)
        _noted(ana, s, session, _free(pg, s)[0], "e" * 10)               # 100: at the quota
