"""What is known for certain about recall, as numbers and a reason code (views word them).

While the two-sided recall interval spans 50 points or more it says little, so the advice
states what holds one-sided instead:

- **found**: positives found in the labels so far (ranked and audit), known exactly;
- **ranked_left**: at most this many positives are left *if the ranking beats random order
  below the depth*: the unlabelled items times the one-sided Jeffreys upper bound (at the
  confidence) of the yield of the last ``RANKED_WINDOW`` ranked labels;
- **audit_left**: at most this many are left on the random audit alone: the unlabelled
  items times the one-sided Clopper–Pearson upper bound of k/n for the n audit items below
  the depth (k positive); all of the unlabelled when no audit item lies below the depth;
- **recall_at_least** = found / (found + ranked_left), and **recall_at_least_audit** =
  found / (found + audit_left): one-sided lower bounds at the confidence.

``reason`` says which regime holds: ``exact`` (nothing unlabelled), ``no_labels``,
``no_positive`` (nothing found yet: recall undefined), ``early`` (the two-sided interval is
uninformative) or ``estimate`` (it is narrow enough to quote a point).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from triage.stats.distributions import beta_ppf
from triage.stats.stopping.remainder import RANKED_WINDOW, recall_of
from triage.stats.stopping.state import State
from triage.stats.stopping.types import AdviceInputs, Estimate, recall_informative


@dataclass(frozen=True)
class Known:
    """One-sided facts about recall and positives left (see the module docstring)."""

    reason: str
    confidence: float
    found: int
    labelled: int
    ranked: int
    audit: int
    unlabelled: int
    depth: int
    window_n: int
    window_k: int
    audit_below_n: int
    audit_below_k: int
    ranked_left: float
    audit_left: float
    recall_at_least: float
    recall_at_least_audit: float

    def to_json(self) -> dict[str, Any]:
        """Plain data (NaN stays NaN here; the advice JSON turns it into None)."""
        return asdict(self)


def ranked_left_bound(window_n: int, window_k: int, unlabelled: int, confidence: float) -> float:
    """At most this many positives left if the ranking beats random below the depth."""
    if window_n <= 0 or window_k >= window_n:
        return float(unlabelled)
    up = float(beta_ppf(confidence, window_k + 0.5, window_n - window_k + 0.5))
    return _whole(unlabelled * up, unlabelled)


def audit_left_bound(n: int, k: int, unlabelled: int, confidence: float) -> float:
    """At most this many positives left on the random audit below the depth alone."""
    if n <= 0 or k >= n:
        return float(unlabelled)
    up = float(beta_ppf(confidence, k + 1, n - k))   # one-sided Clopper–Pearson upper end
    return _whole(unlabelled * up, unlabelled)


def _whole(bound: float, unlabelled: int) -> float:
    """A count of positives is whole: at most 72.4 left means at most 72."""
    return float(min(math.floor(bound + 1e-9), unlabelled))


def known_facts(inp: AdviceInputs, st: State, recall: Estimate) -> Known:
    """The one-sided facts for one project state, and which regime they belong to."""
    conf = inp.confidence
    labelled = st.annotated
    audit = int(np.isin(inp.audit_ranks, np.nonzero(st.label >= 0)[0] + 1).sum())
    window = st.label[max(st.depth - RANKED_WINDOW, 0):st.depth]
    window = window[window >= 0]
    w_n, w_k = int(window.size), int((window == 1).sum())
    unl = st.unlabelled
    ranked_left = ranked_left_bound(w_n, w_k, unl, conf)
    audit_left = audit_left_bound(st.audit_below_n, st.audit_below_k, unl, conf)
    if unl == 0:
        reason = "exact"
    elif labelled == 0:
        reason = "no_labels"
    elif st.found == 0:
        reason = "no_positive"
    elif recall_informative(recall.lower, recall.upper) and not math.isnan(recall.point):
        reason = "estimate"
    else:
        reason = "early"
    return Known(reason, conf, st.found, labelled, labelled - audit, audit, unl, st.depth,
                 w_n, w_k, st.audit_below_n, st.audit_below_k, ranked_left, audit_left,
                 float(recall_of(st.found, ranked_left)), float(recall_of(st.found, audit_left)))
