"""The lead's analysis views: agreement, adjudication, model choice and the advice banner.

Each is a self-contained ``QWidget`` that draws Qt-free data from ``triage.views``
(see docs/readme/analysis-views.md for how a host wires them up).
"""

from ui.analysis.adjudication_view import AdjudicationView
from ui.analysis.advice_banner import AdviceBanner
from ui.analysis.agreement_view import AgreementView
from ui.analysis.models_view import ModelsView

__all__ = ["AdjudicationView", "AdviceBanner", "AgreementView", "ModelsView"]
