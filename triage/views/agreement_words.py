"""How agreement reads: Krippendorff's bands, and "too few to judge" under 30 overlap items.

The lead view's Agreement tab, the desk banner's reliability line, ``agree`` and the report
all read α through these words (re-exported by :mod:`triage.views.advice`).
"""

from __future__ import annotations

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
