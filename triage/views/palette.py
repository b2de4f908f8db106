"""One colour per model on every chart: the desk's panels, the lead window and the report.

A model's colour is picked by its index in the project's model list, so "m2" is the same
colour in the Overview gain chart, the Models tab and the exported report. Okabe–Ito
colours (told apart with the common colour-vision deficiencies), without the blue of the
live curve and the pink of the estimate band.
"""

from __future__ import annotations

from collections.abc import Sequence

# The one chart palette (the desk's panels, the lead window's charts, the report):
# Okabe–Ito, told apart with the common colour-vision deficiencies, and one grey.
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, YELLOW = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442")
GREY = "#666666"    # secondary lines and text: 5.7:1 on white, readable (WCAG AA)
LIGHT = "#E6E6E6"   # rules, grids and empty bars
MODEL_PALETTE = (ORANGE, GREEN, VERMILLION, SKY, "#000000", "#7A6A00")
ESTIMATE_COLOUR = PURPLE      # the band of estimated positives in the pool
LIVE_BLUE = BLUE              # the yield bars and the live curve
CURRENT_DECILE = "#FFF6D5"    # the decile being worked in, shaded behind its bar
HIGHLIGHT = CURRENT_DECILE


def model_colour(name: str, models: Sequence[str]) -> str:
    """The colour of model ``name``: by its index in ``models`` (the project's model list)."""
    names = list(models)
    i = names.index(name) if name in names else len(names)
    return MODEL_PALETTE[i % len(MODEL_PALETTE)]
