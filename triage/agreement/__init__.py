"""Inter-annotator agreement (seeds 002 and 004): pure functions over coded ratings.

- :mod:`~triage.agreement.ratings`: long-form ratings coded against a category list, and
  :class:`Coefficient` (a value, or ``None`` with the reason it is undefined);
- :mod:`~triage.agreement.krippendorff`: Krippendorff's α, four levels, missing values;
- :mod:`~triage.agreement.coefficients`: percent agreement, Cohen's κ per pair (weighted
  for ordinal data), Fleiss' κ and Gwet's AC1 for any number of raters per item;
- :mod:`~triage.agreement.bootstrap`: percentile intervals over items, seeded;
- :mod:`~triage.agreement.breakdown`: per pair / annotator / session / decile / time, and
  test–retest;
- :mod:`~triage.agreement.accumulator`: α updated one rating at a time;
- :mod:`~triage.agreement.report`: everything ``triage agree`` shows.

(The functions ``bootstrap`` and ``breakdown`` are not re-exported here: they share their
modules' names.)
"""

from triage.agreement.accumulator import AlphaAccumulator
from triage.agreement.bootstrap import BootstrapResult, Interval
from triage.agreement.breakdown import BreakdownRow, RetestRow, retest_agreement
from triage.agreement.coefficients import (
    PairKappa,
    cohen_pairs,
    fleiss_kappa,
    gwet_ac1,
    mean_kappa,
    percent_agreement,
)
from triage.agreement.krippendorff import alpha_arrays, krippendorff_alpha
from triage.agreement.ratings import LEVELS, Coefficient, Ratings, encode, from_wide
from triage.agreement.report import AgreementReport, agreement_report, reading

__all__ = [
    "LEVELS",
    "AgreementReport",
    "AlphaAccumulator",
    "BootstrapResult",
    "BreakdownRow",
    "Coefficient",
    "Interval",
    "PairKappa",
    "Ratings",
    "RetestRow",
    "agreement_report",
    "alpha_arrays",
    "cohen_pairs",
    "encode",
    "fleiss_kappa",
    "from_wide",
    "gwet_ac1",
    "krippendorff_alpha",
    "mean_kappa",
    "percent_agreement",
    "reading",
    "retest_agreement",
]
