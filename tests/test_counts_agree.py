"""Every count of positives agrees on a project with disagreements: one rule for ties and
for per-annotator credit (triage/project/final.py), used by status, the lead overview,
the report, the gain report, exports and the per-annotator tables."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import SCHEME
from triage import store
from triage.base.errors import AlreadyRecorded
from triage.ingest.importer import ColumnMapping
from triage.project import create_project
from triage.project.export import export_rows
from triage.project.final import final_labels, is_positive
from triage.project.gain import project_gain_report
from triage.store.settings import Settings
from triage.views.panels import PanelInfo, gain_data

POOL = 12
ANNOTATORS = ("ada", "bo", "cy")


def _project(tmp_path):
    src = tmp_path / "pool.csv"
    with open(src, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["key", "text", "m1"])
        writer.writerows([f"c{i:02d}", f"phrase {i}", f"{1 - i / POOL:.4f}"]
                         for i in range(POOL))
    project = create_project(tmp_path / "p.triage", Settings(
        labels=SCHEME, positive_labels=("idiom",), price_per_item=0.04, overlap_rate=0.0,
        audit_rate=0.0))
    project.import_file(src, ColumnMapping(text="text", key="key", scores=(("m1", "m1"),)))
    return project


def _counts(project, positive: str = "idiom") -> dict[str, object]:
    """Positives found as each surface shows them, and the per-annotator credits."""
    snap = project.snapshot()
    finals = final_labels(store.active_labels(project.db))
    table = project.annotator_table()
    info = PanelInfo(pool=project.pool, currency="USD", budget=None, value_per_positive=None,
                     price_per_item=0.04, offline_curves={}, active_model="m1",
                     annotator_rows=table)
    exported = sum(1 for row in export_rows(project)
                   if row["label_status"] == "final" and row["label"] == positive)
    return {
        "status": snap.positives_found,
        "credits": sum(snap.positives_by_annotator.values()),
        "annotator table": sum(row["positives"] for row in table),
        "final labels": sum(is_positive(f, project.settings) for f in finals.values()),
        "lead curve": int(gain_data(snap, info).positives[-1]),
        "gain report": project_gain_report(project)["positives"],
        "export": exported,
    }


def _votes(project, annotator: str, positive: str = "idiom") -> int:
    """Candidates whose current label by ``annotator`` (or ruling) is positive."""
    finals = final_labels(store.active_labels(project.db))
    return sum(1 for f in finals.values()
               if f.votes.get(annotator) == positive or (f.ruled_by == annotator
                                                         and f.value == positive))


ACTIONS = st.lists(st.tuples(st.sampled_from(ANNOTATORS), st.integers(1, 4),
                             st.sampled_from(["idiom", "literal"]),
                             st.sampled_from(["triage", "overlap", "adjudication"])),
                   min_size=1, max_size=14)


def _play(project, actions) -> None:
    sessions = {a: project.start_session(a) for a in ANNOTATORS}
    for annotator, candidate, value, kind in actions:
        try:
            project.record_label(sessions[annotator], candidate, value, kind=kind, seconds=1.0)
        except AlreadyRecorded:  # a second decision goes through the history instead
            continue


def _check(project) -> None:
    counts = _counts(project)
    assert len(set(counts.values())) == 1, counts
    snap = project.snapshot()
    for annotator, credited in snap.positives_by_annotator.items():
        assert credited <= _votes(project, annotator), (annotator, snap.positives_by_annotator)
    project.state.drop_live()  # a rebuild (reopening the project) counts the same
    assert project.snapshot().positives_by_annotator == snap.positives_by_annotator
    assert _counts(project) == counts


def test_a_disagreement_counts_the_same_everywhere(tmp_path):
    project = _project(tmp_path)
    # c1: ada yes, bo no (a tie: not found, nobody credited); c2: ada yes, bo yes, cy no
    # (found once, credited to ada); c3: bo no, then cy rules yes (credited to cy).
    _play(project, [("ada", 1, "idiom", "triage"), ("bo", 1, "literal", "overlap"),
                    ("ada", 2, "idiom", "triage"), ("bo", 2, "idiom", "overlap"),
                    ("cy", 2, "literal", "overlap"), ("bo", 3, "literal", "triage"),
                    ("cy", 3, "idiom", "adjudication")])
    assert _counts(project)["status"] == 2
    assert project.snapshot().positives_by_annotator == {"ada": 1, "bo": 0, "cy": 1}
    _check(project)
    project.close()


@pytest.mark.slow  # a project per example
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(actions=ACTIONS)
def test_every_count_agrees_on_any_sequence_of_labels(tmp_path_factory, actions):
    project = _project(tmp_path_factory.mktemp("p"))
    _play(project, actions)
    _check(project)
    project.close()


def test_a_label_studio_project_counts_the_same_everywhere(tmp_path):
    """Three users of a genuine Label Studio export, disagreeing on some reviews: found 3,
    credited 3 (before: found 4, six credits, the gain report 3)."""
    from main import main
    from triage.project import open_project

    source = Path(__file__).parent / "data" / "labelstudio" / "sentiment.snapshot.json"
    assert main(["new", str(tmp_path / "ls.triage"), str(source), "--from", "labelstudio"]) == 0
    with open_project(tmp_path / "ls.triage") as project:
        counts = _counts(project, "Positive")
        assert set(counts.values()) == {3}, counts
        assert project.snapshot().positives_by_annotator == {
            "ada@example.org": 1, "bo@example.org": 2, "cy@example.org": 0}
        for annotator, credited in project.snapshot().positives_by_annotator.items():
            assert credited <= _votes(project, annotator, "Positive")
