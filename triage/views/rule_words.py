"""The stopping rules' sentences: one per (rule, reason code), worded from the rule's numbers.

The rules in :mod:`triage.stats.stopping` return a verdict, a reason code and numbers, no
words; every surface (desk banner, lead view, ``status``, ``advise``, the report) shows
the sentence made here, and the advice headline made from the deciding rule's sentence.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from triage.base.money import format_money
from triage.views.estimate_words import estimates_worded, source_words

Numbers = Mapping[str, Any]
MIN_EXPECTED = 0.01  # fewer expected positives than this read "none expected"
# The calibrated estimate's backtest (docs/numbers/stopping.md, coverage table): its 95%
# interval missed the true recall in 7% of runs on synthetic scores, 64-91% on real ones.
MISS_RATE = "the calibrated estimate missed the true recall in 7-91% of backtest runs"


def _f(x: Any, default: float = math.nan) -> float:
    return default if x is None else float(x)


def _pct(x: Any) -> str:
    return f"{_f(x):.0%}"


def _i(x: Any) -> int:
    return int(_f(x, 0.0))


def _budget(code: str, n: Numbers, cur: str) -> str:
    if code == "no_budget":
        return "No budget is set, so money never stops the work."
    left, buys = _f(n.get("left"), 0.0), _i(n.get("annotations_affordable"))
    if code == "spent":
        over = _f(n.get("overspent"), 0.0)
        return (f"The budget is spent: {format_money(n.get('spent'), cur)} of "
                f"{format_money(n.get('budget'), cur)}"
                + (f", overspent by {format_money(over, cur)}." if over > 0 else
                   f"; {format_money(left, cur)} left does not buy one more annotation."))
    if code == "nothing_to_buy":
        return (f"{format_money(left, cur)} left, but nothing is left to buy: "
                "every candidate has been handled.")
    items = _i(n.get("unlabelled_items"))
    more = (f"{buys:,} more annotations" if buys <= items else
            f"all {items:,} candidates still unlabelled")
    if code == "low":
        return (f"Only {format_money(left, cur)} left: {more} "
                f"({left / _f(n.get('budget'), 1.0):.0%} of the budget).")
    return f"{format_money(left, cur)} left buys {more}."


def _pool(code: str, n: Numbers, cur: str) -> str:
    unl = _i(n.get("unlabelled"))
    if code == "exhausted":
        return ("The pool is exhausted: every candidate has been handled."
                + (f" ({unl:,} skipped candidates were never labelled.)" if unl else ""))
    return f"{unl:,} of {_i(n.get('pool')):,} candidates are still unlabelled."


def batch_words(n: Numbers, cur: str) -> tuple[str, str]:
    """What the next batch buys, and at what rate, in words (no ratio when nothing is)."""
    size, cost, exp = _f(n.get("batch_items"), 0.0), n.get("batch_cost"), _f(n.get("expected_positives"), 0.0)
    if exp < MIN_EXPECTED:
        return (f"no positives are expected in the next {size:g} items (fewer than "
                f"{MIN_EXPECTED:g}; they cost {format_money(cost, cur)})"), "no positives expected"
    return (f"the next {size:g} items cost {format_money(cost, cur)} for about {exp:.1f} "
            "positives", f"{format_money(n.get('cost_per_positive'), cur)} per positive")


def _marginal(code: str, n: Numbers, cur: str) -> str:
    if code == "nothing_left":
        return "Nothing is left to label: every candidate has been handled."
    if code == "all_skipped":
        return (f"Nothing is left to serve: the {_i(n.get('unlabelled')):,} candidates without "
                "a label were skipped.")
    if code == "no_labels":
        return "No labels yet to estimate the yield of the next batch."
    what, rate = batch_words(n, cur)
    value = format_money(n.get("value_per_positive"), cur)
    if code == "no_value":
        why = f"No value per positive is set; {what} ({rate})."
    elif code == "not_even_optimistic":
        hi = _f(n.get("expected_positives_upper"), 0.0)
        upper = ("no positives expected even then" if hi < MIN_EXPECTED else
                 f"at most {hi:.1f}: "
                 f"{format_money(n.get('cost_per_positive_at_upper_yield'), cur)} per positive")
        why = f"Even at the optimistic yield, {what} ({upper}), more than the value {value} buys."
    elif code == "probably_not":
        why = (f"Probably not worth it — {what}: {rate} against {value} — but not with "
               f"{_pct(n.get('confidence'))} confidence.")
    else:
        why = f"{what[0].upper()}{what[1:]}: {rate} against a value of {value}."
    if n.get("calibration_consistent") is False:
        why += " The calibrated scores disagree with the last batch, so the recent yield is used."
    return why


def _recall(code: str, n: Numbers, cur: str) -> str:
    t, conf = _pct(n.get("target")), _pct(n.get("confidence"))
    k, r = _i(n.get("audit_positives_above_depth")), _i(n.get("audit_positives"))
    if code == "exact_found":
        return (f"Recall is known exactly: every candidate is labelled and all "
                f"{_i(n.get('found')):,} positives are found (100%).")
    if code == "exact_none":
        return "Every candidate is labelled and none is positive: there is nothing to find."
    if code == "no_audit_positive":
        return (f"The audit holds no positive yet, so recall cannot be certified; at least "
                f"{_i(n.get('qbcb_min_positives'))} audit positives are needed for {t}.")
    if code == "certified":
        return (f"Recall is at least {_pct(n.get('qbcb_lower'))} with {conf} confidence "
                f"({k} of {r} audit positives found), meeting the target {t}.")
    need = n.get("qbcb_required")
    more = (f"{int(need) - k} more of them must be found" if need is not None else
            f"the audit needs at least {_i(n.get('qbcb_min_positives'))} positives to certify it")
    return f"Not certified: {k} of {r} audit positives found, target {t} at {conf} confidence; {more}."


def _knee(code: str, n: Numbers, cur: str) -> str:
    if code == "too_early":
        return (f"Too early for the knee method: {_i(n.get('reviewed'))} of the "
                f"{_i(n.get('needed'))} items it needs.")
    ratio, threshold = _f(n.get("slope_ratio")), _f(n.get("threshold"))
    if code == "flattened":
        return (f"The gain curve has flattened: slope ratio {ratio:.1f} ≥ {threshold:.0f} after "
                f"the knee at rank {_i(n.get('knee'))} (a heuristic; it informs, it does not "
                "decide).")
    return f"No knee yet: slope ratio {ratio:.1f} < {threshold:.0f}."


def _reliability(code: str, n: Numbers, cur: str) -> str:
    a, items = _f(n.get("alpha")), _i(n.get("overlap_items"))
    if code == "not_measured":
        return "Agreement has not been measured yet (no overlap items)."
    if code == "too_few":
        return f"α = {a:.3f} on {items:,} overlap items: too few to judge (n = {items:,})."
    if code == "unreliable":
        return (f"α = {a:.3f} on {items:,} overlap items is below {_f(n.get('threshold')):.3f}: "
                "revise the guidelines; more labels of this quality will not help.")
    band = "reliable" if code == "reliable" else "tentative conclusions only"
    return f"α = {a:.3f} on {items:,} overlap items ({band})."


def _quant(name: str) -> Callable[[str, Numbers, str], str]:
    def words(code: str, n: Numbers, cur: str) -> str:
        if code == "no_calibration":
            return "No calibrated scores yet (labels of both classes are needed)."
        t = _pct(n.get("target"))
        text = (f"Forecast, no guarantee: calibrated scores put {_pct(n.get('estimated_recall'))} "
                f"of the expected positives among the labelled (Quant; target {t}; {MISS_RATE})"
                if name == "quant" else
                f"Forecast, no guarantee: Quant minus {_f(n.get('nstd')):g} standard deviations, "
                f"{_pct(n.get('recall_lower'))} (QuantCI; target {t}; {MISS_RATE})")
        return text + (" — met; a score-based heuristic without guarantee, it informs only."
                       if code == "met" else " — not met.")
    return words


def sample_words(n: Mapping[str, Any]) -> str:
    """How a certification sample is counted: its decided prefix, skips as positives."""
    pos, skipped, waiting = _i(n.get("positives")), _i(n.get("skipped_as_positive")), _i(
        n.get("waiting"))
    text = (f"{_i(n.get('labelled')):,} of {_i(n.get('remaining')):,} unlabelled items "
            f"sampled at random and decided in sample order, {pos} positive"
            f"{'s' if pos != 1 else ''}")
    if skipped:
        text += (f" ({skipped} of them skipped or tied between annotators: counted as "
                 f"{'positives' if skipped != 1 else 'a positive'}, the worst case)")
    if waiting:
        text += (f"; {waiting:,} decided further on "
                 f"{'wait' if waiting != 1 else 'waits'} for the items before "
                 f"{'them' if waiting != 1 else 'it'}")
    return text


def _certification(code: str, n: Numbers, cur: str, data: Mapping[str, Any]) -> str:
    if code == "nothing_left":
        return "Nothing left to certify."
    if code == "plan":
        plan = (data.get("certification") or {}).get("plan") or {}
        return plan_words(plan, cur) if "code" in plan else str(plan.get("text") or "")
    what = f"{sample_words(n)}; p = {_f(n.get('p_value')):.3f}"
    if code == "certified":
        return (f"Certified: recall is at least {_pct(n.get('target'))} with "
                f"{_pct(n.get('confidence'))} confidence ({what}).")
    return (f"Certification sample under way: {what}, needs p < "
            f"{1 - _f(n.get('confidence')):.2f}.")


WORDS: dict[str, Callable[[str, Numbers, str], str]] = {
    "budget": _budget, "pool": _pool, "marginal_value": _marginal, "recall": _recall,
    "knee": _knee, "reliability": _reliability, "quant": _quant("quant"),
    "quant_ci": _quant("quant_ci"),
}


def rule_sentence(reason: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    """The sentence of one rule of the advice JSON (``reasons[i]``), from its code and numbers."""
    if "code" not in reason:
        return str(reason.get("detail", ""))
    rule, code = str(reason.get("rule", "")), str(reason.get("code", ""))
    numbers = reason.get("numbers") or {}
    cur = str(data.get("currency") or "USD")
    if rule == "certification":
        return _certification(code, numbers, cur, data)
    words = WORDS.get(rule)
    return words(code, numbers, cur) if words else code.replace("_", " ")


def _slice_name(items: float, decile: float) -> str:
    """The slice as the subject of a sentence, with its verb: "the next decile costs"."""
    if abs(items - decile) < 1e-9:
        return "the next decile costs"
    whole = max(1, round(items))   # a decile of 2,478.3 items is "the next 248", not 247.83
    return f"the next {whole:,} item{'' if whole == 1 else 's'} cost{'s' if whole == 1 else ''}"


def _lower_first(text: str) -> str:
    return f"{text[:1].lower()}{text[1:].rstrip('.')}"


def headline_text(data: Mapping[str, Any]) -> str:
    """The one-line advice: the decision and the deciding rule's sentence (or the next batch)."""
    decision = str(data.get("decision", "none"))
    reasons = {str(r.get("rule")): r for r in data.get("reasons") or []}
    marginal = reasons.get("marginal_value") or {}
    nb = data.get("next_batch") or {}
    cur = str(data.get("currency") or "USD")
    value = (marginal.get("numbers") or {}).get("value_per_positive")
    exp = nb.get("expected_positives")
    deciding = data.get("deciding")
    if deciding is not None and deciding != "marginal_value" and deciding in reasons:
        head = f"{decision} — {_lower_first(rule_sentence(reasons[deciding], data))}"
        if (deciding in ("recall", "certification") and marginal.get("verdict") == "continue"
                and value and exp is not None and exp >= MIN_EXPECTED):
            head += (f"; the next batch would still pay ({format_money(nb.get('cost_per_positive'), cur)}"
                     f" per positive against {format_money(value, cur)})")
        return head
    if not marginal:
        return decision
    if exp is None or exp < MIN_EXPECTED:
        return f"{decision} — {_lower_first(rule_sentence(marginal, data))}"
    decile = _f((data.get("counts") or {}).get("decile"))
    what = _slice_name(_f(nb.get("items"), 0.0), decile)
    cpp = format_money(nb.get("cost_per_positive"), cur)
    if value is None:
        return f"{decision} — {what} about {cpp} per positive (no value per positive set)"
    return f"{decision} — {what} about {cpp} per positive against a value of {format_money(value, cur)}"


