"""One plain-language sentence (or two) per report section, from that section's numbers."""

from __future__ import annotations

from typing import Any

from triage.views.advice import agreement_reading_text
from triage.views.formatting import awaiting, plural
from triage.views.panels import format_money, format_share


def _n(x: float | None, digits: int = 3) -> str:
    return "undefined" if x is None else f"{x:.{digits}f}"


def project(data: dict[str, Any]) -> str:
    """How big the pool is, what has been looked at, and who did it."""
    s = data["settings"]
    positives = ", ".join(s["positive_labels"]) or "none"
    return (f"{plural(data['pool'], 'candidate')} ranked by "
            f"{plural(len(data['models']), 'model')}; the queue follows "
            f"{data['active_model']}. {data['annotated']:,} have been annotated by "
            f"{plural(data['annotators'], 'annotator')}, and {data['positives_found']:,} were "
            f"positive (positive label: {positives}).")


def spend(data: dict[str, Any]) -> str:
    """What has been spent, against what budget."""
    cur = data["currency"]
    text = f"{format_money(data['spent'], cur)} spent"
    if data["budget"] is None:
        text += " (no budget is set)"
    else:
        text += (f" of a {format_money(data['budget'], cur)} budget "
                 f"({format_share(data['spent_share'], 0)})")
    cpp = data["cost_per_positive"]
    if cpp is not None:
        text += f"; each positive found so far cost {format_money(cpp, cur)} on average"
    return text + ". The chart shows how the spend grew over time, every annotation counted."


def gain(data: dict[str, Any]) -> str:
    """Positives found, and what the advice knows of recall (the same words as every surface)."""
    lines = data.get("recall_lines")
    if not lines:
        return (f"{data['positives_found']:,} positives found. Nothing estimates the "
                "positives still in the pool yet, so recall cannot be stated.")
    band = data.get("band") or {}
    # Early the first line already says how many were found, in how many labels.
    text = "" if not band.get("informative") else f"{data['positives_found']:,} positives found. "
    shade = ("The shaded band is the 95% range of positives in the pool"
             if band.get("informative") else
             "The shaded band runs from the positives found to the ranked-order bound, "
             "clipped to the chart")
    first = lines[0][:1].upper() + lines[0][1:]
    rest = "; ".join([first, *lines[1:]])
    return f"{text}{rest}. {shade}; dashed lines are gold-label curves."


def yield_(data: dict[str, Any]) -> str:
    """Where in the ranking the positives are, and what they cost there."""
    if data["empty"]:
        return "Nothing has been annotated yet, so no decile has a yield."
    rows = [(d, y) for d, y in zip(data["deciles"], data["yields"]) if y is not None]
    best = max(rows, key=lambda r: r[1])
    text = (f"Yield is the share of annotated candidates that were positive; the best decile "
            f"so far is decile {best[0]} at {format_share(best[1])}.")
    if data.get("current") is not None:
        text += f" Work is now in decile {data['current']}."
    return text + " Cost per positive is the price of one annotation divided by the yield."


def advice(data: dict[str, Any]) -> str:
    """The decision, and that every rule is listed."""
    return (f"Advice: {data['headline']}. Each rule below gives its own verdict and the "
            "numbers it rests on; the desk shows this same advice.")


def agreement(report: dict[str, Any]) -> str:
    """Krippendorff's alpha with its reading (the app's words), or why it is undefined."""
    alpha = report.get("krippendorff_alpha")
    if alpha is None:
        return (f"Agreement cannot be measured yet: {report.get('undefined_reason')}. It needs "
                "candidates labeled by two or more annotators (overlap).")
    ci = report.get("alpha_ci95")
    interval = f" (95% interval {ci[0]:.3f} to {ci[1]:.3f})" if ci and None not in ci else ""
    items = report.get("pairable_items", 0)
    return (f"On {items} candidates labeled by two or more annotators, "
            f"Krippendorff's α is {alpha:.3f}{interval}: "
            f"{agreement_reading_text(report.get('reading', ''), items)}.")


