"""The estimates of what is left, in words: what each rests on and why the headline leads.

:mod:`triage.stats.stopping` returns each estimate of the positives left with its method
(``exact``, ``audit``, ``combined``, ``calibrated``, ``ranked``, ``none``) and the numbers it
rests on, the headline's reason as a code, and the yield sources of the next batch as codes;
the sentences for every surface (and the ``--json`` outputs) are made here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Numbers = Mapping[str, Any]
SOURCES = {"recent": "recent yield", "audit": "audit sample below the depth"}


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _i(x: Any) -> int:
    return int(x or 0)


def calibration_words(method: Any, labels: Any) -> str:
    """How the calibrated scores were made: "Platt scaling fitted on 40 labels"."""
    if method == "platt":
        return f"Platt scaling fitted on {_i(labels)} labels"
    return "calibrated scores as given" if method == "given" else str(method or "")


def source_words(n: Numbers) -> str:
    """The yield source of the next batch (``numbers["source"]`` of the marginal rule), in words."""
    source = n.get("source")
    if source == "calibrated":
        return calibration_words(n.get("calibration"), n.get("calibration_labels"))
    return SOURCES.get(str(source), str(source or ""))


def _audit(method: str, n: Numbers, unlabelled: int) -> str:
    k, below = _i(n.get("audit_below_k")), _i(n.get("audit_below_n"))
    what = (f"{k} positive{_s(k)} in {below} random audit item{_s(below)} below rank "
            f"{_i(n.get('depth')):,}, stratified by score decile")
    if method == "combined":
        what += ", rescaled within each stratum by the calibrated scores"
    cap = float(n.get("ranked_upper") or 0.0)
    if cap < unlabelled:
        what += f"; at most {cap:,.1f} left if the ranking beats random order below the depth"
    return what


def estimate_detail(rem: Mapping[str, Any]) -> str:
    """What one estimate of the positives left (``remaining`` or ``estimates[m]``) rests on."""
    method, n = str(rem.get("method") or ""), rem.get("numbers")
    if n is None:                         # made before the estimates carried numbers
        return str(rem.get("detail") or "")
    unl = _i(rem.get("unlabelled"))
    if method == "exact":
        return "every candidate is labelled: recall is known exactly"
    if method in ("audit", "combined"):
        return _audit(method, n, unl)
    if method == "calibrated":
        text = (f"{calibration_words(n.get('calibration'), n.get('calibration_labels'))}: the "
                f"sum of calibrated probabilities over {unl:,} unlabelled items")
        if _i(n.get("below_depth")):
            text += (f"; it extrapolates to {_i(n.get('below_depth')):,} items below rank "
                     f"{_i(n.get('depth')):,}, the depth the ranked labels reach")
        return text
    if method == "ranked":
        return (f"at most {float(n.get('ranked_upper') or 0.0):,.1f} positives left if the "
                f"ranking beats random order below rank {_i(n.get('depth')):,} "
                f"({_i(n.get('window_k'))} positives in the last {_i(n.get('window_n'))} ranked "
                "labels)" + ("; point from the calibrated scores"
                             if n.get("point_calibrated") else ""))
    return ("nothing labelled by the ranked pass or the audit yet: only the bounds "
            "(none to all of the unlabelled) are known")


def why_words(rem: Mapping[str, Any]) -> str:
    """Why the headline estimate leads, from its ``why_code`` ("" for the other estimates)."""
    code = rem.get("why_code")
    if code is None:
        return str(rem.get("why") or "")
    if code == "nothing_unlabelled":
        return "nothing is left unlabelled"
    if code == "audit_below":
        below = _i((rem.get("numbers") or {}).get("audit_below_n"))
        return f"{below} random audit item{_s(below)} lie below the depth: a sample with a guarantee"
    if code == "no_audit_below":
        return ("no random audit item lies below the depth; the calibrated interval alone has "
                "no guarantee")
    return "nothing to estimate from" if code == "nothing_labelled" else ""


def _worded_estimate(rem: Mapping[str, Any]) -> dict[str, Any]:
    return dict(rem, detail=estimate_detail(rem), why=why_words(rem))


def estimates_worded(data: Mapping[str, Any]) -> dict[str, Any]:
    """The advice JSON's estimates with their words (``detail``, ``why``, ``method``).

    ``detail`` and ``why`` sit beside the codes; the recall and pool estimates' ``method``
    becomes a sentence (its code stays in ``remaining.method``)."""
    out = dict(data)
    rem = data.get("remaining")
    if isinstance(rem, Mapping):
        out["remaining"] = _worded_estimate(rem)
        words = (f"{rem.get('method')}: {out['remaining']['detail']} (headline because "
                 f"{out['remaining']['why']})")
        for key in ("estimated_recall", "estimated_total_positives"):
            est = data.get(key)
            if isinstance(est, Mapping) and "numbers" in rem:
                out[key] = dict(est, method=words)
    if isinstance(data.get("estimates"), Mapping):
        out["estimates"] = {k: _worded_estimate(v) for k, v in data["estimates"].items()}
    return out