def plan_words(plan: Numbers, cur: str) -> str:
    """What a one-off certification sample would take now, in words."""
    code, t, conf = plan.get("code"), _pct(plan.get("target")), _pct(plan.get("confidence"))
    unl = _i(plan.get("unlabelled"))
    if code == "nothing_left":
        return "Nothing is left unlabelled: recall is known exactly, no certificate is needed."
    if code == "too_early":
        return (f"Certifying {t} recall at {conf} confidence takes a random sample of the "
                f"{unl:,} unlabelled items; its size cannot be told while the recall interval "
                "spans 50 points or more.")
    if code == "impossible":
        return (f"Certifying {t} recall now is not possible: the estimated recall is below "
                "the target: a sample would only confirm that; label further down the "
                "ranking first.")
    text = (f"Certifying {t} recall at {conf} confidence now needs about "
            f"{_i(plan.get('items')):,} more labels ({format_money(_f(plan.get('cost'), 0.0), cur)}), "
            f"a random sample of the {unl:,} unlabelled items, if the sample finds positives "
            f"at the estimated rate of the remainder ({_f(plan.get('rate'), 0.0):.2%})")
    if plan.get("affordable") is False:
        text += f"; more than the {format_money(_f(plan.get('left'), 0.0), cur)} left"
    return text + "."


