"""Stopping advice: when does further annotation stop paying? (Qt-free, pure functions.)

Fill :class:`AdviceInputs`, call :func:`advise`, and serialise with :func:`advice_to_json`.
:mod:`triage.stopping.simulate` backtests the rules on labeled data.
"""

from triage.stopping.advice import advice_to_json, advise
from triage.stopping.types import Advice, AdviceInputs, Estimate, NextBatch, RuleResult

__all__ = ["Advice", "AdviceInputs", "Estimate", "NextBatch", "RuleResult", "advice_to_json",
           "advise"]
