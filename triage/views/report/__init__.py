"""The lead's report: one data object (:mod:`.data`), rendered as a self-contained HTML
page (:mod:`.html`, charts inline as SVG) or as a PDF (:mod:`.pdf`, pure Python via fpdf2).

:func:`write_report` is what ``triage report`` and the lead window's "Export report…" run.
"""

from triage.views.report.data import build_report_data, report_advice
from triage.views.report.files import write_report  # noqa: E402

__all__ = ["build_report_data", "report_advice", "write_report"]