def urns_words(urns: Numbers) -> str:
    """The ranked-urn test, in words."""
    code = urns.get("code")
    if code == "no_ranked_labels":
        return "No ranked labels to test yet."
    if code == "nothing_left":
        return "Nothing is left unlabelled."
    return (f"Ranked urns (no extra labels; valid only if the ranking beats random order below "
            f"rank {_i(urns.get('depth')):,}): p = {_f(urns.get('p_value')):.3f} — "
            + ("recall target met under that assumption." if code == "met" else "not met."))


def audit_rate_words(check: Numbers, cur: str) -> str:
    """Whether the audit rate in force can certify the target before the end (or "")."""
    code, t = check.get("code"), _pct(check.get("target"))
    rate, need = _pct(check.get("rate")), _i(check.get("needed"))
    projected = _f(check.get("projected_audit_positives"), 0.0)
    if code == "can":
        return (f"At the audit rate {rate} the audit should gather about {projected:.0f} "
                f"positives by the end; QBCB needs about {need} to certify {t}.")
    if code != "cannot":
        return ""
    needed = _f(check.get("rate_needed"), 1.0)
    alt = f"an audit rate of {needed:.0%} would" if needed < 1 else "no audit rate would"
    items = check.get("plan_items")
    one_off = ("a one-off certification sample" if items is None else
               f"a one-off certification sample of about {int(items):,} labels "
               f"({format_money(_f(check.get('plan_cost'), 0.0), cur)}) would")
    end = "the budget ends" if check.get("ends") == "budget" else "the pool ends"
    return (f"The audit rate in force ({rate}) can never certify {t} recall before {end}: "
            f"it would gather about {projected:.1f} audit positives, QBCB needs about {need}; "
            f"{alt}, or {one_off}.")


