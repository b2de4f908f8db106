"""A certification sample counts only its longest decided prefix, in sample order.

A sample is random only as a prefix of its order: items labelled past an undecided one are
not a random sample of the rest. So positives parked on a desk, or skipped, must never let
the test certify on what was labelled around them: a skip counts as a positive.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from tests.test_advice_states import build, label_down
from triage.project.advice import advice_state
from triage.project.certify import sample_count, start_certification
from triage.project.final import FinalLabel, FinalStatus
from triage.store.certification import latest_certification
from triage.store.settings import Settings
from triage.views.advice import certification_text
from triage.views.rule_words import worded

SETTINGS = Settings(labels=("idiom", "literal"), positive_labels=("idiom",))


class _Row:
    running, sample_n, sample_k = True, None, None

    def __init__(self, order: np.ndarray) -> None:
        self.sample_order = order


class _Event:
    def __init__(self, kind: str = "certify") -> None:
        self.kind, self.value = kind, "literal"


class _State:
    """Just what the counting reads: final labels, settings, events (all certify labels)."""

    def __init__(self, finals: dict[int, FinalLabel], kinds: dict[int, str] | None = None
                 ) -> None:
        self.finals, self.settings, self.tracker = finals, SETTINGS, self
        self.kinds = kinds or {}

    def final_labels(self) -> dict[int, FinalLabel]:
        return self.finals

    def events_of(self, candidate_id: int) -> list[_Event]:
        return [_Event(self.kinds.get(candidate_id, "certify"))] if candidate_id in self.finals else []


def _final(cid: int, value: str | None) -> FinalLabel:
    if value is None:
        return FinalLabel(cid, None, FinalStatus.SKIPPED, {}, False)
    return FinalLabel(cid, value, FinalStatus.RESOLVED, {"ada": value}, False)


@settings(max_examples=60, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), size=hs.integers(1, 60), skip_share=hs.floats(0, 1))
def test_counted_items_are_always_the_decided_prefix(seed, size, skip_share):
    """Whatever order the items are labelled in (positives held back, some skipped), the
    count is the longest decided prefix and a skip counts as a positive."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(np.arange(1, size + 1) * 7).astype(np.int64)
    truth = {int(c): bool(rng.random() < 0.3) for c in order}
    # Negatives first in a random order, the positives parked till the end.
    labelled = sorted(truth, key=lambda c: (truth[c], rng.random()))
    finals: dict[int, FinalLabel] = {}
    for cid in labelled:
        skip = rng.random() < skip_share
        finals[cid] = _final(cid, None if skip else ("idiom" if truth[cid] else "literal"))
        got = sample_count(_State(finals), _Row(order))  # type: ignore[arg-type]
        decided = np.array([int(c) in finals for c in order])
        n = int(decided.size if decided.all() else np.argmin(decided))
        assert got.n == n and got.waiting == int(decided[n:].sum())
        prefix = [finals[int(c)] for c in order[:n]]
        assert got.skipped == sum(f.skipped for f in prefix)
        assert got.k == sum(f.skipped or f.value == "idiom" for f in prefix)


def test_a_tie_and_a_skip_count_as_positives():
    order = np.array([5, 6, 7, 8], dtype=np.int64)
    tie = FinalLabel(6, None, FinalStatus.UNRESOLVED, {"ada": "idiom", "bob": "literal"}, False)
    finals = {5: _final(5, "literal"), 6: tie, 7: _final(7, None), 8: _final(8, "literal")}
    got = sample_count(_State(finals), _Row(order))  # type: ignore[arg-type]
    assert (got.n, got.k, got.skipped, got.waiting) == (4, 2, 2, 0)


def test_a_label_of_another_kind_counts_as_it_stands_and_a_skip_of_it_waits():
    """A decision of another kind on a sample item (a second desk on the same file) counts
    with its value; a skip of another kind decides nothing: the item is still served."""
    order = np.array([5, 6, 7], dtype=np.int64)
    finals = {5: _final(5, "literal"), 6: _final(6, None), 7: _final(7, "idiom")}
    got = sample_count(_State(finals, {5: "triage", 6: "triage"}), _Row(order))  # type: ignore[arg-type]
    assert (got.n, got.k, got.skipped, got.waiting) == (1, 0, 0, 1)
    finals[6] = _final(6, "literal")
    got = sample_count(_State(finals, {5: "triage", 6: "triage"}), _Row(order))  # type: ignore[arg-type]
    assert (got.n, got.k, got.skipped, got.waiting) == (3, 1, 0, 0)


