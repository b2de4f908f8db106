"""Choosing the model: metrics, significance, value with a reject option, calibration, bandit.

Everything here is Qt-free and works on numpy arrays: ``scores`` are a model's scores for
the positive class (higher = more likely positive), ``gold`` is a boolean array (True =
positive). Results are frozen dataclasses; a statistic that is undefined for the data
(no positives, zero denominator) comes back as ``None`` with a reason, never NaN.
"""
