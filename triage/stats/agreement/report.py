"""Everything ``triage agree`` reports, from plain arrays, as one frozen dataclass.

The FILE form reads a table and feeds :func:`agreement_report`; the PROJECT form only
has to feed the same arrays from the labels table (:func:`triage.project.agreement.project_report`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from triage.base.errors import TriageError
from triage.stats.agreement.bootstrap import BootstrapResult, Interval
from triage.stats.agreement.bootstrap import bootstrap as bootstrap_intervals
from triage.stats.agreement.bootstrap_kappa import kappa_intervals
from triage.stats.agreement.breakdown import BreakdownRow, RetestRow, breakdown, retest_agreement
from triage.stats.agreement.coefficients import (
    PairKappa,
    cohen_pairs,
    fleiss_kappa,
    gwet_ac1,
    mean_kappa,
    percent_agreement,
)
from triage.stats.agreement.krippendorff import krippendorff_alpha, reading
from triage.stats.agreement.ratings import Coefficient, Ratings, encode

# Under this many items rated by two or more, the table says "too few to judge" instead of
# Krippendorff's band, as the advice, the lead view and the report do (``reading`` in JSON
# stays the band).
MIN_PAIRABLE_ITEMS = 30
KAPPA_WEIGHTS = {"nominal": None, "ordinal": "linear", "interval": "quadratic", "ratio": "quadratic"}


@dataclass(frozen=True)
class AgreementReport:
    """All agreement figures for one set of ratings."""

    items: int
    annotators: int
    ratings: int
    replaced: int
    pairable_items: int
    level: str
    categories: tuple[str, ...]
    percent_agreement: Coefficient
    cohen_pairs: tuple[PairKappa, ...]
    cohen_kappa_mean: Coefficient
    kappa_weights: str
    fleiss_kappa: Coefficient
    gwet_ac1: Coefficient
    krippendorff_alpha: Coefficient
    bootstrap: BootstrapResult | None
    kappa_intervals: dict[str, Interval] | None = None
    breakdowns: tuple[BreakdownRow, ...] = field(default=())
    retest: tuple[RetestRow, ...] | None = None

    @property
    def reading(self) -> str:
        """Krippendorff's reading of α: reliable, tentative, unreliable or undefined."""
        return reading(self.krippendorff_alpha)

    def to_json(self) -> dict[str, Any]:
        """The documented ``--json`` keys; undefined values are ``None`` with a reason."""
        coefs = {
            "percent_agreement": self.percent_agreement,
            "cohen_kappa_mean": self.cohen_kappa_mean,
            "fleiss_kappa": self.fleiss_kappa,
            "gwet_ac1": self.gwet_ac1,
            "krippendorff_alpha": self.krippendorff_alpha,
        }
        boot = self.bootstrap
        return {
            "items": self.items,
            "annotators": self.annotators,
            "ratings": self.ratings,
            "replaced_ratings": self.replaced,
            "pairable_items": self.pairable_items,
            "level": self.level,
            "categories": list(self.categories),
            **{k: c.value for k, c in coefs.items()},
            "cohen_kappa_pairs": {
                f"{p.first}|{p.second}": {
                    "kappa": p.kappa.value, "items": p.items, "reason": p.kappa.reason
                }
                for p in self.cohen_pairs
            },
            "cohen_kappa_weights": self.kappa_weights,
            "alpha_ci95": boot.alpha.as_list() if boot else None,
            "percent_agreement_ci95": boot.percent_agreement.as_list() if boot else None,
            **{f"{k}_ci95": (self.kappa_intervals[k].as_list() if self.kappa_intervals
                             else None)
               for k in ("cohen_kappa_mean", "fleiss_kappa", "gwet_ac1")},
            "bootstrap_resamples": boot.alpha.resamples if boot else 0,
            "bootstrap_defined": boot.alpha.defined if boot else 0,
            "reading": self.reading,
            "undefined_reason": self.krippendorff_alpha.reason,
            "reasons": {
                **{k: c.reason for k, c in coefs.items()},
                "alpha_ci95": (boot.alpha.reason if boot else "no bootstrap was requested"),
            },
            "breakdowns": [
                {
                    "by": r.by, "group": r.group, "items": r.items,
                    "alpha": r.alpha.value, "percent_agreement": r.percent_agreement.value,
                    "reason": r.alpha.reason,
                }
                for r in self.breakdowns
            ],
            "retest": None if self.retest is None else {
                r.annotator: {
                    "items": r.items, "alpha": r.alpha.value,
                    "percent_agreement": r.percent_agreement.value, "kappa": r.kappa.value,
                    "reason": r.alpha.reason or r.kappa.reason,
                }
                for r in self.retest
            },
        }


def _kappa_cis(ratings: Ratings, weights: str | None, bootstrap: int,
               seed: int | None) -> dict[str, Interval] | None:
    """Bootstrap intervals on κ, Fleiss' κ and AC1 (None without resamples)."""
    if bootstrap <= 0:
        return None
    return kappa_intervals(ratings, weights, resamples=bootstrap, seed=seed)


