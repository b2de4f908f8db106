"""Final labels equal a plain reading of the rules on random event logs."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from triage.base.labels import LabelEvent
from triage.project.final import RESOLVED, SKIPPED, UNRESOLVED, current_labels, final_labels


def _reference(rows: list[LabelEvent]) -> dict[int, tuple]:
    """The rules of triage.project.final, written out the slow, obvious way."""
    live = sorted((r for r in rows if r.undone_at is None), key=lambda r: r.id)  # the log order
    out = {}
    for cid in {r.candidate_id for r in live}:
        mine = [r for r in live if r.candidate_id == cid]
        votes: dict[str, str] = {}
        for r in mine:
            if r.value is not None and r.kind not in ("adjudication", "retest"):
                votes[r.annotator] = r.value
        rulings = [r.value for r in mine if r.kind == "adjudication" and r.value is not None]
        if rulings:
            out[cid] = (rulings[-1], RESOLVED, votes, True)
        elif not votes:
            out[cid] = (None, SKIPPED, votes, False)
        else:
            ranked = Counter(votes.values()).most_common()
            tie = len(ranked) > 1 and ranked[0][1] == ranked[1][1]
            out[cid] = (None, UNRESOLVED, votes, False) if tie else \
                (ranked[0][0], RESOLVED, votes, False)
    return out


def _log(seed: int, events: int) -> list[LabelEvent]:
    rng = np.random.default_rng(seed)
    kinds = ["label", "label", "label", "overlap", "adjudication", "retest", "skip"]
    rows = []
    for i in range(events):
        kind = str(rng.choice(kinds))
        value = None if kind == "skip" else str(rng.choice(["pos", "neg", "maybe"]))
        # Times may repeat and run against ids (merged copies, a clock stepped back): ids rule.
        stamp = f"2026-01-01T00:{int(rng.integers(0, 60)):02d}:00"
        rows.append(LabelEvent(
            id=i + 1, candidate_id=int(rng.integers(1, 40)),
            annotator=str(rng.choice(["ada", "bo", "cy", "di"])), session_id=1, value=value,
            kind=kind, created_at=stamp, seconds=1.0, note=None,
            undone_at=stamp if rng.random() < 0.1 else None))
    return rows


@pytest.mark.parametrize("seed", range(30))
def test_final_labels_follow_the_rules_on_random_logs(seed):
    rows = _log(seed, int(np.random.default_rng(seed).integers(0, 300)))
    got = final_labels(rows)
    assert {cid: (f.value, f.status, f.votes, f.adjudicated) for cid, f in got.items()} == \
        _reference(rows)
    assert all(f.candidate_id == cid for cid, f in got.items())
    votes = current_labels(rows)
    assert all(got[cid].votes == v for cid, v in votes.items())


def test_votes_of_different_candidates_are_never_one_shared_dict():
    rows = _log(3, 200)
    labels = list(final_labels(rows).values())
    empties = [f.votes for f in labels if not f.votes]
    assert len({id(v) for v in empties}) == len(empties)


def test_is_positive_needs_a_resolved_positive_final_label():
    from triage.project.final import FinalLabel, FinalStatus, is_positive
    from triage.store.settings import LabelOption, Settings

    settings = Settings(labels=(LabelOption("idiom", "1"), LabelOption("literal", "2")),
                        positive_labels=("idiom",))
    votes = {"ada": "idiom", "bo": "literal"}
    assert is_positive(FinalLabel(1, "idiom", FinalStatus.RESOLVED, votes, False), settings)
    assert not is_positive(FinalLabel(1, "literal", FinalStatus.RESOLVED, votes, False), settings)
    assert not is_positive(FinalLabel(1, None, FinalStatus.UNRESOLVED, votes, False), settings)
    assert not is_positive(FinalLabel(1, None, FinalStatus.SKIPPED, {}, False), settings)
    assert not is_positive(None, settings)
    # The status keeps the words exports and JSON have always shown.
    assert [str(s) for s in FinalStatus] == ["final", "unresolved", "skipped"]
