"""A change of mind from the history is not a new paid label.

Every surface counts decisions (the latest active event per annotator and candidate): the
live snapshot (desk spend, chart title), the annotator table, and a rebuilt project."""

from __future__ import annotations

from tests.helpers import make_project
from triage.project import open_project
from triage.project.history import change_decision, recent_decisions
from triage.project.live_replay import ranked_labels, replay
from triage.project.summary import annotator_table
from triage.stats.live import rebuild
from triage.views.formatting import gain_title


def _figures(project):
    snap = project.snapshot()
    row = next(r for r in annotator_table(project) if r["annotator"] == "ada")
    return (snap.events, snap.label_events, snap.annotated, snap.positives_found,
            round(snap.spend, 2), row["labels"], row["positives"], round(row["spend"], 2))


def test_a_history_change_costs_nothing_and_counts_once(tmp_path):
    project = make_project(tmp_path, n=30, overlap_rate=0.0, audit_rate=0.0)
    ada = project.start_session("ada")
    for value in ("idiom", "literal", "idiom", "literal"):
        c = project.next_candidate(ada)
        project.record_label(ada, c.candidate_id, value)
    assert _figures(project) == (4, 4, 4, 2, 0.16, 4, 2, 0.16)
    literal = recent_decisions(project, ada)[0]
    change_decision(project, ada, literal, "idiom")
    # Four decisions, three positives, $0.16: the same on every surface.
    assert _figures(project) == (4, 4, 4, 3, 0.16, 4, 3, 0.16)
    snap = project.snapshot()
    assert gain_title(snap.positives_found, snap.annotated).endswith("3 positives in 4")
    # The same numbers when the project is opened again (the rebuild from the file).
    project.close()
    with open_project(tmp_path / "p.triage") as again:
        assert _figures(again) == (4, 4, 4, 3, 0.16, 4, 3, 0.16)
        # Undo takes the change back, and the earlier decision counts again.
        assert again.undo(again.start_session("ada")) == literal.candidate_id
        assert _figures(again) == (4, 4, 4, 2, 0.16, 4, 2, 0.16)


def test_replay_equals_the_reference_with_corrections(tmp_path):
    project = make_project(tmp_path, n=30, overlap_rate=0.0, audit_rate=0.0)
    ada = project.start_session("ada")
    for value in ("idiom", "literal", None):
        c = project.next_candidate(ada)
        project.record_label(ada, c.candidate_id, value)
    history = recent_decisions(project, ada)
    change_decision(project, ada, history[0], "idiom")     # a skip becomes a label
    change_decision(project, ada, history[1], "idiom")
    live = project.snapshot()
    rows = sorted(project.state.tracker.rows.values(), key=lambda r: r.id)
    events = ranked_labels(rows, project.state.ranking().ranks, project.settings)
    assert [e.replaces for e in events][-2:] == [history[0].label_id, history[1].label_id]
    price = dict(price_per_item=0.04)
    assert replay(30, events, **price).snapshot() == rebuild(30, events, **price).snapshot()
    assert (live.events, live.label_events, live.skipped, live.positives_found) == (3, 3, 0, 3)
    project.close()


def test_the_desk_session_counts_a_correction_as_no_new_decision():
    from triage.views.desk import SessionStats

    stats = SessionStats("ada", 0.0)
    stats.record(1, False)
    stats.record(2, True)
    stats.correct(3, False, corrects=2)        # this session's skip becomes a label
    assert (stats.labels, stats.skips) == (2, 0)
    stats.correct(4, True, corrects=99)        # an older session's decision: no change here
    assert (stats.labels, stats.skips) == (2, 0)
    stats.undo()
    stats.undo()
    assert (stats.labels, stats.skips) == (1, 1)
    stats.undo()
    assert (stats.labels, stats.skips) == (1, 0)
