"""How agreement reads: Krippendorff's bands, and "too few to judge" under 30 overlap items.

The lead view's Agreement tab, the desk banner's reliability line, ``agree`` and the report
all read α through these words (re-exported by :mod:`triage.views.advice`), and every
reason :mod:`triage.stats.agreement` gives as a code (why a coefficient is undefined) is
worded here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from triage.stats.agreement.report import MIN_PAIRABLE_ITEMS

MIN_OVERLAP_ITEMS = MIN_PAIRABLE_ITEMS   # agreement on fewer overlap items is too few to judge
READINGS = {
    "reliable": "reliable — α ≥ 0.800: the labels can be relied on",
    "tentative": "tentative — 0.667 ≤ α < 0.800: draw tentative conclusions only",
    "unreliable": "unreliable — α < 0.667: fix the guidelines before labeling more",
}


def agreement_reading(reading: str, items: Any) -> str:
    """The reading a surface shows: ``too few`` under 30 overlap items, else Krippendorff's."""
    n = int(items or 0)
    if reading in READINGS and n < MIN_OVERLAP_ITEMS:
        return "too few"
    return reading


def agreement_reading_text(reading: str, items: Any) -> str:
    """"too few to judge (n = 4)", or the band's words ("reliable — α ≥ 0.800: …")."""
    shown = agreement_reading(reading, items)
    if shown == "too few":
        return f"too few to judge (n = {int(items or 0):,})"
    return READINGS.get(shown, shown)


# Why a coefficient or interval is undefined, by reason code (triage.stats.agreement).
REASONS = {
    "no_ratings": "there are no ratings",
    "no_pairable": "no item has two or more ratings, so there is nothing to compare",
    "one_category": ("every rating is in the same category, so chance agreement is 1 and the "
                     "coefficient is 0/0"),
    "alpha_no_pairable": ("no item has ratings from two or more annotators, so there is "
                          "nothing to compare"),
    "alpha_no_variation": ("every pairable rating has the same value, so the expected "
                           "disagreement is zero and α is 0/0"),
    "pair_no_common_item": "the two annotators rated no item in common",
    "no_common_item": "no two annotators rated an item in common",
    "ac1_one_category": "AC1 needs at least two declared categories",
    "free_kappa_one_category": "free-marginal κ needs at least two categories",
    "no_other_rater": "none of its items has a rating by another annotator yet",
    "no_retest_item": "the annotator rated no item in two sessions",
    "no_resamples": "no bootstrap resamples were requested",
    "resample_no_pairable": "no item has ratings from two or more annotators",
    "no_bootstrap": "no bootstrap was requested",
}
RESAMPLED = {"alpha": "α", "percent_agreement": "percent agreement", "fleiss_kappa": "Fleiss' κ",
             "gwet_ac1": "AC1", "cohen_kappa_mean": "Cohen's κ"}


def reason_text(code: str | None, first_pair: tuple[str, str, str | None] | None = None) -> str | None:
    """Why a coefficient is undefined, in words; ``first_pair`` (a, b, its code) for Cohen's mean.

    Text that is no code (already worded) is returned as it is."""
    if code is None:
        return None
    if code == "every_pair_undefined":
        a, b, why = first_pair or ("?", "?", None)
        return f"Cohen's κ is undefined for every annotator pair ({a}|{b}: {reason_text(why)})"
    if code.startswith("every_resample_") and code[15:] in RESAMPLED:
        return f"{RESAMPLED[code[15:]]} is undefined in every resample"
    return REASONS.get(code, code)


def agreement_words(data: Mapping[str, Any]) -> dict[str, Any]:
    """``AgreementReport.to_json()`` with every reason in words, its code beside it (``*_code``)."""
    out = dict(data)
    pairs = data.get("cohen_kappa_pairs") or {}
    first = next(iter(pairs.items()), None)
    first_pair = None if first is None else (*first[0].split("|", 1), first[1].get("reason"))

    def word(code: Any) -> Any:
        return reason_text(code, first_pair) if isinstance(code, str) else code

    if "reasons" in data and "reason_codes" not in data:
        out["reason_codes"] = dict(data["reasons"])
        out["reasons"] = {k: word(v) for k, v in data["reasons"].items()}
        out["undefined_reason_code"] = data.get("undefined_reason")
        out["undefined_reason"] = word(data.get("undefined_reason"))
        out["cohen_kappa_pairs"] = {k: dict(v, reason=word(v.get("reason")),
                                            reason_code=v.get("reason"))
                                    for k, v in pairs.items()}
        out["breakdowns"] = [dict(r, reason=word(r.get("reason")), reason_code=r.get("reason"))
                             for r in data.get("breakdowns") or []]
        if data.get("retest") is not None:
            out["retest"] = {k: dict(v, reason=word(v.get("reason")), reason_code=v.get("reason"))
                             for k, v in data["retest"].items()}
    return out
