"""The data manager's core: the full-text index, filters, sorts, blind rules and actions."""

from __future__ import annotations

import csv
import json

import pytest

from tests.helpers import make_project
from triage import store
from triage.base.errors import TriageError
from triage.project.adjudication import candidate_id_of
from triage.project.datamgr import (
    Query,
    Viewer,
    build_search_index,
    load_catalog,
    open_reader,
    run_query,
)
from triage.project.datamgr_actions import export_selection, record_of, relabel, rule
from triage.store import search
from triage.views.data_manager import columns, page, record_view

LEAD = Viewer("lead", lead=True)
ADA = Viewer("ada", lead=False)


@pytest.fixture
def project(tmp_path):
    p = make_project(tmp_path, n=30)
    ada, bob = p.start_session("ada"), p.start_session("bob")
    p.record_label(ada, candidate_id_of(p, "c0004"), "idiom", note="a fixed phrase")
    p.record_label(bob, candidate_id_of(p, "c0004"), "literal")
    p.record_label(ada, candidate_id_of(p, "c0007"), "literal")
    p.record_label(bob, candidate_id_of(p, "c0009"), "idiom", note="bob thinks so")
    yield p
    p.close()


def _catalog(project):
    db = open_reader(project.path)
    build_search_index(db)
    r = project.state.ranking()
    return db, load_catalog(db, r.order, r.scores, r.ranks, r.model.name)


def _keys(project, ids):
    return [k for k, *_ in (store.candidate_rows(project.db, [int(i)])[int(i)] for i in ids)]


def test_the_index_is_built_on_first_use_and_finds_a_word(project):
    db = open_reader(project.path)
    assert not search.index_ready(db)
    build_search_index(db)
    assert search.index_ready(db)
    assert _keys(project, search.search_ids(db, "number 17")) == ["c0017"]
    assert len(search.search_ids(db, "phrase numb")) == 30   # the last word is a prefix
    assert len(search.search_ids(db, "number 2")) == 11      # 2 and 20..29
    assert search.build_index(db) == 0            # up to date: nothing added


def test_filters_by_label_annotator_note_and_disagreement(project):
    db, cat = _catalog(project)

    def keys(**q):
        return _keys(project, run_query(db, cat, Query(**q), LEAD))

    assert keys(annotator="bob") == ["c0004", "c0009"]
    assert keys(disagreement=True) == ["c0004"]
    assert keys(adjudication="awaiting a ruling") == ["c0004"]
    assert keys(note="fixed") == ["c0004"]
    assert keys(label="literal") == ["c0007"]
    assert keys(text="phrase number 9") == ["c0009"]
    assert keys(decile=1) == ["c0000", "c0001", "c0002"]
    assert len(keys(label="unlabeled")) == 27
    assert keys(sort="key", descending=True)[:2] == ["c0029", "c0028"]
    assert keys(sort="score")[:2] == ["c0000", "c0001"]          # m1: highest first
    assert keys(sort="score", descending=True)[:2] == ["c0029", "c0028"]
    assert keys(text="number", sort="key", descending=True)[:2] == ["c0029", "c0028"]


def test_an_annotator_sees_no_scores_and_no_other_annotators_values(project):
    db, cat = _catalog(project)
    ids = run_query(db, cat, Query(annotator="bob", sort="rank"), ADA)
    assert "Score" not in columns(ADA) and "Rank" not in columns(ADA)
    rows = page(project, cat, ids[:10], ADA)
    assert ("c0004", "phrase number 4", "idiom", "a fixed phrase") in rows
    assert all("literal" not in r[2] for r in rows if r[0] == "c0004")   # bob's literal
    assert not any("bob" in " ".join(r) for r in rows)
    # Ada's own labels only: bob's idiom on c0009 is not hers.
    mine = run_query(db, cat, Query(label="idiom"), ADA)
    assert _keys(project, mine) == ["c0004"]
    view = record_view(record_of(project, candidate_id_of(project, "c0004"), ADA), ADA, None)
    assert view.labels == [line for line in view.labels if line.startswith("ada:")]
    assert not any("score" in f or "m1" in f or "rank" in f for f in view.facts)
    lead = record_view(record_of(project, candidate_id_of(project, "c0004"), LEAD), LEAD, None)
    assert any(f.startswith("score m1:") for f in lead.facts)
    assert any(line.startswith("bob: literal") for line in lead.labels)


def test_relabel_is_a_change_and_a_ruling_settles_the_tie(project):
    ada = project.start_session("ada")
    cid = candidate_id_of(project, "c0007")
    relabel(project, ada, cid, "idiom")
    events = search.label_events(project.db, cid)
    assert [(e.value, e.undone_at is None) for e in events] == [("literal", True), ("idiom", True)]
    with pytest.raises(TriageError, match="already idiom"):
        relabel(project, ada, cid, "idiom")
    lead = project.start_session("lead")
    with pytest.raises(TriageError, match="only the lead"):
        rule(project, lead, ADA, candidate_id_of(project, "c0004"), "idiom")
    assert rule(project, lead, LEAD, candidate_id_of(project, "c0004"), "idiom") == "idiom"
    record = record_of(project, candidate_id_of(project, "c0004"), LEAD)
    assert record.status == "ruled"


def test_a_selection_exports_with_the_cli_columns(project, tmp_path):
    ids = [candidate_id_of(project, "c0004"), candidate_id_of(project, "c0009")]
    out = tmp_path / "chosen.csv"
    assert export_selection(project, LEAD, ids, out) == 2
    with open(out, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["key"], r["label_status"], r["annotators"]) for r in rows] == [
        ("c0004", "unresolved", "ada;bob"), ("c0009", "final", "bob")]
    out = tmp_path / "chosen.jsonl"
    export_selection(project, LEAD, ids[:1], out)
    assert json.loads(out.read_text(encoding="utf-8"))["notes"] == "ada: a fixed phrase"
    with pytest.raises(TriageError, match="only the lead"):
        export_selection(project, ADA, ids, out)
    import pyarrow.parquet as pq

    out = tmp_path / "chosen.parquet"
    assert export_selection(project, LEAD, ids, out) == 2
    table = pq.read_table(out).to_pylist()
    assert [(r["key"], r["label"], r["score_m1"]) for r in table] == [
        ("c0004", None, pytest.approx(1 - 4 / 30, abs=1e-6)),
        ("c0009", "idiom", pytest.approx(1 - 9 / 30, abs=1e-6))]


def test_the_index_grows_with_the_pool_and_is_rebuilt_when_it_no_longer_matches(project):
    db = open_reader(project.path)
    build_search_index(db)
    with db.conn:
        db.conn.execute("INSERT INTO candidates (id, key, text) VALUES (31, 'x31', 'zebra crossing')")
    assert not search.index_ready(db)
    assert search.build_index(db) == 1                 # only the new candidate
    assert _keys(project, search.search_ids(db, "zebra")) == ["x31"]
    with db.conn:
        db.conn.execute("DELETE FROM candidates WHERE id = 31")
    assert not search.index_ready(db)
    assert search.build_index(db) == 30                # rebuilt whole
    assert search.search_ids(db, "zebra").size == 0
    assert search.index_ready(db)


def test_a_search_on_a_file_without_an_index_reads_every_text(project):
    db = open_reader(project.path)
    r = project.state.ranking()
    cat = load_catalog(db, r.order, r.scores, r.ranks, r.model.name)
    assert not cat.indexed
    assert _keys(project, run_query(db, cat, Query(text="NUMBER 12"), LEAD)) == ["c0012"]
