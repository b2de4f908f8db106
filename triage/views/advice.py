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
from triage.views.agreement_words import (  # noqa: F401  (shown by the agreement views)
    MIN_OVERLAP_ITEMS,
    READINGS,
    agreement_reading,
    agreement_reading_text,
)
from triage.views.formatting import format_money
from triage.views.rule_words import certification_words, rule_sentence, worded

DECISION_ROLE = {"continue": "go", "stop": "stop", "pause": "pause"}
DECISION_BADGE = {"continue": "▶ CONTINUE", "stop": "■ STOP", "pause": "❚❚ PAUSE"}


def advice_json(state: Any) -> Mapping[str, Any] | None:
    """The advice mapping, worded (rule_words), from an AdviceState, its JSON or a dict."""
    if state is None:
        return None
    data = state.to_json() if hasattr(state, "to_json") else state
    return worded(data) if data and "reasons" in data else data


def _finite(x: Any) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def share(x: Any) -> str:
    """``62%`` (one decimal under 10%), or ``—`` when undefined."""
    v = _finite(x)
    if v is None:
        return "—"
    v = min(max(v, 0.0), 1.0)
    return f"{100 * v:.1f}%" if v < 0.1 and v > 0 else f"{100 * v:.0f}%"


def count(x: Any) -> str:
    """A count of items or positives: whole when large, one decimal when small."""
    v = _finite(x)
    if v is None:
        return "—"
    v = max(v, 0.0)
    return f"{v:,.0f}" if v >= 10 or v == round(v) else f"{v:.1f}"


def labels_at_text(state: Any) -> str:
    """"computed at 1,470 labels" — which label count the advice belongs to."""
    data = advice_json(state) or {}
    at = data.get("labels_at")
    return "" if at is None else f"computed at {int(at):,} label{'s' if at != 1 else ''}"


def _known(data: Mapping[str, Any]) -> Mapping[str, Any]:
    return data.get("known") or {}


def _whole(x: Any) -> str:
    v = _finite(x)
    return "—" if v is None else f"{max(v, 0.0):,.0f}"


def found_text(data: Mapping[str, Any]) -> str:
    """"12 positives found in 50 labels (48 ranked, 2 audit)": what is known exactly."""
    k = _known(data)
    found, labelled = int(k.get("found") or 0), int(k.get("labelled") or 0)
    return (f"{found:,} positive{'' if found == 1 else 's'} found in {labelled:,} "
            f"label{'' if labelled == 1 else 's'} ({int(k.get('ranked') or 0):,} ranked, "
            f"{int(k.get('audit') or 0):,} audit)")


def recall_floor_text(data: Mapping[str, Any]) -> str:
    """"recall is at least 14% (95% confidence) if the ranking beats random below rank 48"."""
    k = _known(data)
    return (f"recall is at least {share(k.get('recall_at_least'))} "
            f"({share(k.get('confidence'))} confidence) if the ranking beats random below "
            f"rank {int(k.get('depth') or 0):,}")


def left_text(data: Mapping[str, Any]) -> str:
    """"positives left: at most C if the ranking beats random, at most U on the audit alone"."""
    k = _known(data)
    return (f"positives left: at most {_whole(k.get('ranked_left'))} if the ranking beats "
            f"random, at most {_whole(k.get('audit_left'))} on the random audit alone")


def rests_on_text(data: Mapping[str, Any]) -> str:
    """What the one-sided bounds rest on: the recent ranked yield and the audit below."""
    k = _known(data)
    wn, wk = int(k.get("window_n") or 0), int(k.get("window_k") or 0)
    an, ak = int(k.get("audit_below_n") or 0), int(k.get("audit_below_k") or 0)
    return (f"resting on {wk:,} positive{'' if wk == 1 else 's'} in the last {wn:,} ranked "
            f"label{'' if wn == 1 else 's'} and {an:,} random audit item{'' if an == 1 else 's'} "
            f"below rank {int(k.get('depth') or 0):,} ({ak:,} positive)")


def early(data: Mapping[str, Any]) -> bool:
    """Is only what is known one-sided worth stating (no point, no count in the pool)?"""
    return _known(data).get("reason") in ("early", "no_positive", "no_labels")