def certification_words(cert: Mapping[str, Any] | None, cur: str) -> dict[str, Any] | None:
    """The certification part of the advice JSON with the text of its plan, urns, audit rate."""
    if not cert:
        return None if cert is None else dict(cert)
    out = dict(cert)
    for key, words in (("plan", lambda x: plan_words(x, cur)), ("ranked_urns", urns_words),
                       ("audit_rate", lambda x: audit_rate_words(x, cur))):
        part = cert.get(key)
        if isinstance(part, Mapping) and "code" in part:
            out[key] = dict(part, text=words(part))
    if isinstance(cert.get("sample"), Mapping):
        out["sample"] = dict(cert["sample"], text=sample_words(cert["sample"]))
    return out


def validity_text(data: Mapping[str, Any]) -> str:
    """One sentence naming the rules the advice rests on for the ranking followed."""
    reasons = data.get("reasons") or []
    valid = [str(r.get("rule")).replace("_", " ") for r in reasons if r.get("validity") == "valid"]
    heuristic = [str(r.get("rule")).replace("_", " ") for r in reasons
                 if r.get("validity") == "heuristic"]
    if data.get("ranking", "frozen") == "frozen":
        return (f"Following a frozen ranking: {', '.join(valid)} hold"
                + (f"; {', '.join(heuristic)} is a heuristic." if heuristic else "."))
    return ("Following a ranking that learns from the labels (cal): the advice rests on "
            f"{', '.join(valid)}; {', '.join(heuristic)} assume a fixed order and are "
            "heuristics here.")


def _numbers_worded(reason: Mapping[str, Any]) -> Any:
    """The marginal rule's yield ``source`` in words, its code beside it in ``source_code``."""
    n = reason.get("numbers")
    if reason.get("rule") != "marginal_value" or not isinstance(n, Mapping) or "source" not in n:
        return n
    return dict(n, source=source_words(n), source_code=n.get("source_code", n["source"]))


def worded(data: Mapping[str, Any]) -> dict[str, Any]:
    """The advice JSON with its words: each rule's ``detail``, the ``headline``, ``validity``.

    A mapping whose rules carry no reason code (already worded, or made by hand) is
    returned as it is."""
    out = dict(data)
    if not any("code" in r for r in data.get("reasons") or []):
        return out
    out = estimates_worded(data)
    out["reasons"] = [dict(r, detail=rule_sentence(r, data), numbers=_numbers_worded(r))
                      for r in data.get("reasons") or []]
    out["headline"] = headline_text(data)
    out["validity"] = validity_text(data)
    out["certification"] = certification_words(data.get("certification"),
                                               str(data.get("currency") or "USD"))
    return out
