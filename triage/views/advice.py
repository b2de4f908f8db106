"""Display strings for the one advice state: one formatter per number, shared by every surface.

The desk banner, the lead window's Advice tab, the gain chart's recall band, the Agreement
tab's reliability verdict and ``triage advise`` all turn the same
:class:`~triage.project.advice.AdviceState` into text through these functions, so no two
surfaces can word or round a number differently. Each takes the advice JSON (or the state).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from triage.stats.stopping.types import recall_informative

DECISION_ROLE = {"continue": "go", "stop": "stop", "pause": "pause"}
DECISION_BADGE = {"continue": "▶ CONTINUE", "stop": "■ STOP", "pause": "❚❚ PAUSE"}


def advice_json(state: Any) -> Mapping[str, Any] | None:
    """The advice mapping from an AdviceState, its JSON, or a plain advice dict."""
    if state is None:
        return None
    if hasattr(state, "to_json"):
        return state.to_json()
    return state


def _finite(x: Any) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def share(x: Any) -> str:
    """``62%`` (one decimal under 10%), or ``–`` when undefined."""
    v = _finite(x)
    if v is None:
        return "–"
    v = min(max(v, 0.0), 1.0)
    return f"{100 * v:.1f}%" if v < 0.1 and v > 0 else f"{100 * v:.0f}%"


def money(x: Any, currency: str = "USD") -> str:
    """``$12.40`` — never inf or NaN (``–`` instead)."""
    v = _finite(x)
    if v is None:
        return "–"
    sign = "-" if v < 0 else ""
    return f"{sign}${abs(v):,.2f}" if currency.upper() == "USD" else f"{sign}{abs(v):,.2f} {currency}"


def count(x: Any) -> str:
    """A count of items or positives: whole when large, one decimal when small."""
    v = _finite(x)
    if v is None:
        return "–"
    v = max(v, 0.0)
    return f"{v:,.0f}" if v >= 10 or v == round(v) else f"{v:.1f}"


def labels_at_text(state: Any) -> str:
    """"computed at 1,470 labels" — which label count the advice belongs to."""
    data = advice_json(state) or {}
    at = data.get("labels_at")
    return "" if at is None else f"computed at {int(at):,} label{'s' if at != 1 else ''}"


def recall_text(data: Mapping[str, Any]) -> str:
    """Estimated recall with its interval and the estimate it rests on, or why not."""
    rem = data.get("remaining") or {}
    method = rem.get("method")
    if method == "exact":
        found = rem.get("found", 0)
        return ("recall 100%, known exactly (every candidate is labelled)" if found else
                "no positive in the pool: recall is undefined (every candidate is labelled)")
    rec = data.get("estimated_recall") or {}
    point, lo, hi = (_finite(rec.get(k)) for k in ("point", "lower", "upper"))
    if point is None:
        if not rem.get("found"):
            return "recall undefined: no positive found yet"
        if lo is not None and method == "none":
            return f"recall between {share(lo)} and 100% (nothing estimates the rest yet)"
        if lo is not None:
            return f"recall at least {share(lo)} ({method} bound)"
        return "recall undefined"
    if not recall_informative(lo, hi):   # a point inside 2%–100% is not information
        return f"too early to estimate recall: between {share(lo)} and {share(hi)}"
    return f"recall ≈ {share(point)} (95% interval {share(lo)}–{share(hi)}; {method} estimate)"


def _recall_known(data: Mapping[str, Any]) -> bool:
    """Is the recall interval narrow enough to quote point estimates of what is left?"""
    rec = data.get("estimated_recall") or {}
    return recall_informative(_finite(rec.get("lower")), _finite(rec.get("upper")))


def remaining_text(data: Mapping[str, Any]) -> str:
    """Positives left among the unlabelled: point and interval, never above what is left."""
    rem = data.get("remaining") or {}
    unl = int(rem.get("unlabelled") or 0)
    if rem.get("method") == "exact" or unl == 0:
        return "nothing is left unlabelled"
    point, lo, hi = (_finite(rem.get(k)) for k in ("positives", "lower", "upper"))
    if point is None:
        return f"between 0 and {unl:,} positives among the {unl:,} unlabelled (no estimate yet)"
    if not _recall_known(data) and lo is not None and hi is not None:
        return (f"between {count(lo)} and {count(hi)} positives left among {unl:,} unlabelled "
                "(too early for a point estimate)")
    return (f"about {count(point)} positives left among {unl:,} unlabelled "
            f"({count(lo)}–{count(hi)})")


def _items(x: float) -> str:
    """"248 items": whole items, never "247.83" (a decile of a pool is fractional)."""
    whole = max(1, round(x))
    return f"{whole:,} item{'' if whole == 1 else 's'}"


def next_batch_text(data: Mapping[str, Any]) -> str:
    """The next batch: items, expected positives and price per positive, or words."""
    nb = data.get("next_batch") or {}
    items = _finite(nb.get("items")) or 0.0
    if items <= 0:
        return "nothing left to label"
    exp = _finite(nb.get("expected_positives"))
    cost = money(nb.get("cost"))
    if exp is None:
        return f"next {_items(items)} cost {cost}; no labels yet to estimate their yield"
    cpp = _finite(nb.get("cost_per_positive"))
    if cpp is None or exp < 0.01:
        return f"no positives expected in the next {_items(items)} ({cost})"
    return (f"next {_items(items)}: about {count(exp)} positives for {cost} "
            f"({money(cpp)} per positive)")


def certification_plan_items(state: Any) -> int | None:
    """How many items the certification plan of an AdviceState (or ``None``) samples."""
    if state is None:
        return None
    plan = (state.advice.get("certification") or {}).get("plan") or {}
    items = plan.get("items")
    return None if items is None else int(items)


def certification_text(data: Mapping[str, Any]) -> str:
    """What certifying costs now, or how the running/last certification sample stands."""
    cert = data.get("certification") or {}
    sample = cert.get("sample")
    record = data.get("certification_record") or {}
    if sample:
        verb = "certified" if sample.get("certified") else (
            "running" if record.get("running") else "not certified")
        return (f"certification sample {verb}: {sample.get('labelled', 0):,} of "
                f"{sample.get('remaining', 0):,} sampled, {sample.get('positives', 0)} positive, "
                f"p = {_finite(sample.get('p_value')) or 0:.3f}")
    plan = cert.get("plan") or {}
    return str(plan.get("text") or "")


def audit_rate_text(data: Mapping[str, Any]) -> str:
    """Whether the audit rate in force can ever certify the target (empty when unknown)."""
    return str(((data.get("certification") or {}).get("audit_rate") or {}).get("text") or "")


def reliability_text(data: Mapping[str, Any]) -> str:
    """The reliability verdict, word for word as the advice states it."""
    rel = data.get("reliability") or {}
    if rel:
        return f"{rel.get('verdict', 'continue')}: {rel.get('text', '')}"
    rule = next((r for r in data.get("reasons", []) if r.get("rule") == "reliability"), None)
    return f"{rule['verdict']}: {rule['detail']}" if rule else ""


@dataclass(frozen=True)
class AdviceLines:
    """Everything a surface prints about the advice, already worded."""

    decision: str
    role: str
    badge: str
    headline: str
    stamp: str
    recall: str
    remaining: str
    next_batch: str
    certification: str
    audit_rate: str
    reliability: str
    rules: tuple[tuple[str, str, str], ...]   # (rule, verdict, detail)


def advice_lines(state: Any) -> AdviceLines:
    """Word every number of the advice once; every surface shows these strings."""
    data = advice_json(state)
    if not data:
        return AdviceLines("none", "none", "… NO ADVICE", "No stopping advice yet.", "", "", "",
                           "", "", "", "", ())
    decision = str(data.get("decision", "none"))
    rules = tuple((str(r.get("rule", "")), str(r.get("verdict", "")), str(r.get("detail", "")))
                  for r in data.get("reasons", []))
    return AdviceLines(
        decision, DECISION_ROLE.get(decision, "none"),
        DECISION_BADGE.get(decision, decision.upper()), str(data.get("headline", "")),
        labels_at_text(data), recall_text(data), remaining_text(data), next_batch_text(data),
        certification_text(data), audit_rate_text(data), reliability_text(data), rules)


def summary_lines(lines: AdviceLines) -> list[str]:
    """The estimate lines under the rule table (Advice tab, CLI text, banner tooltip)."""
    out = [lines.recall, lines.remaining, lines.next_batch, lines.certification,
           lines.audit_rate, lines.stamp]
    return [x for x in out if x]


@dataclass(frozen=True)
class RecallBand:
    """Estimated positives in the whole pool (found + left) and the recall it implies."""

    total: float
    lower: float
    upper: float
    recall: float | None
    recall_lower: float | None
    method: str
    text: str = ""
    stamp: str = ""
    recall_upper: float | None = None

    @property
    def informative(self) -> bool:
        """Is there a point estimate worth drawing (a recall interval under 50 points)?"""
        return self.recall is not None and recall_informative(self.recall_lower,
                                                              self.recall_upper)

    @property
    def label(self) -> str:
        """The legend entry: the same recall words as the banner and the Advice tab."""
        if self.informative:
            what = (f"estimate: positives in the pool ≈ {count(self.total)} "
                    f"({count(self.lower)}–{count(self.upper)})")
        else:
            what = f"estimate: between {count(self.lower)} and {count(self.upper)} positives"
        return f"{what}; {self.text}" if self.text else what

    def as_dict(self) -> dict:
        """Plain data (tests, JSON)."""
        return {"total": self.total, "lower": self.lower, "upper": self.upper,
                "recall": self.recall, "recall_lower": self.recall_lower,
                "method": self.method, "label": self.label, "stamp": self.stamp,
                "informative": self.informative}


def recall_band(state: Any) -> RecallBand | None:
    """The band on the gain chart; None when nothing estimates the unlabelled rest."""
    data = advice_json(state)
    if not data:
        return None
    total = data.get("estimated_total_positives") or {}
    rec = data.get("estimated_recall") or {}
    point, lower, upper = (_finite(total.get(k)) for k in ("point", "lower", "upper"))
    if point is None or lower is None or upper is None:
        return None
    method = str((data.get("remaining") or {}).get("method") or rec.get("method") or "")
    return RecallBand(point, lower, upper, _finite(rec.get("point")), _finite(rec.get("lower")),
                      method, recall_text(data), labels_at_text(data),
                      _finite(rec.get("upper")))