def recall_text(data: Mapping[str, Any]) -> str:
    """Recall: exact, a point with its interval, or (early) the one-sided lower bound."""
    rem = data.get("remaining") or {}
    reason = _known(data).get("reason")
    if rem.get("method") == "exact" or reason == "exact":
        found = rem.get("found", 0)
        return ("recall 100%, known exactly (every candidate is labelled)" if found else
                "no positive in the pool: recall is undefined (every candidate is labelled)")
    if reason == "no_positive":
        k = _known(data)
        return (f"recall undefined: no positive found yet in {int(k.get('labelled') or 0):,} "
                f"labels ({int(k.get('ranked') or 0):,} ranked, {int(k.get('audit') or 0):,} "
                "audit)")
    if reason == "no_labels" or not rem.get("found"):
        return "recall undefined: no positive found yet"
    rec = data.get("estimated_recall") or {}
    point, lo, hi = (_finite(rec.get(k)) for k in ("point", "lower", "upper"))
    if not _known(data) and (point is None or not recall_informative(lo, hi)):
        return f"recall between {share(lo)} and {share(hi)} (too early for a point estimate)"
    if reason == "early" or point is None or not recall_informative(lo, hi):
        return f"{found_text(data)}; {recall_floor_text(data)}"
    method = rem.get("method")
    return f"recall ≈ {share(point)} (95% interval {share(lo)}–{share(hi)}; {method} estimate)"


def _recall_known(data: Mapping[str, Any]) -> bool:
    """Is the recall interval narrow enough to quote point estimates of what is left?"""
    rec = data.get("estimated_recall") or {}
    return (not early(data) and _finite(rec.get("point")) is not None
            and recall_informative(_finite(rec.get("lower")), _finite(rec.get("upper"))))


def remaining_text(data: Mapping[str, Any]) -> str:
    """Positives left among the unlabelled: one-sided bounds early, else point and interval."""
    rem = data.get("remaining") or {}
    unl = int(rem.get("unlabelled") or 0)
    if rem.get("method") == "exact" or unl == 0:
        return "nothing is left unlabelled"
    if not _recall_known(data) and _known(data):
        return f"{left_text(data)} ({rests_on_text(data)})"
    point, lo, hi = (_finite(rem.get(k)) for k in ("positives", "lower", "upper"))
    if point is None or lo is None or hi is None:
        return f"between 0 and {unl:,} positives among the {unl:,} unlabelled (no estimate yet)"
    if not _recall_known(data):
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
    cur = str(data.get("currency") or "USD")
    cost = format_money(_finite(nb.get("cost")), cur)
    if exp is None:
        return f"next {_items(items)} cost {cost}; no labels yet to estimate their yield"
    cpp = _finite(nb.get("cost_per_positive"))
    if cpp is None or exp < 0.01:
        return f"no positives expected in the next {_items(items)} ({cost})"
    return (f"next {_items(items)}: about {count(exp)} positives for {cost} "
            f"({format_money(cpp, cur)} per positive)")


def plan_text(data: Mapping[str, Any]) -> str:
    """What narrows recall to ±25/±10 points, priced beside labelling from the top.

    Empty when the interval is already that narrow."""
    plan = data.get("plan") or {}
    cur = str(data.get("currency") or "USD")
    parts = []
    for row in plan.get("rows") or []:
        m, h = row.get("labels"), f"±{100 * float(row.get('half_width') or 0):.0f} points"
        if m is None:
            parts.append(f"{h}: not reachable with random labels")
            continue
        if int(m) == 0:
            continue
        cost = format_money(_finite(row.get("cost")), cur)
        text = (f"{h} needs about {int(m):,} random labels below rank "
                f"{int(plan.get('depth') or 0):,} ({cost}")
        top = _finite(row.get("positives_from_top"))
        text += (")" if top is None else
                 f"; the same money from the top finds about {count(top)} positives at the "
                 "recent yield)")
        parts.append(text)
    return "what it would take: " + "; ".join(parts) if parts else ""


def certification_plan_items(state: Any) -> int | None:
    """How many items the certification plan of an AdviceState (or ``None``) samples."""
    if state is None:
        return None
    plan = (state.advice.get("certification") or {}).get("plan") or {}
    items = plan.get("items")
    return None if items is None else int(items)


def certification_text(data: Mapping[str, Any]) -> str:
    """What certifying costs now, or how the running/last certification sample stands."""
    cert = certification_words(data.get("certification"), str(data.get("currency") or "USD"))
    cert = cert or {}
    sample = cert.get("sample")
    record = data.get("certification_record") or {}
    if sample:
        verb = "certified" if sample.get("certified") else (
            "running" if record.get("running") else "not certified")
        return (f"certification sample {verb}: {sample.get('text') or ''}, "
                f"p = {_finite(sample.get('p_value')) or 0:.3f}")
    plan = cert.get("plan") or {}
    return str(plan.get("text") or "")


