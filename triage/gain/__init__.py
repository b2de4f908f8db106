"""Gain, cumulative gain and annotation cost of model rankings (seed 000), offline.

Pure functions over numpy arrays returning frozen dataclasses. See
:mod:`triage.gain.analysis` for one model, :mod:`triage.gain.compare` for choosing among
models, and :mod:`triage.live` for the incremental state the desk draws while labeling.
"""

from triage.gain.analysis import NO_POSITIVES, DecileRow, ModelGain, affordable, analyse_model
from triage.gain.compare import Choice, Comparison, NextDecile, compare_models, next_decile
from triage.gain.ranking import DECILES, Ranking, decile_of_rank, decile_sizes, rank_pool

__all__ = [
    "DECILES",
    "NO_POSITIVES",
    "Choice",
    "Comparison",
    "DecileRow",
    "ModelGain",
    "NextDecile",
    "Ranking",
    "affordable",
    "analyse_model",
    "compare_models",
    "decile_of_rank",
    "decile_sizes",
    "next_decile",
    "rank_pool",
]
