"""Qt-free preparation of what the lead's analysis views in ``ui/analysis`` draw.

The widgets only draw these frozen dataclasses. The slow work (bootstrap, permutation
tests, calibration) happens in :func:`build_models_view_data` and in
:func:`triage.project_agreement.agreement_for_project`; a GUI runs them in a worker thread.
"""

from triage.view_analysis.models import (
    ACCEPT_KS,
    DEFAULT_ACCEPT_K,
    VALUE_KS,
    Acceptance,
    ModelsInputs,
    ModelsViewData,
    bandit_lines,
    build_models_view_data,
    models_inputs,
)
from triage.view_analysis.views import (
    AGREEMENT_BREAKDOWNS,
    READINGS,
    AdjudicationData,
    AgreementViewData,
    BannerData,
    DisagreementRow,
    Series,
    adjudication_data,
    agreement_job,
    agreement_view_data,
    banner_data,
    session_labels,
)

__all__ = [
    "ACCEPT_KS", "AGREEMENT_BREAKDOWNS", "DEFAULT_ACCEPT_K", "READINGS", "VALUE_KS",
    "Acceptance", "AdjudicationData", "AgreementViewData", "BannerData", "DisagreementRow",
    "ModelsInputs", "ModelsViewData", "Series", "adjudication_data", "agreement_job",
    "agreement_view_data", "bandit_lines", "banner_data", "build_models_view_data",
    "models_inputs", "session_labels",
]
