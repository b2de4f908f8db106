"""The demo project: created from resources/demo/idioms.csv; simulate labels with gold."""

from __future__ import annotations

import csv
import sqlite3

import pytest

from triage.base.errors import TriageError
from triage.project import open_project
from triage.project.demo import DEMO_CSV, create_demo, ensure_demo, simulate


def _gold_by_key() -> dict[str, str]:
    with DEMO_CSV.open(encoding="utf-8", newline="") as handle:
        return {row["key"]: row["gold"] for row in csv.DictReader(handle)}


@pytest.fixture
def demo(tmp_path):
    project = create_demo(tmp_path / "demo.triage")
    yield project
    project.close()


def test_demo_project_holds_the_whole_csv_with_three_models(demo):
    gold = _gold_by_key()
    assert demo.pool == len(gold) == 1500
    assert [m.name for m in demo.models] == ["frequency", "association", "classifier"]
    assert demo.active_model().name == "classifier"
    s = demo.settings
    assert [(o.value, o.key) for o in s.labels] == [("idiom", "i"), ("literal", "l")]
    assert s.positive_labels == ("idiom",)
    assert (s.price_per_item, s.budget, s.value_per_positive, s.currency) == (
        0.04, 20.0, 0.50, "USD")
    first = demo.upcoming(1)[0]
    assert first.rank == 1 and first.key in gold
    assert set(first.meta) >= {"verb", "noun", "example"}
    # Offline curves end at the number of gold idioms in the file, for every model.
    idioms = sum(v == "idiom" for v in gold.values())
    assert {m: int(c[-1]) for m, c in demo.offline_curves().items()} == {
        "frequency": idioms, "association": idioms, "classifier": idioms}


def test_simulate_labels_what_the_desk_serves_with_gold(demo):
    gold = _gold_by_key()
    ranking = [c.key for c in demo.upcoming(60)]
    assert simulate(demo, 50) == 50
    rows = sqlite3.connect(demo.path).execute(
        "SELECT c.key, l.value, l.seconds, a.name, l.kind FROM labels l "
        "JOIN candidates c ON c.id = l.candidate_id "
        "JOIN annotators a ON a.id = l.annotator_id ORDER BY l.id").fetchall()
    assert all(value == gold[key] for key, value, *_ in rows)
    assert {(r[2], r[3]) for r in rows} == {(6.0, "demo")}
    # Ranked-queue labels take the top of the ranking in order; audit items (2% of the
    # events, drawn at random from the pool) come in between.
    triage = [r[0] for r in rows if r[4] == "triage"]
    audits = [r[0] for r in rows if r[4] == "audit"]
    assert triage == ranking[: len(triage)]
    assert len(triage) + len(audits) == 50 and 1 <= len(audits) <= 2
    snap = demo.snapshot()
    assert snap.events == 50
    assert snap.positives_found == sum(gold[r[0]] == "idiom" for r in rows)
    assert snap.spend == pytest.approx(50 * 0.04)
    assert demo.upcoming(1)[0].key == ranking[len(triage)]
    ended = sqlite3.connect(demo.path).execute(
        "SELECT count(*) FROM sessions WHERE ended_at IS NOT NULL").fetchone()[0]
    assert ended == 1


def test_simulate_stops_at_the_end_of_the_pool(tmp_path):
    source = tmp_path / "tiny.csv"
    source.write_text("key,text,gold,m1_frequency,m2_association,m3_classifier\n"
                      "a,kick the bucket,idiom,3,1,0.9\n"
                      "b,kick the ball,literal,2,2,0.2\n"
                      "c,kick it,,1,3,0.5\n", encoding="utf-8")
    project = create_demo(tmp_path / "tiny.triage", source)
    try:
        assert simulate(project, 10) == 3
        values = [r[0] for r in project.db.execute(
            "SELECT value FROM labels ORDER BY id").fetchall()]
        assert values == ["idiom", None, "literal"]  # no gold: recorded as a skip
        assert project.upcoming(1) == []
        assert simulate(project, 0) == 0
    finally:
        project.close()


def test_ensure_demo_creates_once(tmp_path):
    path = ensure_demo(tmp_path / "data")
    assert path == tmp_path / "data" / "demo.triage"
    with open_project(path) as project:
        simulate(project, 5)
    assert ensure_demo(tmp_path / "data") == path  # reused, labels kept
    with open_project(path) as project:
        assert project.snapshot().events == 5


def test_a_failed_demo_import_leaves_no_file(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("key,text\na,b\n", encoding="utf-8")  # no score or gold columns
    with pytest.raises(TriageError):
        create_demo(tmp_path / "x.triage", bad)
    assert list(tmp_path.glob("x.triage*")) == []