def _sample_project(tmp_path: Path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    # 20 positives at the top (found by the ranked pass), 4 more scattered in the remainder.
    gold = [i < 20 or i in (95, 130, 160, 190) for i in range(200)]
    p = build(tmp_path, gold)
    label_down(p, 80)
    row = start_certification(p)
    assert row.found == 20 and row.remaining == 120
    gold_of = dict(p.db.execute("SELECT id, gold FROM candidates").fetchall())
    return p, row, gold_of


def _prefix(p, order: np.ndarray) -> tuple[int, int]:
    """The decided prefix of the sample and its positives (a skip counting), from the file."""
    rows = p.db.execute("SELECT candidate_id, value FROM labels WHERE kind = 'certify' "
                        "AND undone_at IS NULL").fetchall()
    value = dict(rows)
    n = 0
    while n < order.size and int(order[n]) in value:
        n += 1
    k = sum(value[int(c)] in (None, "idiom") for c in order[:n])
    return n, k


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_parked_positives_never_let_the_sample_certify_past_them(tmp_path, seed):
    """Labelled out of order with the positives held back, the sample ends only on its
    decided prefix, with the counts of that prefix."""
    p, row, gold_of = _sample_project(tmp_path)
    order = row.sample_order
    rng = np.random.default_rng(seed)
    by_hand = sorted(order.tolist(), key=lambda c: (gold_of[c] == "idiom", rng.random()))
    s = p.start_session("cy")
    for cid in by_hand:
        p.record_label(s, cid, gold_of[cid], kind="certify")
        now = latest_certification(p.db)
        assert now is not None
        if not now.running:
            break
    assert now.outcome in ("certified", "not_certified")
    assert (now.sample_n, now.sample_k) == _prefix(p, order)
    # Nothing labelled beyond an undecided item was counted: the prefix is whole.
    assert all(p.db.execute("SELECT 1 FROM labels WHERE candidate_id = ?", [int(c)]).fetchone()
               for c in order[: now.sample_n])


def _label_order(p, row, gold_of, *, skip_positives: bool) -> tuple[str | None, int]:
    s = p.start_session("cy")
    for cid in row.sample_order.tolist():
        positive = gold_of[cid] == "idiom"
        if positive and skip_positives:
            p.skip(s, cid, kind="certify")
        else:
            p.record_label(s, cid, gold_of[cid], kind="certify")
        now = latest_certification(p.db)
        if now is not None and not now.running:
            return now.outcome, int(now.sample_n or 0)
    return None, 0


@pytest.mark.slow
def test_skipping_the_positives_certifies_no_sooner_than_labelling_them(tmp_path):
    """A skip is the worst case: the same sample certifies at the same item (or not at
    all) whether its positives are skipped or labelled positive."""
    p, row, gold_of = _sample_project(tmp_path / "a")
    labelled = _label_order(p, row, gold_of, skip_positives=False)
    q, row_q, gold_q = _sample_project(tmp_path / "b")
    assert np.array_equal(row.sample_order, row_q.sample_order)
    skipped = _label_order(q, row_q, gold_q, skip_positives=True)
    assert skipped == labelled
    state = advice_state(q)
    assert state.certification is not None
    skips = state.certification["skipped_as_positive"]
    assert skips == sum(gold_q[c] == "idiom" for c in row_q.sample_order[: skipped[1]].tolist())
    text = certification_text(worded(state.to_json()))
    if skips:
        assert "skipped or tied between annotators: counted as" in text


@pytest.mark.slow
def test_labels_after_the_sample_ended_do_not_change_its_certificate(tmp_path):
    """The ranked pass goes on after a certificate: a triage label on a sample item past
    the counted prefix neither extends it nor changes what was certified."""
    p, row, gold_of = _sample_project(tmp_path)
    outcome, n = _label_order(p, row, gold_of, skip_positives=False)
    assert outcome == "certified" and n < row.remaining
    before = advice_state(p).certification
    s = p.start_session("dee")
    for cid in row.sample_order[n:].tolist():
        p.record_label(s, cid, "idiom", kind="triage")
    after = advice_state(p).certification
    assert before is not None and after is not None
    assert (after["labelled"], after["positives"]) == (before["labelled"], before["positives"])
    assert after["outcome"] == "certified"


def test_a_pick_walks_past_a_long_decided_head_and_reads_the_order_once(monkeypatch):
    """The desk's pick looks at the order a block at a time, past hundreds of decided items
    and the ones other desks hold, and reads a sample's stored order once."""
    import triage.serving.certify as serving_certify

    order = np.random.default_rng(3).permutation(np.arange(1, 2001)).astype(np.int64)
    reads: list[int] = []

    def read_order(_db, cert_id):
        reads.append(cert_id)
        return order

    monkeypatch.setattr(serving_certify, "running_certification_id", lambda _db: 7)
    monkeypatch.setattr(serving_certify, "sample_order", read_order)
    decided = {int(c): "literal" for c in order[:700]}
    tracker = _State({c: _final(c, v) for c, v in decided.items()})
    source = serving_certify.CertifySource(None, tracker)  # type: ignore[arg-type]
    taken = frozenset({int(order[700]), int(order[701])})
    assert source(taken).candidate_id == int(order[702])
    assert source(frozenset()).candidate_id == int(order[700])
    assert reads == [7]
    monkeypatch.setattr(serving_certify, "running_certification_id", lambda _db: None)
    assert source(frozenset()) is None
