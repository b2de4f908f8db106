"""Gain, cumulative gain and annotation cost of model rankings (seed 000), offline.

Pure functions over numpy arrays returning frozen dataclasses. See
:mod:`triage.stats.gain.analysis` for one model, :mod:`triage.stats.gain.compare` for choosing among
models, and :mod:`triage.stats.live` for the incremental state the desk draws while labeling.
"""

from triage.stats.gain.analysis import NO_POSITIVES, DecileRow, ModelGain, affordable, analyse_model
from triage.stats.gain.compare import Choice, Comparison, NextDecile, compare_models, next_decile
from triage.stats.gain.ranking import DECILES, Ranking, decile_of_rank, decile_sizes, rank_pool

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