def audit_rate_text(data: Mapping[str, Any]) -> str:
    """Whether the audit rate in force can ever certify the target (empty when unknown)."""
    cert = certification_words(data.get("certification"), str(data.get("currency") or "USD"))
    return str(((cert or {}).get("audit_rate") or {}).get("text") or "")


def reliability_text(data: Mapping[str, Any]) -> str:
    """The reliability verdict: α on n overlap items and what it means, from its numbers."""
    rule = next((r for r in data.get("reasons", []) if r.get("rule") == "reliability"), None)
    rel = data.get("reliability") or {}
    if rule is None and not rel:
        return ""
    nums = (rule or {}).get("numbers") or {}
    verdict = str(rel.get("verdict") or (rule or {}).get("verdict") or "continue")
    alpha, n = _finite(nums.get("alpha", rel.get("alpha"))), nums.get("overlap_items")
    if alpha is None or n is None:
        return f"{verdict}: agreement has not been measured yet (no overlap items)"
    n = int(n)
    if n < MIN_OVERLAP_ITEMS:
        return f"{verdict}: α = {alpha:.3f} on {n:,} overlap items: too few to judge (n = {n:,})"
    if verdict == "pause":
        return (f"pause: α = {alpha:.3f} on {n:,} overlap items is below 0.667: revise the "
                "guidelines; more labels of this quality will not help")
    band = "reliable" if alpha >= 0.8 else "tentative conclusions only"
    return f"{verdict}: α = {alpha:.3f} on {n:,} overlap items ({band})"


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
    plan: str
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
                           "", "", "", "", "", ())
    decision = str(data.get("decision", "none"))
    rules = tuple((str(r.get("rule", "")), str(r.get("verdict", "")), rule_detail(r, data))
                  for r in data.get("reasons", []))
    return AdviceLines(
        decision, DECISION_ROLE.get(decision, "none"),
        DECISION_BADGE.get(decision, decision.upper()), str(data.get("headline", "")),
        labels_at_text(data), recall_text(data), remaining_text(data), plan_text(data),
        next_batch_text(data),
        certification_text(data), audit_rate_text(data), reliability_text(data), rules)


def rule_detail(rule: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    """A rule's sentence: reliability as :func:`reliability_text`, the others by rule_words."""
    if rule.get("rule") == "reliability":
        return reliability_text(data).split(": ", 1)[1]
    return rule_sentence(rule, data)


def summary_lines(lines: AdviceLines) -> list[str]:
    """The estimate lines under the rule table (Advice tab, CLI text, banner tooltip)."""
    out = [lines.recall, lines.remaining, lines.plan, lines.next_batch, lines.certification,
           lines.audit_rate, lines.stamp]
    return [x for x in out if x]


@dataclass(frozen=True)
class RecallBand:
    """Positives in the whole pool (found + left) and the recall it implies.

    Early (:func:`early`) there is no point: ``total`` is None, the band runs from the
    positives found to found + the ranked-order bound, and charts must not stretch their
    axes to show it."""

    total: float | None
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
        return (self.total is not None and self.recall is not None
                and recall_informative(self.recall_lower, self.recall_upper))

    @property
    def label(self) -> str:
        """The legend entry: the same recall words as the banner and the Advice tab."""
        if not self.informative:
            return f"known: {self.text}" if self.text else "known"
        what = (f"estimate: positives in the pool ≈ {count(self.total)} "
                f"({count(self.lower)}–{count(self.upper)})")
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
    method = str((data.get("remaining") or {}).get("method") or rec.get("method") or "")
    k = _known(data)
    if early(data) and k:
        found = float(k.get("found") or 0)
        left = _finite(k.get("ranked_left"))
        return RecallBand(None, found, found + (left or 0.0), None,
                          _finite(k.get("recall_at_least")), method, recall_text(data),
                          labels_at_text(data), None)
    point, lower, upper = (_finite(total.get(k)) for k in ("point", "lower", "upper"))
    if point is None or lower is None or upper is None:
        return None
    return RecallBand(point, lower, upper, _finite(rec.get("point")), _finite(rec.get("lower")),
                      method, recall_text(data), labels_at_text(data),
                      _finite(rec.get("upper")))
