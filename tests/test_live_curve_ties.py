"""The live curve never steps down because a second annotator disagrees (issue 25, finding 4).

An overlap label that turns a positive into an unresolved tie keeps the candidate found on
the live curve until somebody rules (docs/numbers/gain.md); the ruling decides. Exports and
the advice still count only resolved positives."""

from __future__ import annotations

import numpy as np

from tests.helpers import make_project
from triage.project.live_build import build_live, live_inputs


def _curve(project) -> np.ndarray:
    return np.asarray(project.live.snapshot().curve_positives)


def test_a_tie_keeps_the_positive_on_the_curve(tmp_path):
    project = make_project(tmp_path, n=30)
    ada, bo = project.start_session("ada"), project.start_session("bo")
    first = project.next_candidate(ada)
    project.record_label(ada, first.candidate_id, "idiom", seconds=2.0)
    other = project.next_candidate(ada)
    project.record_label(ada, other.candidate_id, "literal", seconds=2.0)
    assert project.live.snapshot().positives_found == 1
    # bo says "literal" on ada's positive: a 1–1 tie, unresolved.
    project.record_label(bo, first.candidate_id, "literal", seconds=2.0, kind="overlap")
    curve = _curve(project)
    assert project.live.snapshot().positives_found == 1
    assert np.all(np.diff(curve) >= 0), curve.tolist()
    # The same from a rebuild (opening the project again, the desk's worker).
    project.state.drop_live()
    assert np.all(np.diff(_curve(project)) >= 0)
    project.state.drop_live()
    assert build_live(live_inputs(project)).state.snapshot().positives_found == 1
    # A ruling decides: "literal" takes the find off, as the lead meant it to.
    lee = project.start_session("lee")
    project.record_label(lee, first.candidate_id, "literal", seconds=1.0, kind="adjudication")
    assert project.live.snapshot().positives_found == 0
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
