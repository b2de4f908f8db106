"""The lead's analysis views: agreement, adjudication, gallery, model choice and the advice
banner.

Each is a self-contained ``QWidget`` that draws Qt-free data from ``triage.views``
(see docs/readme/analysis-views.md for how a host wires them up). They are loaded on first
use: the desk shows only the banner, and the charts and model statistics behind the other
views cost seconds to import.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_MODULES = {"AdjudicationView": "adjudication_view", "AdviceBanner": "advice_banner",
            "AgreementView": "agreement_view", "GalleryView": "gallery_view",
            "ModelsView": "models_view"}

__all__ = sorted(_MODULES)


def __getattr__(name: str) -> Any:
    """Import a view's module when the view is first asked for."""
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_MODULES[name]}"), name)