def models(data: dict[str, Any], currency: str) -> str:
    """Which model finds the most positives within the budget."""
    gain = data["gain_report"]
    best = gain.get("best_model_within_budget")
    source = "gold labels" if gain.get("labels_from") == "gold" else "the labels so far"
    if gain.get("undefined_reason"):
        return f"Models cannot be compared yet: {gain['undefined_reason']}."
    if best is None:
        early = gain["earliest_to_all_positives_whole_deciles"]
        return (f"Judged on {source}, {' and '.join(early['models'])} reaches all positives "
                f"earliest ({format_money(early['cost'], currency)}). No budget is set.")
    return (f"Judged on {source}, {' and '.join(best['models'])} finds the most positives "
            f"within the budget: {best['positives']:,.1f} of {gain['positives']:,}. Value with "
            "a reject option and calibration follow for models whose scores are probabilities.")


def samples(data: dict[str, Any]) -> str:
    """What the random audit sample holds, and where certification stands."""
    audit = data["audit"]
    text = (f"The random audit sample (rate {format_share(data['audit_rate'])}) has "
            f"{audit['items']} labeled candidates, {audit['positives']} positive; it is what "
            "recall estimates rest on.")
    cert = data.get("certification")
    if cert is not None:
        text += f" Recall certification: {cert['verdict']}."
    if data["disagreements"]["count"]:
        text += f" {awaiting(data['disagreements']['count'], 'disagreement')}."
    return text


def provenance(data: dict[str, Any]) -> str:
    """Where the data came from."""
    files = len(data["sources"])
    if not files:
        return ("This project's import predates the recording of file hashes; the source "
                "file's name is shown without one." + pictures(data.get("pictures")))
    return (f"{files} file(s) were imported; each is listed with its SHA-256 hash, so the "
            "exact input can be checked later." + pictures(data.get("pictures")))


def pictures(check: dict[str, Any] | None) -> str:
    """How many of the pool's pictures could not be shown, and why ("" for a text pool)."""
    if not check:
        return ""
    if check.get("scope") == "handled":
        text = (f" Of the {check['pictures']:,} pictures annotators have handled (the pool "
                f"holds {check['pool_size']:,}; `triage status --check-images` checks them "
                f"all), {check['not_shown']:,} could not be shown when this report was made")
    else:
        text = (f" The pool holds {check['pictures']:,} pictures; {check['not_shown']:,} "
                "could not be shown when this report was made")
    reasons = dict(check["reasons"], **({"no picture in the cell": check["blank"]}
                                        if check["blank"] else {}))
    if reasons:
        text += " (" + "; ".join(f"{n:,}: {why}" for why, n in sorted(reasons.items())) + ")"
    if check["remote"]:
        text += f"; {check['remote']:,} are URLs, fetched at the desk and not checked here"
    return text + "."


def pictures_section(data: dict[str, Any]) -> str:
    """What the pictures section shows: how many of each, and how many could not be shown."""
    dis, pos = data["disagreements"], data["positives"]
    found = "has" if pos["total"] == 1 else "have"
    text = (f"{awaiting(dis['total'], 'disagreement')} and {plural(pos['total'], 'positive')} "
            f"{found} been found (final labels, as exported).")
    if not data["images"]:
        return text + " Pictures are left out of this report (--no-images)."
    shown = [f"the first {plural(dis['shown'], 'disagreement')}, best-ranked first"
             if dis["shown"] else "",
             f"a random sample of {plural(pos['shown'], 'positive')}" if pos["shown"] else ""]
    shown = [part for part in shown if part]
    if shown:
        text += f" Shown: {' and '.join(shown)}, so label quality can be judged at a glance."
    missing = dis["not_shown"] + pos["not_shown"]
    if missing:
        text += f" {missing:,} of these pictures could not be shown; each says why."
    return text
