"""Stopping advice: when does further annotation stop paying? (Qt-free, pure functions.)

Fill :class:`AdviceInputs`, call :func:`advise`, and serialise with :func:`advice_to_json`.
The rules return verdicts, reason codes and numbers; ``triage.views.rule_words`` words
them. :mod:`triage.stats.stopping.simulate` backtests the rules.
"""

from triage.stats.stopping.advice import advice_to_json, advise
from triage.stats.stopping.types import Advice, AdviceInputs, Estimate, NextBatch, RuleResult

__all__ = ["Advice", "AdviceInputs", "Estimate", "NextBatch", "RuleResult", "advice_to_json",
           "advise"]
