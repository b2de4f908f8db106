"""The planner's "N random labels below the frontier narrow recall to ±25 points", backtested.

On synthetic pools a ranked pass with a 2% interleaved audit reaches 50, 150 or 300 labels;
the planner names N; then N random labels below the frontier are drawn and labelled with
the truth. The advice's two-sided interval must then be at most 50 points wide in at least
80% of the runs.
"""

from __future__ import annotations

import numpy as np
import pytest

from triage.stats.stopping import AdviceInputs, advise
from triage.stats.stopping.plan import labels_to_narrow

POOL = 4000
RUNS = 30


def _state(seed: int, labels: int, prevalence: float = 0.05):
    """Truth per rank, and the labelled ranks (ranked pass + 2% audit) at ``labels`` labels."""
    rng = np.random.default_rng(seed)
    y = rng.random(POOL) < prevalence
    score = rng.normal(size=POOL) + 1.5 * y
    order = np.argsort(-score, kind="stable")
    truth, score = y[order], score[order]          # index r - 1: truth at rank r
    audit_order = rng.permutation(POOL) + 1
    n_audit = max(1, round(0.02 * labels))
    audit = audit_order[:n_audit]
    ranked = [r for r in range(1, POOL + 1) if r not in set(audit)][:labels - n_audit]
    return rng, truth, score, np.array(ranked), audit


def _inputs(truth, score, ranked, audit) -> AdviceInputs:
    ranks = np.union1d(ranked, audit)
    return AdviceInputs(pool=POOL, ranks=ranks, positive=truth[ranks - 1],
                        audit_ranks=audit, audit_positive=truth[audit - 1], raw_scores=score,
                        depth=int(ranked.max()))


def test_a_narrower_target_needs_more_labels_and_a_narrow_interval_none():
    for n, k in ((0, 0), (1, 1), (10, 0), (40, 2)):
        wide, narrow = (labels_to_narrow(20, 3000, n, k, h, 0.95) for h in (0.25, 0.10))
        assert wide is not None and narrow is not None and wide <= narrow <= 3000
    assert labels_to_narrow(20, 3000, 3000, 0, 0.10, 0.95) == 0
    assert labels_to_narrow(20, 0, 0, 0, 0.10, 0.95) == 0


@pytest.mark.slow
@pytest.mark.parametrize("labels", [50, 150, 300])
def test_plan_for_25_points_holds_in_80_percent_of_runs(labels):
    narrow = 0
    for seed in range(RUNS):
        rng, truth, score, ranked, audit = _state(seed, labels)
        advice = advise(_inputs(truth, score, ranked, audit))
        row = advice.plan["rows"][0]
        assert row["half_width"] == 0.25 and row["labels"] is not None
        depth = int(ranked.max())
        below = np.setdiff1d(np.arange(depth + 1, POOL + 1), audit)
        extra = rng.choice(below, size=min(row["labels"], below.size), replace=False)
        after = advise(_inputs(truth, score, ranked, np.concatenate([audit, extra])))
        rec = after.estimated_recall
        narrow += bool(rec.upper - rec.lower <= 0.5 + 1e-9)
    assert narrow / RUNS >= 0.8, f"{narrow} of {RUNS} runs narrow enough"
