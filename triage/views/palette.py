"""One colour per model on every chart: the desk's panels, the lead window and the report.

A model's colour is picked by its index in the project's model list, so "m2" is the same
colour in the Overview gain chart, the Models tab and the exported report. Okabe–Ito
colours (told apart with the common colour-vision deficiencies), without the blue of the
live curve and the pink of the estimate band.
"""

from __future__ import annotations

from collections.abc import Sequence

MODEL_PALETTE = ("#E69F00", "#009E73", "#D55E00", "#56B4E9", "#000000", "#7A6A00")
ESTIMATE_COLOUR = "#CC79A7"   # the band of estimated positives in the pool
# The live panels' colours (ui/panels/_base.py): the report draws its yield bars in them.
LIVE_BLUE = "#0072B2"         # the yield bars and the live curve
CURRENT_DECILE = "#FFF6D5"    # the decile being worked in, shaded behind its bar


def model_colour(name: str, models: Sequence[str]) -> str:
    """The colour of model ``name``: by its index in ``models`` (the project's model list)."""
    names = list(models)
    i = names.index(name) if name in names else len(names)
    return MODEL_PALETTE[i % len(MODEL_PALETTE)]
