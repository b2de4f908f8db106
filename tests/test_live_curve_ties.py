"""A tie between annotators counts the same on the live curve as everywhere else: not
found until somebody rules (project/final.py, the one rule; docs/numbers/gain.md), and
credited to nobody; the ruling decides, and credits the annotator who gave its label."""

from __future__ import annotations

import numpy as np

from tests.helpers import make_project
from triage.project.live_build import build_live, live_inputs


def _curve(project) -> np.ndarray:
    return np.asarray(project.live.snapshot().curve_positives)


def test_a_tie_is_not_found_until_a_ruling(tmp_path):
    project = make_project(tmp_path, n=30)
    ada, bo = project.start_session("ada"), project.start_session("bo")
    first = project.next_candidate(ada)
    project.record_label(ada, first.candidate_id, "idiom", seconds=2.0)
    other = project.next_candidate(ada)
    project.record_label(ada, other.candidate_id, "literal", seconds=2.0)
    assert project.live.snapshot().positives_found == 1
    # bo says "literal" on ada's positive: a 1–1 tie, unresolved, so not found.
    project.record_label(bo, first.candidate_id, "literal", seconds=2.0, kind="overlap")
    snap = project.live.snapshot()
    assert snap.positives_found == 0 and _curve(project).tolist() == [1, 1, 0]
    assert snap.positives_by_annotator == {"ada": 0, "bo": 0}
    # The same from a rebuild (opening the project again, the desk's worker).
    project.state.drop_live()
    assert _curve(project).tolist() == [1, 1, 0]
    project.state.drop_live()
    assert build_live(live_inputs(project)).state.snapshot().positives_found == 0
    # A ruling decides: "idiom" makes it found again, credited to ada who said so.
    lee = project.start_session("lee")
    project.record_label(lee, first.candidate_id, "idiom", seconds=1.0, kind="adjudication")
    snap = project.live.snapshot()
    assert snap.positives_found == 1
    assert snap.positives_by_annotator == {"ada": 1, "bo": 0, "lee": 0}
    project.close()


def test_a_majority_against_still_counts_as_not_found(tmp_path):
    project = make_project(tmp_path, n=30, overlap_rate=0.0)
    ada, bo, cy = (project.start_session(n) for n in ("ada", "bo", "cy"))
    item = project.next_candidate(ada)
    project.record_label(ada, item.candidate_id, "idiom", seconds=2.0)
    project.record_label(bo, item.candidate_id, "literal", seconds=2.0, kind="overlap")
    project.record_label(cy, item.candidate_id, "literal", seconds=2.0, kind="overlap")
    assert project.live.snapshot().positives_found == 0   # resolved: two against one
    project.close()
