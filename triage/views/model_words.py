"""Why a model metric or a paired test is undefined, in words.

:mod:`triage.stats.models` gives each undefined metric (``Metric.reason``) and each
undefined paired test (``PairResult.reason``) as a code; ``compare`` (text and ``--json``),
the Models tab and the report word them here, the code beside the words in ``--json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

REASONS = {
    "no_predicted_positive": "no item is predicted positive (TP + FP = 0)",
    "recall_no_positive": "no positive items in the gold labels (TP + FN = 0)",
    "f1_no_positive": "no positives predicted or in the gold labels",
    "mcc_empty_margin": "a row or column of the confusion matrix is empty (MCC is 0/0)",
    "no_items": "no items",
    "no_positive": "no positive items in the gold labels",
    "no_negative": "no negative items in the gold labels",
    "ndcg_no_positive": "no positive items in the gold labels (ideal DCG is 0)",
    "k_below_1": "k must be at least 1",
    "statistic_undefined": "the statistic is undefined for a system",
}


def metric_reason_text(code: str | None) -> str | None:
    """Why a metric or test is undefined, in words (text that is no code is returned as it is)."""
    return None if code is None else REASONS.get(code, code)


def undefined_words(codes: Mapping[str, str]) -> dict[str, str]:
    """``{metric: code}`` of the undefined metrics as ``{metric: words}``."""
    return {k: metric_reason_text(v) or "" for k, v in codes.items()}


def pair_words(pairs: Mapping[str, Mapping[str, Mapping[str, Any]]]
               ) -> dict[str, dict[str, dict[str, Any]]]:
    """The paired tests ("A|B" -> metric -> result) with each reason in words, its code beside."""
    return {pair: {metric: dict(r, reason=metric_reason_text(r.get("reason")),
                                reason_code=r.get("reason"))
                   for metric, r in row.items()}
            for pair, row in pairs.items()}
