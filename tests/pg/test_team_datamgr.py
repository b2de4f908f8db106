"""The data manager on a team project: it reads the local replica, writes through the server."""

from __future__ import annotations

import pytest

from tests.pg.team_setup import publish
from triage.base.errors import TriageError
from triage.project import open_project
from triage.project.datamgr import (
    Query,
    Viewer,
    build_search_index,
    load_catalog,
    open_reader,
    run_query,
)
from triage.project.datamgr_actions import relabel
from triage.store import search

pytestmark = pytest.mark.slow


def test_search_on_the_replica_and_a_relabel_the_server_judges(pg, pg_url, project_name,
                                                                tmp_path, monkeypatch):
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    publish(pg, pg_url(), tmp_path, n=40, annotators=("dana",), overlap_rate=0.0,
            audit_rate=0.0, retest_rate=0.0)
    dana = open_project(pg_url("dana"))
    try:
        session = dana.start_session("dana")
        item = dana.next_candidate(session)
        dana.record_label(session, item.candidate_id, "idiom")
        db = open_reader(dana.path)                       # the replica, never the server
        assert build_search_index(db)
        ranking = dana.state.ranking()
        cat = load_catalog(db, ranking.order, ranking.scores, ranking.ranks,
                           ranking.model.name)
        word = item.text.split()[-1]
        found = run_query(db, cat, Query(text=f"{word} phrase", sort="key"),
                          Viewer("dana", lead=False))
        assert item.candidate_id in found.tolist()
        relabel(dana, session, item.candidate_id, "literal")   # her own decision: a change
        values = [(e.value, e.undone_at) for e in search.label_events(dana.db, item.candidate_id)]
        assert values == [("idiom", None), ("literal", None)]
        never = int(ranking.order[-1])                  # never served to her
        with pytest.raises(TriageError, match="was not served to session"):
            relabel(dana, session, never, "idiom")
    finally:
        dana.close()