def agreement_report(
    items: Sequence[object],
    annotators: Sequence[object],
    labels: Sequence[object],
    *,
    level: str = "nominal",
    categories: Sequence[str] | None = None,
    seed: int | None = 0,
    bootstrap: int = 1000,
    breakdowns: Sequence[str] = (),
    session: Sequence[str] | None = None,
    decile: Sequence[str] | None = None,
    time: Sequence[str] | None = None,
    block: int | None = None,
    retest: bool = False,
    guideline_version: Sequence[str] | None = None,
) -> AgreementReport:
    """Code long-form ratings (empty label = no rating) and compute every coefficient.

    If an annotator rated an item more than once the last rating counts; with ``retest``
    (which needs ``session``) each annotator's first two sessions on an item are also
    compared with each other.
    """
    ratings = encode(items, annotators, labels, level=level, categories=categories)
    weights = KAPPA_WEIGHTS[level]
    pairs = tuple(cohen_pairs(ratings, weights))
    per_item = np.bincount(ratings.item, minlength=ratings.n_items)
    boot = (
        bootstrap_intervals(ratings, level, resamples=bootstrap, seed=seed)
        if bootstrap > 0 else None
    )
    rows = [row for by in breakdowns for row in breakdown(
        ratings, by, level, session=session, decile=decile, time=time, block=block,
        guideline_version=guideline_version)]
    retest_rows = None
    if retest:
        if session is None:
            raise TriageError("test-retest agreement needs a session column")
        retest_rows = tuple(retest_agreement(
            items, annotators, labels, session, level=level, categories=ratings.categories
        ))
    return AgreementReport(
        items=ratings.n_items,
        annotators=ratings.n_annotators,
        ratings=len(ratings),
        replaced=ratings.replaced,
        pairable_items=int(np.count_nonzero(per_item >= 2)),
        level=level,
        categories=ratings.categories,
        percent_agreement=percent_agreement(ratings),
        cohen_pairs=pairs,
        cohen_kappa_mean=mean_kappa(list(pairs)),
        kappa_weights=weights or "none",
        fleiss_kappa=fleiss_kappa(ratings),
        gwet_ac1=gwet_ac1(ratings),
        krippendorff_alpha=krippendorff_alpha(ratings, level),
        bootstrap=boot, kappa_intervals=_kappa_cis(ratings, weights, bootstrap, seed),
        breakdowns=tuple(rows),
        retest=retest_rows,
    )




def _fmt(c: Coefficient) -> str:
    return f"{c.value:.3f}" if c.value is not None else "undefined"


def _pair_lines(pairs: tuple[PairKappa, ...], shown: int = 10) -> list[str]:
    """Cohen's κ per pair; with many pairs only the lowest and highest few."""
    lines = [f"  {'pair':<30} {'items':>6} {'kappa':>9}"]
    chosen = list(pairs)
    if len(pairs) > shown:
        ranked = sorted(pairs, key=lambda p: (p.kappa.value is None, p.kappa.value or 0.0))
        chosen = ranked[: shown // 2] + ranked[-(shown // 2):]
        lines[0] += f"   ({shown // 2} lowest and highest of {len(pairs)} pairs; --json has all)"
    for p in chosen:
        lines.append(f"  {p.first + ' | ' + p.second:<30} {p.items:>6} {_fmt(p.kappa):>9}")
    return lines


def render_text(report: AgreementReport) -> str:
    """A short readable table of the report."""
    lines = [
        f"{report.items} items, {report.annotators} annotators, {report.ratings} ratings "
        f"({report.pairable_items} items rated by two or more); level {report.level}",
    ]
    if report.replaced:
        lines.append(f"{report.replaced} earlier ratings were replaced by a later one")
    ci = report.bootstrap.alpha.as_list() if report.bootstrap else None
    ci_text = f"  95% CI [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""
    weights = "" if report.kappa_weights == "none" else f" ({report.kappa_weights} weights)"
    boot = report.kappa_intervals or {}

    def kci(key: str) -> str:
        iv = boot[key].as_list() if key in boot else None
        return f"  95% CI [{iv[0]:.3f}, {iv[1]:.3f}]" if iv else ""

    word = report.reading if report.pairable_items >= MIN_PAIRABLE_ITEMS else (
        f"too few to judge (n = {report.pairable_items:,})")
    table = [
        ("Krippendorff's alpha", report.krippendorff_alpha,
         ci_text + (f"  {word}" if report.krippendorff_alpha.defined else "")),
        ("Percent agreement", report.percent_agreement, ""),
        ("Cohen's kappa (mean of pairs)", report.cohen_kappa_mean,
         kci("cohen_kappa_mean") + weights),
        ("Fleiss' kappa", report.fleiss_kappa, kci("fleiss_kappa")),
        ("Gwet's AC1", report.gwet_ac1, kci("gwet_ac1")),
    ]
    lines.append("")
    for name, coef, extra in table:
        lines.append(f"  {name:<30} {_fmt(coef):>9}{extra}")
    notes = [(n, c.reason) for n, c, _ in table if c.reason]
    if report.cohen_pairs:
        lines.append("")
        lines.extend(_pair_lines(report.cohen_pairs))
    if report.breakdowns:
        lines.append("")
        lines.append(f"  {'breakdown':<30} {'items':>6} {'alpha':>9} {'agree':>9}")
        for r in report.breakdowns:
            label = f"{r.by} {r.group}"
            lines.append(
                f"  {label:<30} {r.items:>6} {_fmt(r.alpha):>9} {_fmt(r.percent_agreement):>9}"
            )
    if report.retest:
        lines.append("")
        lines.append(f"  {'test-retest':<30} {'items':>6} {'alpha':>9} {'agree':>9} {'kappa':>9}")
        for t in report.retest:
            lines.append(f"  {t.annotator:<30} {t.items:>6} {_fmt(t.alpha):>9} "
                         f"{_fmt(t.percent_agreement):>9} {_fmt(t.kappa):>9}")
    if notes:
        lines.append("")
        lines.extend(f"{name} is undefined: {reason}" for name, reason in notes)
    return "\n".join(lines)
