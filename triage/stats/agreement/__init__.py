"""Inter-annotator agreement (seeds 002 and 004): pure functions over coded ratings.

- :mod:`~triage.stats.agreement.ratings`: long-form ratings coded against a category list, and
  :class:`Coefficient` (a value, or ``None`` with the reason it is undefined);
- :mod:`~triage.stats.agreement.krippendorff`: Krippendorff's α, four levels, missing values;
- :mod:`~triage.stats.agreement.coefficients`: percent agreement, Cohen's κ per pair (weighted
  for ordinal data), Fleiss' κ and Gwet's AC1 for any number of raters per item;
- :mod:`~triage.stats.agreement.bootstrap`: percentile intervals over items, seeded;
- :mod:`~triage.stats.agreement.breakdown`: per pair / annotator / session / decile / time, and
  test–retest;
- :mod:`~triage.stats.agreement.accumulator`: α updated one rating at a time;
- :mod:`~triage.stats.agreement.report`: everything ``triage agree`` shows.

(The functions ``bootstrap`` and ``breakdown`` are not re-exported here: they share their
modules' names.)
"""

import importlib
from typing import Any

_EXPORTS = {
    "AlphaAccumulator": "accumulator", "BootstrapResult": "bootstrap", "Interval": "bootstrap",
    "BreakdownRow": "breakdown", "RetestRow": "breakdown", "retest_agreement": "breakdown",
    "PairKappa": "coefficients", "cohen_pairs": "coefficients", "fleiss_kappa": "coefficients",
    "gwet_ac1": "coefficients", "mean_kappa": "coefficients",
    "percent_agreement": "coefficients", "alpha_arrays": "krippendorff",
    "krippendorff_alpha": "krippendorff", "LEVELS": "ratings", "Coefficient": "ratings",
    "Ratings": "ratings", "encode": "ratings", "from_wide": "ratings",
    "AgreementReport": "report", "agreement_report": "report", "reading": "report",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    # Lazy, so that listing the command line's subcommands does not load scipy.
    if name in _EXPORTS:
        module = importlib.import_module(f"{__name__}.{_EXPORTS[name]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
