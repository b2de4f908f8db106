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
                "alpha_ci95": (boot.alpha.reason if boot else "no_bootstrap"),
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
