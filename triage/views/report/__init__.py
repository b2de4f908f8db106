"""The lead's report: one data object (:mod:`.data`), rendered as a self-contained HTML
page (:mod:`.html`, charts inline as SVG) or as a PDF (:mod:`.pdf`, pure Python via fpdf2).

:func:`write_report` is what ``triage report`` and the lead window's "Export report…" run.
The names are imported when first used: ``triage report`` forks its second process
(:mod:`.side`) before it imports what only the first one needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from triage.views.report.data import build_report_data, report_advice
    from triage.views.report.files import write_report

_WHERE = {"build_report_data": "triage.views.report.data",
          "report_advice": "triage.views.report.data",
          "write_report": "triage.views.report.files"}


def __getattr__(name: str) -> Any:
    """``build_report_data``, ``report_advice`` and ``write_report``, imported on first use."""
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_WHERE[name]), name)


__all__ = ["build_report_data", "report_advice", "write_report"]
